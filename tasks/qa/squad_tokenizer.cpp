#include "tasks/qa/squad_tokenizer.h"

#include "metrics/unicode_text.h"

namespace recurlab::experiments::qa {

std::vector<TextToken> tokenizeText(const std::string& utf8) {
  const auto text = metrics::decodeUtf8(utf8);
  // Byte offset of each code point (and of the end).
  std::vector<int64_t> offset(text.size() + 1, 0);
  for (size_t i = 0; i < text.size(); ++i) {
    const char32_t c = text[i];
    offset[i + 1] = offset[i] + (c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4);
  }
  std::vector<TextToken> tokens;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = i;
    if (metrics::isLetterMarkOrNumber(text[i])) {
      while (j < text.size() && metrics::isLetterMarkOrNumber(text[j])) ++j;
    } else if (!metrics::isSeparatorOrOther(text[i])) {
      j = i + 1;
    } else {
      ++i;
      continue;
    }
    TextToken t;
    t.byte_begin = offset[i];
    t.byte_end = offset[j];
    t.text = utf8.substr(static_cast<size_t>(t.byte_begin),
                         static_cast<size_t>(t.byte_end - t.byte_begin));
    tokens.push_back(std::move(t));
    i = j;
  }
  return tokens;
}

std::pair<int64_t, int64_t> alignSpan(const std::vector<TextToken>& tokens, int64_t byte_begin,
                                      int64_t byte_end) {
  int64_t first = -1, last = -1;
  for (size_t k = 0; k < tokens.size(); ++k) {
    if (tokens[k].byte_begin == byte_begin) first = static_cast<int64_t>(k);
    if (tokens[k].byte_end == byte_end) last = static_cast<int64_t>(k);
  }
  if (first < 0 || last < first) return {-1, -1};
  return {first, last};
}

}  // namespace recurlab::experiments::qa
