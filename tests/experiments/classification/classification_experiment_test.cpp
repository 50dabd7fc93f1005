// Resume after a crash and sharding: the units of an interrupted-then-resumed run, and of a
// run split in shards, equal those of an uninterrupted run (CPU training is deterministic
// for a given seed).
#include "experiments/classification/classification_experiment.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "experiments/harness/run_log_folder.h"
#include "experiments/runtime/thread_count.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

struct TinyBenchmark {
  fs::path root;
  TinyBenchmark() {
    root = fs::temp_directory_path() / ("recurlab_cls_" + std::to_string(::getpid()));
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

// status, test accuracy and the whole epochs table of every unit.
std::map<std::string, std::string> unitsOf(const std::vector<std::string>& files,
                                           const ClassificationConfig& c) {
  std::map<std::string, std::string> units;
  for (const auto& f : files) {
    Hdf5RunLog log(f, Hdf5RunLog::Mode::ReadOnly);
    for (const auto& u : classificationUnits(c)) {
      if (!log.exists(u.group()) || !log.attribute(u.group(), "status")) continue;
      EXPECT_EQ(units.count(u.group()), 0u) << u.group() << " logged twice";
      std::ostringstream s;
      s << log.stringAttribute(u.group(), "status") << " "
        << log.doubleAttribute(u.group(), "test_acc") << " "
        << log.stringAttribute(u.group(), "config");
      const auto t = log.readTable(u.group() + "/epochs");
      for (const auto& row : t.rows)
        for (size_t j = 0; j < row.size(); ++j)
          if (t.columns[j] != "seconds" && t.columns[j] != "examples_per_second") s << " " << row[j];
      units[u.group()] = s.str();
    }
  }
  return units;
}

std::string logIn(const fs::path& dir, const Shard& s = {}) {
  fs::create_directories(dir);
  return (dir / runLogName(s)).string();
}

TEST(ClassificationExperiment, ResumesAfterACrashWithoutLosingOrDuplicatingUnits) {
  applyThreadCount(1);  // tiny models: threads only add overhead on a busy CI machine
  TinyBenchmark bench;
  const auto config = tinyConfig();
  std::ostringstream quiet;
  ClassificationRunHooks hooks;
  hooks.progress = &quiet;

  const auto ref_dir = bench.root / "reference";
  {
    ClassificationExperiment e(config, bench.data());
    Hdf5RunLog log(logIn(ref_dir), Hdf5RunLog::Mode::Create);
    const auto r = e.run(log, ref_dir.string(), hooks);
    EXPECT_EQ(r.ran, 2 * 2 + 2 * 2 * 2);  // 2 models x 2 trials, then 2 models x 2 folds x 2 seeds
  }
  const auto reference = unitsOf({logIn(ref_dir)}, config);
  ASSERT_EQ(reference.size(), 12u);

  const auto dir = bench.root / "crashed";
  {
    ClassificationExperiment e(config, bench.data());
    Hdf5RunLog log(logIn(dir), Hdf5RunLog::Mode::Create);
    auto crash = hooks;
    int finished_units = 0;
    crash.after_unit = [&](const ClassificationUnit&) { ++finished_units; };
    // Dies in the middle of the 6th unit (a final unit, after its first epoch was logged).
    crash.after_epoch = [&](const ClassificationUnit&, int64_t epoch) {
      if (finished_units == 5 && epoch == 1) throw std::runtime_error("simulated crash");
    };
    EXPECT_THROW(e.run(log, dir.string(), crash), std::runtime_error);
  }
  ClassificationExperiment resumed(config, bench.data());
  std::vector<std::string> partial;
  {
    Hdf5RunLog log(logIn(dir), Hdf5RunLog::Mode::ReadOnly);
    partial = resumed.unfinishedGroups(log);
  }
  ASSERT_EQ(partial.size(), 1u);
  removeLogGroups(logIn(dir), partial);
  {
    Hdf5RunLog log(logIn(dir), Hdf5RunLog::Mode::Append);
    EXPECT_FALSE(log.exists(partial[0]));
    const auto r = resumed.run(log, dir.string(), hooks);
    EXPECT_EQ(r.already_finished, 5);
    EXPECT_EQ(r.ran, 7);
  }
  EXPECT_EQ(unitsOf({logIn(dir)}, config), reference);
}

TEST(ClassificationExperiment, ShardsTogetherEqualOneRun) {
  applyThreadCount(1);
  TinyBenchmark bench;
  const auto config = tinyConfig();
  std::ostringstream quiet;
  ClassificationRunHooks hooks;
  hooks.progress = &quiet;
  const auto ref_dir = bench.root / "reference";
  {
    ClassificationExperiment e(config, bench.data());
    Hdf5RunLog log(logIn(ref_dir), Hdf5RunLog::Mode::Create);
    e.run(log, ref_dir.string(), hooks);
  }
  const auto dir = bench.root / "sharded";
  const Shard s0{0, 2}, s1{1, 2};
  int64_t waited = 0;
  for (const Shard& s : {s0, s1, s0}) {  // shard 0 first waits for shard 1's trials
    ClassificationExperiment e(config, bench.data(), s);
    Hdf5RunLog log(logIn(dir, s), Hdf5RunLog::Mode::Append);
    waited += e.run(log, dir.string(), hooks).waiting;
  }
  EXPECT_GT(waited, 0);
  const auto files = runLogFiles(dir.string());
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(unitsOf(files, config), unitsOf({logIn(ref_dir)}, config));
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
  EXPECT_EQ(classificationUnits(full).size(), 5u * 7 * 20 + 5u * 5 * (4 * 10 + 3));
}

}  // namespace
}  // namespace recurlab::experiments
