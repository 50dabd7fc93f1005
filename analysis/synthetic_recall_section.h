#pragma once
// The synthetic report's section on the recall tasks (MQAR, selective copying, induction):
// test accuracy by which answer a question asks for (its item, 1 = the first the sequence
// showed; MQAR's key-value pairs in context order) and by how far back that answer stood (its
// lag), per model at its best learning rate. It tells a mixer that keeps only the last pairs
// it read (high on the last item, near chance before) from one whose memory fades with
// distance, where the overall accuracy is the same.
#include <vector>

#include "analysis/report.h"
#include "analysis/synthetic_cells.h"

namespace recurlab::analysis {

// Nothing when no cell logged its test questions (state-tracking tasks, logs of older runs).
void writeRecallSection(const std::vector<SyntheticCell>& cells, Report& report);

}  // namespace recurlab::analysis
