#include "metrics/tokenizer_intl.h"

#include <unicode/uchar.h>

#include "metrics/text_replace.h"
#include "metrics/unicode_text.h"

namespace recurlab::metrics {
namespace {

bool isNumber(char32_t c) { return (U_GET_GC_MASK(c) & U_GC_N_MASK) != 0; }
bool isPunctuation(char32_t c) { return (U_GET_GC_MASK(c) & U_GC_P_MASK) != 0; }
bool isSymbol(char32_t c) { return (U_GET_GC_MASK(c) & U_GC_S_MASK) != 0; }

// Global, leftmost, non-overlapping "(a)(b)" -> left + a + middle + b + right.
}  // namespace

std::string tokenizeIntl(std::string_view line) {
  const auto notNumber = [](char32_t c) { return !isNumber(c); };
  std::u32string t = decodeUtf8(std::string(line));
  t = substitutePairs(t, notNumber, isPunctuation, U"", U" ", U" ");
  t = substitutePairs(t, isPunctuation, notNumber, U" ", U" ", U"");
  std::u32string spaced;
  spaced.reserve(t.size() * 2);
  for (char32_t c : t) {
    if (isSymbol(c)) {
      spaced += U' ';
      spaced += c;
      spaced += U' ';
    } else {
      spaced += c;
    }
  }
  std::string joined;
  for (const auto& token : splitPythonWhitespace(encodeUtf8(spaced))) {
    if (!joined.empty()) joined += ' ';
    joined += token;
  }
  return joined;
}

}  // namespace recurlab::metrics
