#pragma once
// Reads the Harvard NLP classification format (one example a line: `LABEL<space>tokens`),
// checking every line: a missing or non-integer label is an error naming file and line.
#include <string>
#include <vector>

namespace recurlab::experiments {

struct LabeledSentence {
  int label = 0;
  std::vector<std::string> tokens;
};

// The official CR and MPQA files hold a few lines with a label and no sentence; they carry
// no information, so by default they are skipped and listed in `warnings`.
enum class EmptySentencePolicy { Skip, Error };

struct LabeledSentenceFile {
  std::string path;
  std::vector<LabeledSentence> examples;
  std::vector<std::string> warnings;  // "FILE:LINE: ..." for each skipped line
};

// Throws std::runtime_error "FILE:LINE: <what is wrong>; expected `LABEL tokens...`".
LabeledSentenceFile readLabeledSentences(const std::string& path,
                                         EmptySentencePolicy empty = EmptySentencePolicy::Skip);

}  // namespace recurlab::experiments
