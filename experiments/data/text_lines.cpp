#include "experiments/data/text_lines.h"

namespace recurlab::experiments {

bool isBlankLine(const std::string& line) {
  return line.find_first_not_of(" \t") == std::string::npos;
}

bool TextLines::next(std::string& line) {
  while (std::getline(in_, line)) {
    ++number_;
    if (number_ == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!isBlankLine(line)) return true;
  }
  return false;
}

}  // namespace recurlab::experiments
