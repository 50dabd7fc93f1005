// The run log under a real SIGKILL, read from another process: a writer process appends rows
// (each append is written to the file) and is killed; a second process, opening the file
// fresh (no HDF5 cache shared with the writer), sees every row the writer had written, and a
// resumed run appends to the same file. A writer churning groups, tables and removals is
// killed at each of its changes and mid-write and always leaves a whole log. Then the same through the harness:
// a toy run killed right after an epoch row, read by another process, resumed from its last
// checkpoint to the result of an uninterrupted run.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/log/hdf5_run_log.h"
#include "experiments/harness/run_folder.h"
#include "tests/experiments/harness/run_log_summary.h"
#include "tests/support/child_process.h"
#include "tests/support/file_text.h"
#include "tests/support/resume_trace.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;
using recurlab::testing::runChild;
using recurlab::testing::siblingBinary;

using recurlab::testing::TempRoot;

using recurlab::testing::fileText;

// Lines of `progress` that end in a newline: the rows the writer had appended and flushed.
int64_t completeLines(const fs::path& progress) {
  const std::string text = fileText(progress);
  return static_cast<int64_t>(std::count(text.begin(), text.end(), '\n'));
}

// "rows N" from recurlab_log_probe run as a separate process; -1 when it failed.
int64_t rowsSeenByAnotherProcess(const std::string& log, const std::string& table,
                                 const fs::path& scratch) {
  const fs::path out = scratch / "reader.txt";
  fs::remove(out);
  const auto r = runChild(siblingBinary("recurlab_log_probe"), {"rows", log, table}, "", -1,
                          out.string());
  const std::string text = fileText(out);
  EXPECT_EQ(r.exit_code, 0) << text;
  const auto at = text.find("rows ");
  return r.exit_code == 0 && at != std::string::npos ? std::stoll(text.substr(at + 5)) : -1;
}

TEST(KilledLogWriter, AnotherProcessSeesEveryFlushedRowAndTheLogResumes) {
  const std::string probe = siblingBinary("recurlab_log_probe");
  ASSERT_TRUE(fs::exists(probe)) << probe << " is not built";
  TempRoot tmp("recurlab_killed_writer");
  const std::string log = (tmp.root / "log.h5").string();
  const fs::path progress = tmp.root / "progress.txt";
  const std::string output = (tmp.root / "writer.txt").string();
  for (int64_t kill_after : {5, 40}) {  // early (one chunk) and later (several)
    SCOPED_TRACE("killed after row " + std::to_string(kill_after));
    fs::remove(log);
    fs::remove(progress);
    // Killed by its own kill point right after the kill_after-th append was written, before
    // that row's progress line (awaited with runChild's timeout).
    const auto r = runChild(probe, {"write", log, progress.string()},
                            "log-probe-row-appended:" + std::to_string(kill_after), -1, output);
    ASSERT_TRUE(r.killed) << "the writer ended by itself (exit " << r.exit_code << "); see " << output;
    ASSERT_EQ(completeLines(progress), kill_after - 1) << "see " << output;
    // The probe also checks each row's values: every appended row is in the file, the one
    // appended after the last progress line included.
    const int64_t seen = rowsSeenByAnotherProcess(log, "/rows", tmp.root);
    ASSERT_EQ(seen, kill_after);
    // Resume: open the killed writer's file for appending, as a resumed run does.
    {
      Hdf5RunLog resumed(log, Hdf5RunLog::Mode::Append);
      resumed.createTable("/rows", {"i", "square"});  // exists: a no-op
      resumed.appendRow("/rows", {double(seen), double(seen) * seen});
    }
    EXPECT_EQ(rowsSeenByAnotherProcess(log, "/rows", tmp.root), seen + 1);
  }
}

// A kill inside a write (HDF5 writes a change as several blocks) must leave the log as it was
// before that write or after it: each write replaces the file whole (rename), never in place.
// The writer churns as a run does (groups, tables, attributes, removals, each a write) and is
// killed 60 times, reopening the log each time; another process must read all of it every
// time, and the count of finished units must never go back. Half the kills are the writer's
// own kill point before its n-th change (n = 1..16: every place in a unit of about 8 changes,
// over two units); the other half are a SIGKILL from here as soon as the writer announces a
// unit finished in that run, which lands in the next unit's writes: between two or inside one.
TEST(KilledLogWriter, KilledAtEveryChangeAndMidWriteTheLogIsAlwaysWholeAndNeverLosesAFinishedUnit) {
  const std::string probe = siblingBinary("recurlab_log_probe");
  ASSERT_TRUE(fs::exists(probe)) << probe << " is not built";
  TempRoot tmp("recurlab_churned_log");
  const std::string log = (tmp.root / "log.h5").string();
  const fs::path progress = tmp.root / "progress.txt";
  const std::string output = (tmp.root / "writer.txt").string();
  const fs::path checked = tmp.root / "check.txt";
  int64_t units = 0;
  for (int k = 0; k < 60; ++k) {
    bool finished = false;
    recurlab::testing::ChildResult r;
    if (k % 2 == 0) {
      const std::string kill_at = "log-probe-change:" + std::to_string(1 + (k / 2) % 16);
      SCOPED_TRACE("kill " + std::to_string(k + 1) + " at " + kill_at);
      const int pid = recurlab::testing::startChild(probe, {"churn", log, progress.string()},
                                                    {{"RECURLAB_KILL_AT", kill_at}}, output);
      ASSERT_GT(pid, 0);
      r = recurlab::testing::waitChild(pid, 60000, finished);
      if (!finished) {
        ::kill(-pid, SIGKILL);
        recurlab::testing::waitChild(pid, 10000, finished);
        FAIL() << "the writer did not reach its kill point in 60 s; see " << output;
      }
      ASSERT_TRUE(r.killed) << "not killed at its kill point (exit " << r.exit_code << "); see " << output;
    } else {
      const int64_t announced = completeLines(progress);
      const int pid = recurlab::testing::startChild(probe, {"churn", log, progress.string()}, {}, output);
      ASSERT_GT(pid, 0);
      // The condition: a unit finished in this run (a line more in PROGRESS), or 60 s passed.
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (completeLines(progress) == announced && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      ::kill(-pid, SIGKILL);
      r = recurlab::testing::waitChild(pid, 10000, finished);
      ASSERT_TRUE(finished);
      ASSERT_GT(completeLines(progress), announced) << "kill " << k + 1 << ": no unit in 60 s; see " << output;
      ASSERT_TRUE(r.killed) << "the writer ended by itself (exit " << r.exit_code << "); see " << output;
    }
    if (!fs::exists(log)) {
      // Killed before its first change to a log not made yet: the log before any write is no
      // file at all, which is whole only if no kill before had let a unit finish.
      ASSERT_EQ(units, 0) << "after kill " << k + 1 << ": the log with " << units << " units is gone";
      ASSERT_EQ(completeLines(progress), 0) << "after kill " << k + 1;
      continue;
    }
    fs::remove(checked);
    const auto c = runChild(probe, {"check", log}, "", -1, checked.string());
    const std::string text = fileText(checked);
    ASSERT_EQ(c.exit_code, 0) << "after kill " << k + 1 << ": " << text;
    const auto at = text.find("units ");
    ASSERT_NE(at, std::string::npos) << text;
    const int64_t now = std::stoll(text.substr(at + 6));
    EXPECT_GE(now, units) << "after kill " << k + 1;
    units = now;
  }
  // The kills came mid-way: the writer had written units, and the log kept them.
  EXPECT_GE(units, completeLines(progress));
  EXPECT_GT(units, 0);
}

TEST(KilledLogWriter, HarnessRunKilledAfterAnEpochRowIsReadElsewhereAndResumes) {
  const std::string program = siblingBinary("recurlab_toy_task");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  TempRoot tmp("recurlab_killed_harness");
  auto args = [&](const std::string& out) {
    return std::vector<std::string>{
        "--out", out, "--threads", "1", "--set", "seeds=1", "--set",
        R"(train={"examples": 64, "batch_size": 8, "max_epochs": 4, "lr": 0.01,
                  "checkpoint_every_steps": 4, "optimizer": "adam"})"};
  };
  const std::string output = (tmp.root / "children.txt").string();
  const std::string whole = (tmp.root / "whole").string(), killed = (tmp.root / "killed").string();
  recurlab::testing::ResumeTrace whole_trace(output), trace(output);
  ASSERT_EQ(whole_trace.run(program, args(whole)).exit_code, 0) << whole_trace.describe(0);
  const auto r = trace.run(program, args(killed), "epoch-row-written:2");
  ASSERT_TRUE(r.killed) << trace.describe(0);
  const auto logs = runLogFiles(killed);
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_EQ(rowsSeenByAnotherProcess(logs[0], "/toy/seeds/0/epochs", tmp.root), 2);
  const auto last = trace.run(program, args(killed));
  ASSERT_FALSE(last.killed);
  ASSERT_EQ(last.exit_code, 0) << trace.describe(1);
  EXPECT_EQ(rowsSeenByAnotherProcess(logs[0], "/toy/seeds/0/epochs", tmp.root), 4);
  const auto expected = recurlab::testing::finishedUnits(whole);
  ASSERT_EQ(expected.size(), 1u);
  EXPECT_EQ(recurlab::testing::finishedUnits(killed), expected);
  // 8 steps an epoch, a checkpoint after step 4 of each and at its end: killed after epoch 2's
  // row, before its end's checkpoint, the run resumed from the step-12 checkpoint (epoch 2),
  // as its output and the log say.
  EXPECT_EQ(recurlab::testing::resumedUnits(whole).at("/toy/seeds/0"), 0);
  recurlab::testing::expectResumesAfterKills(
      trace, 0, {{"epoch-row-written:2", "epoch 2 batch 4 step 12"}});
  EXPECT_EQ(recurlab::testing::resumePositions(killed).at("/toy/seeds/0"), "epoch 2 step 12");
}

}  // namespace
}  // namespace recurlab::experiments
