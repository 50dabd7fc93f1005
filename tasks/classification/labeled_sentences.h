#pragma once
// Reads the Harvard NLP classification format (one example a line: `LABEL<space>tokens`),
// checking every line: a label that is not an integer in 0..K-1 is an error naming file,
// line and label. Lines are read by TextLines (byte-order mark dropped, blank lines skipped).
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

// num_classes = K >= 1: the dataset's known class count (a stray label such as 99999 would
// otherwise silently build a 100,000-way output layer).
// Throws std::runtime_error "FILE:LINE: <what is wrong>; expected `LABEL tokens...`".
LabeledSentenceFile readLabeledSentences(const std::string& path, int num_classes,
                                         EmptySentencePolicy empty = EmptySentencePolicy::Skip);

}  // namespace recurlab::experiments
