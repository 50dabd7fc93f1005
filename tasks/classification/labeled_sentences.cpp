#include "tasks/classification/labeled_sentences.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "experiments/data/text_lines.h"

namespace recurlab::experiments {
namespace {

std::string where(const std::string& path, int64_t line) {
  return path + ":" + std::to_string(line) + ": ";
}

}  // namespace

LabeledSentenceFile readLabeledSentences(const std::string& path, int num_classes,
                                         EmptySentencePolicy empty) {
  if (num_classes < 1)
    throw std::invalid_argument(path + ": the class count must be at least 1, got " +
                                std::to_string(num_classes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the file");
  LabeledSentenceFile file;
  file.path = path;
  const std::string expected = "; expected `LABEL tokenized sentence` with LABEL an integer in 0.." +
                               std::to_string(num_classes - 1);
  TextLines lines(in);
  std::string line;
  while (lines.next(line)) {
    const int64_t number = lines.number();
    std::istringstream words(line);
    std::string label_text;
    words >> label_text;  // the line is not blank
    // Digits only: strtol alone would accept "+1", " 1" or "0x1".
    const bool digits = label_text.find_first_not_of("0123456789") == std::string::npos;
    errno = 0;
    const long label = digits ? std::strtol(label_text.c_str(), nullptr, 10) : -1;
    if (!digits || errno == ERANGE || label >= num_classes)
      throw std::runtime_error(where(path, number) + "label '" + label_text.substr(0, 40) +
                               "' is not a class" + expected);
    LabeledSentence example;
    example.label = static_cast<int>(label);
    for (std::string token; words >> token;) example.tokens.push_back(token);
    if (example.tokens.empty()) {
      if (empty == EmptySentencePolicy::Error)
        throw std::runtime_error(where(path, number) + "label " + label_text +
                                 " has an empty sentence" + expected);
      file.warnings.push_back(where(path, number) + "skipped: label " + label_text +
                              " with an empty sentence");
      continue;
    }
    file.examples.push_back(std::move(example));
  }
  if (in.bad()) throw std::runtime_error(path + ": read error");
  if (file.examples.empty())
    throw std::runtime_error(path + ": no examples in the file" + expected);
  return file;
}

}  // namespace recurlab::experiments
