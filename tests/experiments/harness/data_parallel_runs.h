#pragma once
// What the data-parallel tests of every task (MT, LM, QA) check on a task's binary: the epochs
// of two ranks against one process with the same global batch (to float tolerance), and a
// rank killed mid-training that ends the other with an error, never a hang.
#include <string>
#include <vector>

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

// The file's text ("" when absent).
std::string fileText(const std::string& path);

}  // namespace recurlab::testing
