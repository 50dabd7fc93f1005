#pragma once
// The scores of a synthetic run's kept models at lengths of one's choosing: the CSV that
// scripts/synthetic-lengths.sh writes into the run folder (<task>_by_length.csv, one row per
// model, width, learning rate, seed and length, from `recurlab_synthetic evaluate`).
#include <cstdint>
#include <string>
#include <vector>

namespace recurlab::analysis {

struct LengthScore {
  std::string task, model;
  int64_t width = 0, lr_index = 0, seed = 0, length = 0, questions = 0, right = 0;
};

// The rows of one such file. Throws naming the file, the line and what was expected on a
// missing column, a row of the wrong width, a number that is not one, right > questions or a
// second row for the same model, rate, seed and length.
std::vector<LengthScore> readLengthScores(const std::string& path);

// Where scripts/synthetic-lengths.sh writes a task's scores in a run folder.
std::string lengthScoreFile(const std::string& run_dir, const std::string& task);

}  // namespace recurlab::analysis
