// The harness with a second task and no classification code (the toy of toy_task.cpp):
// search, seeds, shards, resume, a changed shard layout, every trial diverging, and the
// report.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "experiments/harness/run_folder.h"
#include "experiments/harness/runner.h"
#include "tests/experiments/harness/run_log_summary.h"
#include "tests/experiments/harness/toy_task.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

const nlohmann::json kToy = nlohmann::json::parse(R"({
  "seed": 4, "trials": 3, "seeds": 2,
  "train": {"examples": 32, "batch_size": 8, "max_epochs": 3, "schedule": "constant",
            "lr": {"loguniform": [0.003, 0.05]}}
})");

RunnerReport runToy(const nlohmann::json& config, const fs::path& folder, Shard shard = {},
                    const MachineInfo& machine = {}) {
  auto task = makeToyTask(config);
  RunFolderOptions o("toy");
  o.out_dir = folder.string();
  RunFolder run(o, shard, "toy", config, 4, machine,
                [&](const Hdf5RunLog& log) { return unfinishedUnitGroups(*task, shard, log); });
  std::ostringstream quiet;
  RunnerOptions options;
  options.seed = 4;
  options.progress = &quiet;
  const auto report = runTask(*task, run, options);
  run.finish();
  return report;
}

struct ToyFolders {
  fs::path root = recurlab::testing::perProcessTempPath("recurlab_toy_");
  ToyFolders() { fs::remove_all(root); }
  ~ToyFolders() { fs::remove_all(root); }
};

TEST(ToyTask, SearchSeedsShardsAndResumeGiveTheUnitsOfOneRun) {
  ToyFolders f;
  const auto whole = runToy(kToy, f.root / "whole");
  EXPECT_EQ(whole.ran, 5);
  const auto expected = recurlab::testing::finishedUnits((f.root / "whole").string());
  ASSERT_EQ(expected.size(), 5u);
  // The finals train the trial with the lowest dev MSE: its config, other seeds.
  EXPECT_NE(expected.at("/toy/seeds/0"), expected.at("/toy/seeds/1"));

  // Three shards, run until no final unit waits for another shard's trials.
  int64_t waiting = 1;
  for (int round = 0; waiting > 0 && round < 3; ++round) {
    waiting = 0;
    for (int i = 0; i < 3; ++i) waiting += runToy(kToy, f.root / "sharded", {i, 3}).waiting;
  }
  EXPECT_EQ(recurlab::testing::finishedUnits((f.root / "sharded").string()), expected);
  // Every shard's log lists every planned unit, its own and the others' (reports of a run still
  // going count what is not done from it).
  int shard_logs = 0;
  for (const auto& entry : fs::directory_iterator(f.root / "sharded")) {
    if (entry.path().extension() != ".h5") continue;
    ++shard_logs;
    const Hdf5RunLog log(entry.path().string(), Hdf5RunLog::Mode::ReadOnly);
    const auto planned = nlohmann::json::parse(log.stringAttribute("/", "units_planned"));
    EXPECT_EQ(planned.size(), 5u) << entry.path();
    for (const auto& [group, config] : expected)
      EXPECT_NE(std::find(planned.begin(), planned.end(), group), planned.end()) << group;
  }
  EXPECT_EQ(shard_logs, 3);

  // Resumed: nothing left to do. A new shard layout in the same folder runs no unit again.
  EXPECT_EQ(runToy(kToy, f.root / "whole").ran, 0);
  const auto relaid = runToy(kToy, f.root / "whole", {1, 2});
  EXPECT_EQ(relaid.ran, 0);
  EXPECT_EQ(relaid.already_finished, 2);
  EXPECT_EQ(runToy(kToy, f.root / "sharded").ran, 0);
  EXPECT_EQ(recurlab::testing::finishedUnits((f.root / "whole").string()), expected);

  // The report: recurlab_analyze reads the folder (its generic report for this kind).
  RunFolderOptions o("toy");
  o.out_dir = (f.root / "whole").string();
  RunFolder done(o, {}, "toy", kToy, 4, MachineInfo{});
  done.finish();
  // recurlab_analyze is built with the tests (-1 would mean it was not found).
  EXPECT_EQ(done.runAnalysis(), 0);
  EXPECT_TRUE(fs::exists(f.root / "whole" / "report.md"));
}

// Each unit records the machine it ran on: a run resumed on another kind of machine holds units
// of both, told apart by their blas_core (the CPU repeats a seed bit for bit only on the same
// OpenBLAS kernels).
TEST(ToyTask, EachUnitRecordsTheMachineItRanOn) {
  ToyFolders f;
  MachineInfo first, second;
  first.device = second.device = "cpu";
  first.blas_core = "Cooperlake";
  second.blas_core = "Zen";
  const fs::path run = f.root / "run";
  EXPECT_EQ(runToy(kToy, run, {}, first).ran, 5);
  {
    Hdf5RunLog log((run / "log.h5").string(), Hdf5RunLog::Mode::Append);
    log.remove("/toy/seeds/1");  // as if it had not finished when the run moved
  }
  EXPECT_EQ(runToy(kToy, run, {}, second).ran, 1);
  const Hdf5RunLog log((run / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
  EXPECT_EQ(log.stringAttribute("/toy/seeds/0", "blas_core"), "Cooperlake");
  EXPECT_EQ(log.stringAttribute("/toy/seeds/1", "blas_core"), "Zen");
  EXPECT_EQ(log.stringAttribute("/toy/seeds/1", "device"), "cpu");
  EXPECT_EQ(log.stringAttribute("/", "blas_core"), "Zen");  // the run's last machine
}

TEST(ToyTask, EveryTrialDivergedIsRecordedAndTheRunGoesOn) {
  ToyFolders f;
  auto config = kToy;
  config["train"]["lr"] = 50.0;
  config["train"]["optimizer"] = "sgd";
  const auto report = runToy(config, f.root / "run");
  EXPECT_EQ(report.diverged, 3);
  EXPECT_EQ(report.skipped, 2);
  const auto units = recurlab::testing::finishedUnits((f.root / "run").string());
  EXPECT_NE(units.at("/toy/trials/0").find("diverged"), std::string::npos);
  EXPECT_NE(units.at("/harness_skipped/toy_seeds_1").find("every search trial"), std::string::npos);
  const auto again = runToy(config, f.root / "run");
  EXPECT_EQ(again.ran + again.skipped, 0);
  EXPECT_EQ(again.already_finished, 5);
}

TEST(RunFolder, RefusesAnotherConfigNamingTheKeysResumesARewordedOneAndForceNewStartsAfresh) {
  ToyFolders f;
  RunFolderOptions o("toy");
  o.results_root = f.root.string();
  o.run_id = "r1";
  { RunFolder(o, {}, "toy", kToy, 4, MachineInfo{}).finish(); }
  auto other = kToy;
  other["train"]["max_epochs"] = 5;
  try {
    RunFolder(o, {}, "toy", other, 4, MachineInfo{});
    ADD_FAILURE() << "a different config was resumed";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("train.max_epochs: 3 -> 5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--force-new"), std::string::npos);
  }
  EXPECT_THROW(RunFolder(o, {}, "toy", kToy, 5, MachineInfo{}), std::runtime_error);  // seed
  auto reworded = kToy;
  reworded["description"] = "the same run, its prose corrected";
  {
    RunFolder same(o, {}, "toy", reworded, 4, MachineInfo{});
    EXPECT_TRUE(same.resumed());
    EXPECT_EQ(same.path(), (f.root / "toy" / "r1").string());
  }
  o.force_new = true;
  RunFolder fresh(o, {}, "toy", other, 4, MachineInfo{});
  EXPECT_EQ(fresh.path(), (f.root / "toy" / "r1-2").string());
  EXPECT_FALSE(fresh.resumed());
}

TEST(RunFolder, WritesRootAttributesResumesAndSummarises) {
  ToyFolders f;
  MachineInfo m;
  m.blas_core = "SkylakeX";
  m.heap_policy = "retained";
  m.threads = 2;
  RunFolderOptions o("unit");
  o.results_root = f.root.string();
  o.run_id = "r1";
  {
    RunFolder run(o, {}, "exp_x --set 'a=b c'", nlohmann::json{{"k", 1}}, 7, m);
    EXPECT_EQ(run.path(), (f.root / "unit" / "r1").string());
    EXPECT_FALSE(run.resumed());
    run.writeSummary({{"acc", 0.5}});
    run.finish();
  }
  {
    RunFolder again(o, {}, "exp_x", nlohmann::json{{"k", 1}}, 7, m);
    EXPECT_TRUE(again.resumed());
  }
  const Hdf5RunLog log((f.root / "unit" / "r1" / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
  EXPECT_EQ(log.stringAttribute("/", "experiment"), "unit");
  EXPECT_EQ(log.stringAttribute("/", "command_line"), "exp_x");
  EXPECT_EQ(nlohmann::json::parse(log.stringAttribute("/", "config")).at("k"), 1);
  EXPECT_EQ(log.intAttribute("/", "seed"), 7);
  EXPECT_EQ(log.stringAttribute("/", "blas_core"), "SkylakeX");
  EXPECT_EQ(log.stringAttribute("/", "heap_policy"), "retained");
  EXPECT_EQ(log.intAttribute("/", "resumed"), 1);
  EXPECT_FALSE(log.stringAttribute("/", "git_commit").empty());
  // An automatic run id never reuses a folder.
  RunFolderOptions fresh("unit");
  fresh.results_root = f.root.string();
  RunFolder a(fresh, {}, "x", {}, 1, m);
  RunFolder b(fresh, {}, "x", {}, 1, m);
  EXPECT_NE(a.path(), b.path());
  EXPECT_EQ(configDifferences({{"a", {{"b", 1}}}}, {{"a", {{"b", 2}}}, {"c", true}}),
            (std::vector<std::string>{"a.b: 1 -> 2", "c: (absent) -> true"}));
}

}  // namespace
}  // namespace recurlab::experiments
