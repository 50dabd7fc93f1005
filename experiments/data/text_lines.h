#pragma once
// One line reader for every text loader, so they all treat the same bytes the same way:
// a UTF-8 byte-order mark at the start of the file is dropped, a trailing '\r' (CRLF files)
// is removed, and lines of only spaces and tabs are skipped (their numbers still count, so
// errors name the line an editor shows).
#include <cstdint>
#include <istream>
#include <string>

namespace recurlab::experiments {

class TextLines {
 public:
  // first_line: the number of the next line of `in` (2 after a header read by this class).
  explicit TextLines(std::istream& in, int64_t first_line = 1) : in_(in), number_(first_line - 1) {}

  // The next non-blank line; false at the end of the stream.
  bool next(std::string& line);
  // The number of the line `next` returned last (1-based).
  int64_t number() const { return number_; }

 private:
  std::istream& in_;
  int64_t number_;
};

bool isBlankLine(const std::string& line);

}  // namespace recurlab::experiments
