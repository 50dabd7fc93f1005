// A kept model folder: written whole (replacing an older one), opened only when the manifest
// names the task and every checksum holds, its weights loaded by name into a fresh module;
// every way it can be wrong is an error naming the file.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>

#include "common/log/hdf5_run_log.h"
#include "common/sha256.h"
#include "experiments/kept_model/kept_model.h"
#include "tests/support/error_message.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;
using recurlab::testing::errorMessageOf;

struct TinyNetImpl : torch::nn::Module {
  explicit TinyNetImpl(int64_t width) {
    first = register_module("first", torch::nn::Linear(3, width));
    norm = register_module("norm", torch::nn::BatchNorm1d(width));
  }
  torch::nn::Linear first{nullptr};
  torch::nn::BatchNorm1d norm{nullptr};
};
TORCH_MODULE(TinyNet);

KeptModelSpec specOf(const TinyNet& net) {
  KeptModelSpec spec;
  spec.task = "toy";
  spec.model = "tiny";
  spec.unit = "/tiny";
  spec.weights = KeepModel::Best;
  spec.metric = "dev_acc";
  spec.value = 0.75;
  spec.epoch = 3;
  spec.config = {{"width", 4}};
  spec.module = net.get();
  spec.files.push_back({"vocabulary.txt", [](const std::string& p) { std::ofstream(p) << "a\nb\n"; }});
  return spec;
}

TEST(KeptModel, LastWeightsRecordTheFinalEpochsScoreAndBestWeightsTheBestEpochs) {
  int reads_of_the_log = 0;
  const auto last = [&] {
    ++reads_of_the_log;
    return KeptScore{"valid_bpc", 1.5, 9};
  };
  KeptModelSpec spec;
  spec.weights = KeepModel::Best;
  setKeptScore(spec, {"test_bpc", 1.25, 7}, last);
  EXPECT_EQ(spec.metric, "test_bpc");
  EXPECT_DOUBLE_EQ(spec.value, 1.25);
  EXPECT_EQ(spec.epoch, 7);
  EXPECT_EQ(reads_of_the_log, 0);
  spec.weights = KeepModel::Last;
  setKeptScore(spec, {"test_bpc", 1.25, 7}, last);
  EXPECT_EQ(spec.metric, "valid_bpc");
  EXPECT_DOUBLE_EQ(spec.value, 1.5);
  EXPECT_EQ(spec.epoch, 9);
  EXPECT_EQ(reads_of_the_log, 1);
}

// The tasks' `last`: the epochs table's final row, read when the Last weights are kept (the
// table has grown since the function was made), not before.
TEST(KeptModel, LastEpochScoreReadsTheEpochsTablesFinalRowWhenCalled) {
  testing::TempRoot temp("recurlab_last_epoch_score");
  Hdf5RunLog log((temp.root / "log.h5").string(), Hdf5RunLog::Mode::Create);
  log.createTable("/unit/epochs", {"epoch", "dev_acc", "dev_f1"});
  log.appendRow("/unit/epochs", {1, 0.5, 0.25});
  const auto last = lastEpochScore(log, "/unit", "dev_f1", 2);
  log.appendRow("/unit/epochs", {2, 0.75, 0.625});
  const KeptScore score = last();
  EXPECT_EQ(score.metric, "dev_f1");
  EXPECT_DOUBLE_EQ(score.value, 0.625);
  EXPECT_EQ(score.epoch, 2);
  const auto absent = errorMessageOf([&] { lastEpochScore(log, "/unit", "test_acc", 2)(); });
  EXPECT_NE(absent.find("test_acc"), std::string::npos) << absent;
}

TEST(KeptModel, WrittenFolderOpensAndLoadsTheSameTensorsByName) {
  testing::TempRoot temp("recurlab_kept_model");
  torch::manual_seed(1);
  TinyNet net(4);
  net->norm->running_mean.fill_(0.5);  // a buffer with a value of its own
  const auto dir = (temp.root / "models" / "tiny").string();
  writeKeptModel(dir, specOf(net));
  const auto kept = openKeptModel(dir, "toy", {"vocabulary.txt"});
  EXPECT_EQ(kept.manifest.at("weights"), "best");
  EXPECT_EQ(kept.manifest.at("metric"), "dev_acc");
  EXPECT_EQ(kept.manifest.at("value").get<double>(), 0.75);
  EXPECT_EQ(kept.manifest.at("epoch").get<int64_t>(), 3);
  EXPECT_FALSE(kept.manifest.at("recurlab_commit").get<std::string>().empty());
  EXPECT_EQ(kept.manifest.at("files").at("weights.pt"), sha256OfFile(kept.path("weights.pt")));
  EXPECT_EQ(kept.config.at("width"), 4);
  torch::manual_seed(2);
  TinyNet fresh(4);
  loadKeptWeights(*fresh, kept);
  for (const auto& p : net->named_parameters())
    EXPECT_TRUE(torch::equal(p.value(), fresh->named_parameters()[p.key()])) << p.key();
  EXPECT_TRUE(torch::equal(fresh->norm->running_mean, net->norm->running_mean));
  // The archive holds exactly the module's names (the exchange format's contract).
  torch::serialize::InputArchive archive;
  archive.load_from(kept.path("weights.pt"));
  EXPECT_EQ(archive.keys().size(), net->named_parameters().size() + net->named_buffers().size());
  // Written again: the folder is replaced whole, no part or old folder left beside it.
  net->first->bias.data().fill_(7);
  writeKeptModel(dir, specOf(net));
  loadKeptWeights(*fresh, openKeptModel(dir, "toy"));
  EXPECT_EQ(fresh->first->bias[0].item<float>(), 7.0f);
  int entries = 0;
  for (const auto& e : fs::directory_iterator(temp.root / "models")) entries += e.exists();
  EXPECT_EQ(entries, 1);
}

TEST(KeptModel, EveryDefectIsAnErrorNamingTheFile) {
  testing::TempRoot temp("recurlab_kept_model_bad");
  TinyNet net(4);
  const auto dir = (temp.root / "tiny").string();
  writeKeptModel(dir, specOf(net));
  const std::string manifest = dir + "/manifest.json";
  EXPECT_NE(errorMessageOf([&] { openKeptModel(dir, "lm"); }).find(manifest + ": a model of task 'toy', not 'lm'"),
            std::string::npos);
  EXPECT_NE(errorMessageOf([&] { openKeptModel(dir, "toy", {"subwords.model"}); }).find(manifest + ": lists no subwords.model"),
            std::string::npos);
  EXPECT_NE(errorMessageOf([&] { openKeptModel((temp.root / "none").string(), "toy"); }).find("none: not a folder"),
            std::string::npos);
  TinyNet wider(5);  // weights of another config
  EXPECT_NE(errorMessageOf([&] { loadKeptWeights(*wider, openKeptModel(dir, "toy")); })
                .find(dir + "/weights.pt: 'first.weight' has shape [4, 3], the model's is [5, 3]"),
            std::string::npos);
  {
    std::ofstream(dir + "/vocabulary.txt", std::ios::app) << "c\n";  // changed after writing
    EXPECT_NE(errorMessageOf([&] { openKeptModel(dir, "toy"); }).find(dir + "/vocabulary.txt: sha256 differs"),
              std::string::npos);
  }
  std::ofstream(dir + "/vocabulary.txt") << "a\nb\n";  // as written again
  EXPECT_NO_THROW(openKeptModel(dir, "toy"));
  fs::remove(dir + "/weights.pt");
  EXPECT_NE(errorMessageOf([&] { openKeptModel(dir, "toy"); }).find(dir + "/weights.pt: missing"), std::string::npos);
  fs::remove(manifest);  // what a kill before the rename would leave (the part folder)
  EXPECT_NE(errorMessageOf([&] { openKeptModel(dir, "toy"); }).find(manifest + ": missing; " + dir + " is not a complete kept model"),
            std::string::npos);
}

TEST(KeptModel, KeepModelNamesRoundTrip) {
  for (const char* name : {"best", "last", "averaged", "none"}) EXPECT_EQ(keepModelName(keepModelNamed(name)), name);
  EXPECT_NE(errorMessageOf([] { keepModelNamed("newest"); }).find("expected best, last, averaged or none"), std::string::npos);
}

}  // namespace
}  // namespace recurlab::experiments
