#include "experiments/metrics/tokenizer_intl.h"

#include <unicode/uchar.h>

#include "experiments/metrics/unicode_text.h"

namespace recurlab::metrics {
namespace {

bool isNumber(char32_t c) { return (U_GET_GC_MASK(c) & U_GC_N_MASK) != 0; }
bool isPunctuation(char32_t c) { return (U_GET_GC_MASK(c) & U_GC_P_MASK) != 0; }
bool isSymbol(char32_t c) { return (U_GET_GC_MASK(c) & U_GC_S_MASK) != 0; }

// Global, leftmost, non-overlapping "(a)(b)" -> left + a + middle + b + right.
template <typename A, typename B>
std::u32string substitutePairs(const std::u32string& text, A a, B b, std::u32string_view left,
                               std::u32string_view middle, std::u32string_view right) {
  std::u32string out;
  out.reserve(text.size() * 2);
  size_t i = 0;
  while (i < text.size()) {
    if (i + 1 < text.size() && a(text[i]) && b(text[i + 1])) {
      out += left;
      out += text[i];
      out += middle;
      out += text[i + 1];
      out += right;
      i += 2;
    } else {
      out += text[i++];
    }
  }
  return out;
}

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
