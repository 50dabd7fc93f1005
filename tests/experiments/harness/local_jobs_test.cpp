// --jobs N (experiments/harness/local_jobs.h): the workers' command lines, and N worker
// processes giving the units and numbers of one process, search trials and final units
// included (final units wait for trials of other shards: a second pass).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "experiments/harness/local_jobs.h"
#include "experiments/harness/run_folder.h"
#include "tests/experiments/harness/run_log_summary.h"
#include "tests/support/child_process.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;
using recurlab::testing::runChild;

TEST(LocalJobs, WorkersGetTheirShardThreadsAndTheParentsFolder) {
  const std::vector<std::string> original{
      "--config", "c.json", "--jobs", "4", "--threads=2", "--set", "a=1", "--run-id", "x",
      "--force-new", "--results-root=r", "--shard", "0/1", "--out", "old", "--seed", "3"};
  const auto args = localJobArguments(original, "/runs/x-2", 1, 4, 1);
  const std::vector<std::string> expected{
      "--config", "c.json", "--set", "a=1", "--seed", "3", "--out", "/runs/x-2",
      "--shard", "1/4", "--threads", "1", "--jobs", "1"};
  EXPECT_EQ(args, expected);
}

TEST(LocalJobs, FolderIsResolvedOnceForEveryWorker) {
  RunFolderOptions o("toy");
  o.results_root = "r";
  o.run_id = "abc";
  EXPECT_EQ(runFolderPath(o), "r/toy/abc");
  o.out_dir = "/tmp/somewhere";
  EXPECT_EQ(runFolderPath(o), "/tmp/somewhere");
  RunFolderOptions fresh("toy");
  fresh.results_root = "r";
  EXPECT_EQ(runFolderPath(fresh).rfind("r/toy/", 0), 0u) << runFolderPath(fresh);
}

TEST(LocalJobs, ThreeJobsGiveTheUnitsAndNumbersOfOneProcess) {
  const std::string program = recurlab::testing::siblingBinary("recurlab_toy_task");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  const fs::path tmp = recurlab::testing::perProcessTempPath("recurlab_jobs_");
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  auto args = [&](const std::string& out, const std::string& jobs) {
    return std::vector<std::string>{
        "--out", out, "--threads", "1", "--jobs", jobs, "--set", "seed=4", "--set", "trials=3",
        "--set", "seeds=2", "--set",
        R"(train={"examples": 32, "batch_size": 8, "max_epochs": 3, "schedule": "constant",
                  "lr": {"loguniform": [0.003, 0.05]}})"};
  };
  const std::string output = (tmp / "children.txt").string();
  const std::string one = (tmp / "one").string(), three = (tmp / "three").string();
  ASSERT_EQ(runChild(program, args(one, "1"), "", -1, output).exit_code, 0) << "see " << output;
  ASSERT_EQ(runChild(program, args(three, "3"), "", -1, output).exit_code, 0) << "see " << output;
  const auto expected = recurlab::testing::finishedUnits(one);
  EXPECT_EQ(expected.size(), 5u);  // 3 trials + 2 final units
  EXPECT_EQ(recurlab::testing::finishedUnits(three), expected);
  // Three shard logs in the one folder (whether the final units needed a second pass depends
  // on timing), and the report over all of them.
  EXPECT_EQ(runLogFiles(three).size(), 3u);
  fs::remove_all(tmp);
}

// The run-wide preparation (subword models, evaluation files) runs once, in the process that
// starts the workers, before they start: no two workers write the same file.
TEST(LocalJobs, TheRunIsPreparedOnceBeforeTheWorkersStart) {
  const std::string program = recurlab::testing::siblingBinary("recurlab_toy_task");
  ASSERT_TRUE(fs::exists(program)) << program << " is built with the tests";
  const fs::path tmp = recurlab::testing::perProcessTempPath("recurlab_prepare_");
  fs::remove_all(tmp);
  const std::string out = (tmp / "run").string(), output = (tmp / "children.txt").string();
  fs::create_directories(tmp);
  const std::vector<std::string> args{
      "--out", out, "--threads", "1", "--jobs", "2", "--set", "seeds=2", "--set",
      R"(train={"examples": 16, "batch_size": 8, "max_epochs": 1, "schedule": "constant"})"};
  ASSERT_EQ(runChild(program, args, "", -1, output).exit_code, 0) << "see " << output;
  const auto logs = runLogFiles(out);
  ASSERT_EQ(logs.size(), 2u);
  std::set<std::string> preparers, workers;
  for (const auto& f : logs) {
    Hdf5RunLog log(f, Hdf5RunLog::Mode::ReadOnly);
    preparers.insert(log.stringAttribute("/", "prepared_by"));
    workers.insert(log.stringAttribute("/", "worker_pid"));
  }
  ASSERT_EQ(preparers.size(), 1u) << "the workers found files of different writers";
  EXPECT_EQ(workers.size(), 2u);
  EXPECT_EQ(workers.count(*preparers.begin()), 0u) << "a worker prepared the run, not the parent";
  fs::remove_all(tmp);
}

}  // namespace
}  // namespace recurlab::experiments
