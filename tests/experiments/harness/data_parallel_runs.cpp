#include "tests/experiments/harness/data_parallel_runs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "common/log/hdf5_run_log.h"
#include "tests/experiments/harness/run_log_summary.h"

namespace recurlab::testing {

UntimedEpochs untimedEpochs(const std::string& folder, const std::string& group) {
  experiments::Hdf5RunLog log((std::filesystem::path(folder) / "log.h5").string(),
                              experiments::Hdf5RunLog::Mode::ReadOnly);
  const auto table = log.readTable(group + "/epochs");
  UntimedEpochs kept;
  std::vector<size_t> columns;
  for (size_t j = 0; j < table.columns.size(); ++j)
    if (table.columns[j].find("second") == std::string::npos) {
      columns.push_back(j);
      kept.columns.push_back(table.columns[j]);
    }
  for (const auto& row : table.rows) {
    kept.rows.emplace_back();
    for (size_t j : columns) kept.rows.back().push_back(row[j]);
  }
  return kept;
}

void expectEpochsNear(const UntimedEpochs& one_process, const UntimedEpochs& two_ranks,
                      double tolerance) {
  ASSERT_EQ(one_process.columns, two_ranks.columns);
  ASSERT_EQ(one_process.rows.size(), two_ranks.rows.size());
  ASSERT_FALSE(one_process.rows.empty());
  for (size_t i = 0; i < one_process.rows.size(); ++i)
    for (size_t j = 0; j < one_process.columns.size(); ++j) {
      const double a = one_process.rows[i][j], b = two_ranks.rows[i][j];
      EXPECT_LE(std::abs(a - b), tolerance * (1 + std::abs(a)))
          << one_process.columns[j] << " of epoch " << i + 1 << ": one process " << a
          << ", two ranks " << b;
    }
}

void expectKilledRankEndsTheOther(const std::string& program, std::vector<std::string> args,
                                  const std::string& kill_at, const std::string& output_file,
                                  int limit_ms) {
  ResumeTrace trace(output_file);
  expectKilledRankEndsTheOther(trace, program, std::move(args), kill_at, limit_ms);
}

void expectKilledRankEndsTheOther(ResumeTrace& trace, const std::string& program,
                                  std::vector<std::string> args, const std::string& kill_at,
                                  int limit_ms) {
  for (const char* a : {"--nproc-per-node", "2"}) args.push_back(a);
  setenv("RECURLAB_KILL_RANK", "1", 1);  // inherited by the launcher and its ranks
  const auto r = trace.run(program, args, kill_at, limit_ms);
  unsetenv("RECURLAB_KILL_RANK");
  const std::string said = trace.outputOf(trace.runs() - 1);
  ASSERT_FALSE(r.killed) << "still running " << limit_ms / 1000 << " s after rank 1 was killed "
                         << "at " << kill_at << ": " << said;
  EXPECT_EQ(r.exit_code, 2) << said;
  EXPECT_NE(said.find("--nproc-per-node: rank 1 was killed by signal 9"), std::string::npos)
      << said;
  EXPECT_NE(said.find("--nproc-per-node: rank 0 exited with status 2"), std::string::npos)
      << said;
  EXPECT_NE(said.find("failed on rank 0 of 2 (another rank died"), std::string::npos) << said;
  EXPECT_EQ(said.find("frame #"), std::string::npos) << "a backtrace instead of a message: "
                                                     << said;
}

TaskRuns::TaskRuns(std::string program, const std::string& temp_name)
    : temp_(temp_name), program_(std::move(program)) {}

std::string TaskRuns::folder(const std::string& out) const { return (root() / out).string(); }

std::string TaskRuns::output(const std::string& out) const {
  return (root() / (out + ".txt")).string();
}

std::vector<std::string> TaskRuns::args(const std::string& out, int ranks) const {
  std::vector<std::string> a{"--config", (root() / "config.json").string()};
  a.insert(a.end(), data_args.begin(), data_args.end());
  for (const std::string& x : {std::string("--out"), folder(out), std::string("--threads"),
                               std::string("1")})
    a.push_back(x);
  if (ranks > 1)
    for (const std::string& x : {std::string("--nproc-per-node"), std::to_string(ranks)})
      a.push_back(x);
  return a;
}

void TaskRuns::runOnce(const std::string& out, int ranks) const {
  if (std::filesystem::exists(std::filesystem::path(folder(out)) / "summary.json")) return;
  const auto r = runChild(program_, args(out, ranks), "", -1, output(out));
  ASSERT_EQ(r.exit_code, 0) << fileText(output(out));
}

bool TaskRuns::killRankOneThenResume(const std::string& kill_at, const std::string& group) const {
  ResumeTrace trace(output("killed"));
  expectKilledRankEndsTheOther(trace, program_, args("killed", 1), kill_at);
  bool finished = false;
  [&] {
    const auto r = trace.run(program_, args("killed", 2), "", 300000);
    ASSERT_FALSE(r.killed) << "the resumed run hung: " << trace.describe(1);
    ASSERT_EQ(r.exit_code, 0) << trace.describe(1);
    finished = true;
  }();
  if (!finished) return false;
  EXPECT_EQ(finishedUnits(folder("killed")), finishedUnits(folder("two")));
  EXPECT_EQ(resumedUnits(folder("killed")).at(group), 1);
  // Both ranks went on from their own last checkpoint before the kill.
  const auto last = trace.lastCheckpointsUpTo(0);
  for (const std::string rank : {" rank 0", " rank 1"}) {
    const auto it = last.find(group + rank);
    if (it == last.end()) {
      ADD_FAILURE() << "no checkpoint of" << rank << " before the kill: " << trace.describe(0);
      continue;
    }
    EXPECT_EQ(trace.resumesOf(1)[group + rank], it->second) << trace.describe(1);
  }
  EXPECT_TRUE(trace.everyResumeFromTheLastCheckpoint());
  return true;
}

}  // namespace recurlab::testing
