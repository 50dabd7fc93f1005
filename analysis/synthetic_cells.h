#pragma once
// What the synthetic report reads from a `recurlab_synthetic` run: every unit of every log,
// and per (task, model, width) the finished units at the learning rate with the best mean dev
// accuracy (a cell), pooled over seeds.
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/log/hdf5_run_log.h"

namespace recurlab::analysis {

// The lengths a split's sequences were drawn from.
struct SyntheticLengths {
  int64_t min = 0, max = 0;
};

struct SyntheticUnit {
  std::string group, task, kind, model, encoder, status;
  int64_t width = 0, lr_index = 0, seed_index = 0, state_size = 0;
  SyntheticLengths train_lengths, test_lengths;
  SyntheticLengths dev_lengths;  // the train range in logs older than the dev keys
  double lr = 0, dev = NAN, test = NAN, test_exact = NAN, seconds = NAN;  // NaN until finished
  std::vector<double> sequence_acc;     // per test sequence, at the best epoch
  std::vector<double> sequence_length;  // per test sequence (absent from older logs)
  // Recall tasks, per test question (absent from older logs): 1 if right, its item and lag
  // (tasks/synthetic/recall_questions.h), and the item its answer named (0: none of the
  // sequence's answers; absent from logs older still).
  std::vector<double> question_correct, question_item, question_lag, question_answered_item;
};

// One (task, model, width) at its best learning rate.
struct SyntheticCell {
  std::string task, model, encoder;
  int64_t width = 0, state_size = 0, test_length = 0, seeds = 0;
  int64_t lr_index = 0;  // the chosen rate's place in the grid
  double lr = 0, dev = 0, test = 0, test_std = 0, exact = 0, seconds = 0;
  // Rates with the same best mean dev accuracy (1: no tie); the lowest of them is the cell's.
  int64_t tied_rates = 1;
  int64_t finished_units = 0;  // at every rate and seed: fewer than planned while the run trains
  std::vector<double> sequence_acc;     // the seeds' test sequences, in seed order
  std::vector<double> sequence_length;  // their lengths, when every seed logged them
  // The seeds' test questions, when every seed logged them; the answered items likewise.
  std::vector<double> question_correct, question_item, question_lag, question_answered_item;
};

// Cells as a report part groups them: per task (a table each) and per (task, width) (a figure
// panel each), in the cells' order within a group.
struct SyntheticCellGroups {
  std::map<std::string, std::vector<const SyntheticCell*>> by_task;
  std::map<std::pair<std::string, int64_t>, std::vector<const SyntheticCell*>> by_task_width;
  bool empty() const { return by_task.empty(); }
};
// The cells `keep` accepts (e.g. those that logged what the part reads), grouped; they point
// into `cells`.
SyntheticCellGroups groupCells(const std::vector<SyntheticCell>& cells,
                               const std::function<bool(const SyntheticCell&)>& keep);

// The units of /<task>/<model>/w<width>/lr<i>/seeds/<s> that have begun training.
void readSyntheticUnits(const experiments::Hdf5RunLog& log, std::vector<SyntheticUnit>& units);
std::vector<SyntheticCell> bestRateCells(const std::vector<SyntheticUnit>& units);

}  // namespace recurlab::analysis
