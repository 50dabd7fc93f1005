#pragma once
// The kill tests' record of where every run went on from. Each child of a kill test runs
// through one ResumeTrace, which keeps that run's own output. The trainer announces every
// checkpoint it puts in place as `last` ("checkpoint: <unit> at epoch E batch B step S", on
// stderr, once the file is in place) and every resume ("resume: <unit> from epoch E batch B
// step S", on stdout; experiments/training/trainer.h). From these the trace checks, kill by
// kill, that the next run resumed each unit from the last checkpoint put in place before the
// kill: not from scratch (bit-identical on a deterministic CPU) and not from an older one (a
// store that stopped replacing `last`). A run killed from outside at a random moment (a kill
// delay) may die between putting a checkpoint in place and announcing it: the run after it may
// go on from that later checkpoint, never from an earlier one.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/support/child_process.h"

namespace recurlab::testing {

class ResumeTrace {
 public:
  // The children's stdout and stderr are appended to `output_file`.
  explicit ResumeTrace(std::string output_file);

  // runChild (child_process.h) with RECURLAB_KILL_AT = kill_at ("" = none) and a kill after
  // kill_after_ms (< 0 = none); the run's output is kept as run number runs() - 1.
  ChildResult run(const std::string& program, const std::vector<std::string>& args,
                  const std::string& kill_at = "", int kill_after_ms = -1);
  // A run killed from outside at a moment of its training: `delay_ms` after it announced its
  // `checkpoints`-th checkpoint (a kill before the first proves no resume; the run's output is
  // polled for it, for at most 5 minutes); a run that ends before is not killed.
  ChildResult runKilledWhileTraining(const std::string& program,
                                     const std::vector<std::string>& args, int checkpoints,
                                     int delay_ms);
  // How many checkpoints run `run` announced.
  int checkpointCountOf(size_t run) const;
  // Forgets the runs (the test starts over on a fresh folder).
  void clear();
  size_t runs() const { return outputs_.size(); }
  // What run `run` printed (stdout and stderr).
  const std::string& outputOf(size_t run) const { return outputs_.at(run); }

  // Of run `run`: unit -> the position ("epoch E batch B step S") it resumed from.
  std::map<std::string, std::string> resumesOf(size_t run) const;
  // unit -> the position of its last checkpoint put in place by runs 0..`run`.
  std::map<std::string, std::string> lastCheckpointsUpTo(size_t run) const;
  // "epoch E step S" of the last run's resume of `unit` (as the unit log's resumed_from_epoch
  // and resumed_from_step give it); "" when the last run did not resume it.
  std::string lastRunResumedFrom(const std::string& unit) const;
  // The unit run `run` announced last (a checkpoint or a resume): the one a kill interrupted;
  // "" when it announced none.
  std::string lastUnitOf(size_t run) const;

  // Run `run` + 1 resumed the unit run `run` was killed in (lastUnitOf) from that unit's last
  // checkpoint put in place before the kill; with `expected` not empty, that position is
  // `expected` (known from the kill point).
  ::testing::AssertionResult nextRunResumedWhereKilled(size_t run,
                                                       const std::string& expected = "") const;
  // Across all runs: every unit that a run resumed or checkpointed and that an earlier run had
  // checkpointed, it resumed from the earlier runs' last checkpoint of it; and no run printed
  // "trains again from the start".
  ::testing::AssertionResult everyResumeFromTheLastCheckpoint() const;

  // The labels and last lines of run `run`'s output, for failure messages.
  std::string describe(size_t run) const;

 private:
  // Whether run `run` + 1 went on from `had` (the last checkpoint announced before it), or,
  // after a kill from outside, from `had` or a later one: "" if so, else what it did instead.
  // Keeps the output since byte `before` of the output file as the next run's.
  void record(size_t before, const ChildResult& r, const std::string& label, bool from_outside);
  std::string wentOnFrom(size_t run, const std::string& had, const std::string& went_on) const;

  std::string output_file_;
  std::vector<std::string> outputs_, labels_;
  std::vector<bool> killed_from_outside_;
};

// A chosen kill point (RECURLAB_KILL_AT, "<point>:<n>") and where the next run must go on
// from: `expected`, the last checkpoint's position before the kill where the test knows it from
// the kill point ("" = the one the killed run announced last); `resumes` false for a kill
// before the unit's first checkpoint or after it finished (the next run resumes nothing).
struct ChosenKill {
  std::string point;
  std::string expected = "";
  bool resumes = true;
};

// Expects of runs first, first + 1, ... (killed at `kills` in turn, each followed by the next
// run) what ChosenKill says, and everyResumeFromTheLastCheckpoint.
void expectResumesAfterKills(const ResumeTrace& trace, size_t first,
                             const std::vector<ChosenKill>& kills);

// Runs `args` killed at each chosen point in turn (each must be reached), then to the end (exit
// 0), then expectResumesAfterKills.
void runWithChosenKills(ResumeTrace& trace, const std::string& program,
                        const std::vector<std::string>& args,
                        const std::vector<ChosenKill>& kills);

}  // namespace recurlab::testing
