#pragma once
// What the data-parallel tests of every task (MT, LM, QA) check on a task's binary: the epochs
// of two ranks against one process with the same global batch (to float tolerance), and a
// rank killed mid-training that ends the other with an error, never a hang; and the fixture
// their suites share.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/child_process.h"
#include "tests/support/file_text.h"
#include "tests/support/required.h"
#include "tests/support/resume_trace.h"
#include "tests/support/temp_root.h"

namespace recurlab::testing {

// The epochs table of `group` in the run folder's log (rank 0's), without its timing columns
// (names holding "second").
struct UntimedEpochs {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;
};
UntimedEpochs untimedEpochs(const std::string& folder, const std::string& group);

// Expects the same columns and epochs, every value within `tolerance` (absolute, plus
// relative to the value's size). A failure names the column and the epoch.
void expectEpochsNear(const UntimedEpochs& one_process, const UntimedEpochs& two_ranks,
                      double tolerance);

// Runs `program args --nproc-per-node 2` with rank 1 alone killed by SIGKILL at kill point
// `kill_at` (RECURLAB_KILL_RANK), and expects: the launcher exits with 2 within `limit_ms`
// (never a hang), its report names rank 1 killed by signal 9 and rank 0 ended by an error,
// and rank 0's message names the failed collective, without a C++ backtrace. Output (all
// processes) goes to `output_file`.
void expectKilledRankEndsTheOther(const std::string& program, std::vector<std::string> args,
                                  const std::string& kill_at, const std::string& output_file,
                                  int limit_ms = 120000);
// The same as a run of `trace` (its output file), which then holds the killed run.
void expectKilledRankEndsTheOther(ResumeTrace& trace, const std::string& program,
                                  std::vector<std::string> args, const std::string& kill_at,
                                  int limit_ms = 120000);

// The runs of one task's binary in a temporary folder: run folder <root>/<out>, its output
// (all processes) in <root>/<out>.txt, started with --config <root>/config.json, the task's
// data arguments, --out and one thread per process.
class TaskRuns {
 public:
  TaskRuns(std::string program, const std::string& temp_name);
  const std::filesystem::path& root() const { return temp_.root; }
  const std::string& program() const { return program_; }
  std::string folder(const std::string& out) const;
  std::string output(const std::string& out) const;
  std::vector<std::string> args(const std::string& out, int ranks) const;
  // The uninterrupted run into `out` on `ranks` processes, unless it already finished.
  void runOnce(const std::string& out, int ranks) const;
  // Kills rank 1 of a two-rank run into "killed" at `kill_at` (expectKilledRankEndsTheOther),
  // runs it again on two ranks and expects the units of the uninterrupted run "two", and every
  // rank of unit `group` resumed from the last checkpoint it put in place before the kill
  // (resume_trace.h). False when the run started again hung or failed (reported as a failure).
  bool killRankOneThenResume(const std::string& kill_at, const std::string& group) const;

  // Between --config and --out: e.g. --data-dir.
  std::vector<std::string> data_args;

 private:
  TempRoot temp_;
  std::string program_;
};

// The fixture of a task's data-parallel suite: `Suite` derives from it and names its binary
// (static constexpr const char* kProgram), writes <root>/config.json and the data it reads
// (static void writeInputs(root)), and may give the data arguments (static
// std::vector<std::string> dataArgs(root)) and a reason to skip (static std::string
// skipReason()). The inputs and the runs are made once per suite and shared by its tests.
template <typename Suite>
class DataParallelRuns : public ::testing::Test {
 protected:
  void SetUp() override {
    RECURLAB_REQUIRE_OR_SKIP(Suite::skipReason());
    const std::string binary = siblingBinary(Suite::kProgram);
    ASSERT_TRUE(std::filesystem::exists(binary)) << binary << " is not built";
    if (runs_ != nullptr) return;
    runs_ = new TaskRuns(binary, std::string(Suite::kProgram) + "_dp");
    Suite::writeInputs(runs_->root());
    runs_->data_args = Suite::dataArgs(runs_->root());
  }
  static void TearDownTestSuite() {
    delete runs_;
    runs_ = nullptr;
  }
  static std::string skipReason() { return ""; }
  static std::vector<std::string> dataArgs(const std::filesystem::path&) { return {}; }

  static std::string program() { return runs_->program(); }
  static std::string folder(const std::string& out) { return runs_->folder(out); }
  static std::string output(const std::string& out) { return runs_->output(out); }
  static std::vector<std::string> args(const std::string& out, int ranks) {
    return runs_->args(out, ranks);
  }
  static void runOnce(const std::string& out, int ranks) { runs_->runOnce(out, ranks); }
  static bool killRankOneThenResume(const std::string& kill_at, const std::string& group) {
    return runs_->killRankOneThenResume(kill_at, group);
  }

 private:
  static inline TaskRuns* runs_ = nullptr;
};

}  // namespace recurlab::testing
