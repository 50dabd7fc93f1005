// recurlab_weights in process: inspect lists a file, import and export through the SRU model
// give the reference's file back, and bad command lines and files get one clear error.
#include "experiments/weights/weights_command.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "experiments/weights/safetensors_file.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments::weights {
namespace {

const std::string kReferenceWeights =
    std::string(RECURLAB_SOURCE_DIR) + "/tests/fixtures/reference_sru/weights.safetensors";
const std::vector<std::string> kSruModel = {
    "--model", "sru", "--input-size", "5", "--model-config",
    R"({"layers": 2, "hidden": 3, "bidirectional": true, "rescale": true, "highway_bias": -1,
        "layer_norm": true, "projection": 2})"};

struct Result {
  int status;
  std::string out, err;
};

Result run(std::vector<std::string> args, const std::vector<std::string>& more = {}) {
  args.insert(args.end(), more.begin(), more.end());
  std::ostringstream out, err;
  const int status = runWeightsCommand(args, out, err);
  return {status, out.str(), err.str()};
}

void expectSameTensors(const SafetensorsContents& a, const SafetensorsContents& b) {
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (const auto& t : a.tensors) {
    const auto* other = b.find(t.name);
    ASSERT_NE(other, nullptr) << t.name;
    EXPECT_EQ(other->shape, t.shape) << t.name;
    EXPECT_EQ(other->data, t.data) << t.name;
  }
}

TEST(WeightsCommandTest, InspectListsTheTensorsAndMetadata) {
  const auto r = run({"inspect", kReferenceWeights});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("metadata model = sru.SRU 2.6.0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rnn_lst.0.weight F32 [2, 24]\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rnn_lst.1.layer_norm.weight F32 [6]\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("14 tensors, "), std::string::npos) << r.out;
}

TEST(WeightsCommandTest, ImportThenExportThroughTheSruGivesTheFileBack) {
  testing::TempRoot temp("weights_command");
  const std::string archive = (temp.root / "weights.pt").string();
  const std::string back = (temp.root / "back.safetensors").string();
  auto r = run({"import", kReferenceWeights, archive}, kSruModel);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("wrote " + archive + ": 14 tensors"), std::string::npos) << r.out;
  r = run({"export", archive, back}, kSruModel);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto exported = readSafetensors(back);
  expectSameTensors(readSafetensors(kReferenceWeights), exported);
  EXPECT_EQ(exported.metadata.at("model"), "sru");
  EXPECT_EQ(exported.metadata.at("format"), "pt");
}

// The minRNNs fixture (tests/fixtures/reference_linrec) through --model min_lstm: recurlab's
// names in the archive, the reference's back in the file.
TEST(WeightsCommandTest, ExportThroughMinLstmGivesTheReferenceNames) {
  testing::TempRoot temp("weights_command_min_lstm");
  const std::string fixture =
      std::string(RECURLAB_SOURCE_DIR) + "/tests/fixtures/reference_linrec/min_lstm.safetensors";
  const std::string archive = (temp.root / "weights.pt").string();
  const std::string back = (temp.root / "back.safetensors").string();
  const std::vector<std::string> model = {"--model", "min_lstm", "--input-size", "4",
                                          "--model-config",
                                          R"({"layers": 2, "hidden": 4, "log_space": true})"};
  auto r = run({"import", fixture, archive}, model);
  ASSERT_EQ(r.status, 0) << r.err;
  r = run({"export", archive, back}, model);
  ASSERT_EQ(r.status, 0) << r.err;
  expectSameTensors(readSafetensors(fixture), readSafetensors(back));
  EXPECT_NE(readSafetensors(back).find("layers.1.to_hidden_and_gate.weight"), nullptr);
  r = run({"export", archive, back},
          {"--model", "min_lstm", "--input-size", "4", "--model-config",
           R"({"layers": 2, "hidden": 4})"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("model 'min_lstm': BorealisAI/minRNNs' minLSTM passes its candidate "
                       "through g (the log-space form): set \"log_space\": true"),
            std::string::npos)
      << r.err;
}

TEST(WeightsCommandTest, WithoutAModelTensorsPassOneToOne) {
  testing::TempRoot temp("weights_command_plain");
  const std::string archive = (temp.root / "weights.pt").string();
  const std::string back = (temp.root / "back.safetensors").string();
  ASSERT_EQ(run({"import", kReferenceWeights, archive}).status, 0);
  ASSERT_EQ(run({"export", archive, back}).status, 0);
  expectSameTensors(readSafetensors(kReferenceWeights), readSafetensors(back));
  // A folder must be a kept model (experiments/weights/kept_model_exchange_test.cpp).
  const auto r = run({"export", temp.root.string(), (temp.root / "folder.safetensors").string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(temp.root.string() + "/manifest.json: missing"), std::string::npos) << r.err;
}

TEST(WeightsCommandTest, BadCommandLinesAndFilesGetOneError) {
  auto r = run({"convert", "a", "b"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown action 'convert'"), std::string::npos) << r.err;
  r = run({"inspect"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("inspect takes 1 file, got 0"), std::string::npos) << r.err;
  r = run({"inspect", "/nonexistent.safetensors"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("error: /nonexistent.safetensors: cannot open"), std::string::npos)
      << r.err;
  r = run({"import", kReferenceWeights, "/tmp/x.pt", "--model", "sru"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--model sru needs --input-size"), std::string::npos) << r.err;
  r = run({"import", kReferenceWeights, "/tmp/x.pt", "--model", "sru", "--input-size", "5"});
  EXPECT_EQ(r.status, 2) << "the default SRU (hidden 256) does not fit the file";
  EXPECT_NE(r.err.find(kReferenceWeights + ": tensor 'rnn_lst.0.weight' has shape [2, 24], "
                             "the model's 'sru.rnn_lst.0.weight' has shape [5, 1024]"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(run({"--help"}).status, 0);
}

}  // namespace
}  // namespace recurlab::experiments::weights
