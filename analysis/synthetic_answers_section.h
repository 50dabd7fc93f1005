#pragma once
// The synthetic report's part on what the recall tasks' answers named: per model at its best
// learning rate, the share of test questions answered right, answered with another of the
// sequence's answers (MQAR: another pair's value, a binding error), or with none of them. A
// mixer that keeps a context's values but not which key each belongs to names one of them
// every time and the right one about once in D (D pairs): right among the answers that named a
// shown one near 1/D. One that keeps nothing usable names tokens the sequence never answered.
#include <vector>

#include "analysis/report.h"
#include "analysis/synthetic_cells.h"

namespace recurlab::analysis {

// Nothing when no cell of a task with two or more items logged its answered items (older logs,
// induction, the state-tracking tasks).
void writeAnswersSection(const std::vector<SyntheticCell>& cells, Report& report);

}  // namespace recurlab::analysis
