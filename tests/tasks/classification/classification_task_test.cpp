// The classification task on the harness: a run split in shards equals an uninterrupted one
// (CPU training is deterministic for a given seed; resume after real kills is in
// tests/experiments/harness/kill_resume_test.cpp), and configs are checked before any work.
#include "tasks/classification/classification_task.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/runtime/thread_count.h"
#include "experiments/harness/run_folder.h"
#include "experiments/harness/runner.h"
#include "tests/experiments/harness/run_log_summary.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

struct TinyBenchmark {
  fs::path root;
  TinyBenchmark() {
    root = recurlab::testing::perProcessTempPath("recurlab_cls_");
    fs::remove_all(root);
    fs::create_directories(root / "data" / "classification");
    std::ofstream mr(root / "data" / "classification" / "rt-polarity.all");
    const char* filler[] = {"the", "film", "plot", "is", "a", "story", "of", "actors"};
    for (int i = 0; i < 60; ++i) {
      mr << i % 2;
      for (int t = 0; t < 3 + i % 3; ++t) mr << " " << filler[(i + 3 * t) % 8];
      mr << " " << (i % 2 ? "great" : "dull") << " .\n";
    }
  }
  ~TinyBenchmark() { fs::remove_all(root); }
  std::string data() const { return (root / "data").string(); }
};

ClassificationConfig tinyConfig() {
  return ClassificationConfig::fromJson(nlohmann::json::parse(R"({
    "seed": 5, "datasets": ["MR"], "cv_folds": 10, "folds": 2, "trials": 2, "seeds": 2,
    "train": {"max_epochs": 2, "embed_dim": 8, "batch_size": 16,
              "lr": {"loguniform": [0.001, 0.01]}},
    "models": {"sru": {"encoder": "sru", "config": {"layers": 1, "hidden": 8}},
               "cnn": {"encoder": "cnn", "config": {"maps": 4}}}
  })"));
}

std::map<std::string, std::string> runUnits(const ClassificationConfig& config, const TinyBenchmark& bench,
                                            const fs::path& folder, Shard shard, int64_t* waiting = nullptr) {
  ClassificationTask task(config, bench.data());
  RunFolderOptions o("classification");
  o.out_dir = folder.string();
  RunFolder run(o, shard, "test", nlohmann::json{{"seed", config.seed}}, config.seed, MachineInfo{},
                [&](const Hdf5RunLog& log) { return unfinishedUnitGroups(task, shard, log); });
  std::ostringstream quiet;
  RunnerOptions options;
  options.seed = static_cast<uint64_t>(config.seed);
  options.progress = &quiet;
  const auto report = runTask(task, run, options);
  if (waiting) *waiting += report.waiting;
  run.finish();
  return recurlab::testing::finishedUnits(folder.string());
}

TEST(ClassificationTask, ShardsTogetherEqualOneRun) {
  applyThreadCount(1);  // tiny models: threads only add overhead on a busy CI machine
  TinyBenchmark bench;
  const auto config = tinyConfig();
  const auto reference = runUnits(config, bench, bench.root / "reference", {});
  ASSERT_EQ(reference.size(), 2u * 2 + 2 * 2 * 2);  // 2 models x 2 trials, then 2 x 2 folds x 2 seeds
  int64_t waited = 0;
  std::map<std::string, std::string> sharded;
  for (const Shard& s : {Shard{0, 2}, Shard{1, 2}, Shard{0, 2}})  // shard 0 first waits for 1's trials
    sharded = runUnits(config, bench, bench.root / "sharded", s, &waited);
  EXPECT_GT(waited, 0);
  EXPECT_EQ(runLogFiles((bench.root / "sharded").string()).size(), 2u);
  EXPECT_EQ(sharded, reference);
}

TEST(ClassificationTask, DenseEmbeddingGradientsAreStillAvailable) {
  applyThreadCount(1);
  TinyBenchmark bench;
  auto json = nlohmann::json::parse(R"({
    "seed": 5, "datasets": ["MR"], "folds": 1, "trials": 1, "seeds": 1,
    "train": {"max_epochs": 2, "embed_dim": 8, "batch_size": 16},
    "models": {"sru": {"encoder": "sru", "config": {"layers": 1, "hidden": 8}}}
  })");
  const auto sparse = runUnits(ClassificationConfig::fromJson(json), bench, bench.root / "sparse", {});
  json["train"]["sparse_embedding"] = false;
  const auto dense = runUnits(ClassificationConfig::fromJson(json), bench, bench.root / "dense", {});
  ASSERT_EQ(sparse.size(), 1u);
  ASSERT_EQ(dense.size(), 1u);
  // Lazy Adam on the embedding rows is another update rule than dense Adam.
  EXPECT_NE(sparse.begin()->second, dense.begin()->second);
  EXPECT_EQ(sparse.begin()->second.rfind("finished", 0), 0u);
  EXPECT_EQ(dense.begin()->second.rfind("finished", 0), 0u);
}

TEST(ClassificationConfig, RejectsBadKeysNamingThem) {
  auto error = [](const std::string& patch) {
    auto j = nlohmann::json::parse(R"({"models": {"sru": {"encoder": "sru"}}})");
    j.merge_patch(nlohmann::json::parse(patch));
    try {
      ClassificationConfig::fromJson(j);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error("{}"), "");
  EXPECT_NE(error(R"({"trails": 3})").find("unknown key 'trails'"), std::string::npos);
  EXPECT_NE(error(R"({"trials": "many"})").find("key 'trials'"), std::string::npos);
  EXPECT_NE(error(R"({"folds": 11})").find("an integer in [1, 10]"), std::string::npos);
  EXPECT_NE(error(R"({"datasets": ["MR", "IMDB"]})").find("unknown classification dataset 'IMDB'"), std::string::npos);
  EXPECT_NE(error(R"({"train": {"lr": -1}})").find("key 'lr'"), std::string::npos);
  EXPECT_NE(error(R"({"train": {"optimiser": "adam"}})").find("unknown key 'optimiser'"), std::string::npos);
  EXPECT_NE(error(R"({"models": {"sru": {"config": {"hidden": 0}}}})").find("model 'sru': key 'hidden'"), std::string::npos);
  EXPECT_NE(error(R"({"models": {"x": {"encoder": "transformerxl"}}})").find("one of"), std::string::npos);
  // A search space whose upper end is out of range is caught before any work.
  EXPECT_NE(error(R"({"train": {"dropout": {"uniform": [0.1, 1.5]}}})").find("key 'dropout'"), std::string::npos);
  EXPECT_NE(error(R"({"data": {"empty_sentences": "ignore"}})").find("'skip', 'error'"), std::string::npos);
  // uniform draws reals: an integer key must use {"int": [a, b]}, caught before any work.
  EXPECT_NE(error(R"({"models": {"sru": {"config": {"hidden": {"uniform": [64, 256]}}}}})").find("key 'hidden'"),
            std::string::npos);
  EXPECT_EQ(error(R"({"models": {"sru": {"config": {"hidden": {"int": [64, 256]}}}}})"), "");
  EXPECT_NE(error(R"({"train": {"schedule": "cosine"}})").find("key 'schedule'"), std::string::npos);
}

TEST(ClassificationConfig, CheckedInConfigsParse) {
  for (const char* f : {"configs/classification/quick.json", "configs/classification/full.json"}) {
    std::ifstream in(f);
    ASSERT_TRUE(in) << f;
    const auto c = ClassificationConfig::fromJson(nlohmann::json::parse(in));
    EXPECT_EQ(c.datasets.size(), 7u) << f;
  }
  std::ifstream in("configs/classification/full.json");
  const auto full = ClassificationConfig::fromJson(nlohmann::json::parse(in));
  EXPECT_EQ(full.trials, 20);
  EXPECT_EQ(full.seeds, 5);
  EXPECT_EQ(full.folds, 10);
  // 5 models x 7 datasets x 20 trials, then 5 seeds on 10 folds (4 CV sets) or 1 split (3).
  EXPECT_EQ(ClassificationTask(full, "data").units().size(), 5u * 7 * 20 + 5u * 5 * (4 * 10 + 3));
}

}  // namespace
}  // namespace recurlab::experiments
