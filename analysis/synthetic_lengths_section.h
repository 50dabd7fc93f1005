#pragma once
// The synthetic report's part on lengths beyond those a run trained and tested on: the kept
// models scored at lengths of one's choosing (scripts/synthetic-lengths.sh, its
// <task>_by_length.csv in the run folder), per model at the learning rate the report chose, with
// the best of every rate at the longest length beside it. Dev sequences of a few lengths may
// tie rates that part far beyond them (one exact to 32 times the training length, one at
// chance), as Grazzi et al. (2025, Figure 1) and Deletang et al. (2023) plot accuracy to lengths
// far past training.
#include <string>
#include <vector>

#include "analysis/report.h"
#include "analysis/synthetic_cells.h"

namespace recurlab::analysis {

// Nothing when the run folder holds no <task>_by_length.csv for a task of its units. Throws (naming the file and line) on a
// malformed one.
void writeLengthsSection(const std::vector<SyntheticCell>& cells,
                         const std::vector<SyntheticUnit>& units, const std::string& run_dir,
                         Report& report);

}  // namespace recurlab::analysis
