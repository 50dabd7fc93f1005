#include "experiments/data/labeled_sentences.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace recurlab::experiments {
namespace {

std::string where(const std::string& path, size_t line) {
  return path + ":" + std::to_string(line) + ": ";
}

}  // namespace

LabeledSentenceFile readLabeledSentences(const std::string& path, EmptySentencePolicy empty) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the file");
  LabeledSentenceFile file;
  file.path = path;
  std::string line;
  size_t number = 0;
  const std::string expected = "; expected `LABEL tokenized sentence` (LABEL a non-negative integer)";
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::istringstream words(line);
    std::string label_text;
    if (!(words >> label_text))
      throw std::runtime_error(where(path, number) + "empty line, no label" + expected);
    char* end = nullptr;
    errno = 0;
    const long label = std::strtol(label_text.c_str(), &end, 10);
    if (*end != '\0' || errno == ERANGE || label < 0 || label > INT_MAX)
      throw std::runtime_error(where(path, number) + "label '" + label_text +
                               "' is not a non-negative integer" + expected);
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
