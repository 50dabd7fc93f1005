#include "metrics/tokenizer_zh.h"

#include <utility>

#include "metrics/tokenizer_13a.h"
#include "metrics/unicode_text.h"

namespace recurlab::metrics {

bool isSacreBleuChineseCharacter(char32_t c) {
  static constexpr std::pair<char32_t, char32_t> kRanges[] = {
      {0x3400, 0x4DB5},  // CJK Unified Ideographs Extension A
      {0x4E00, 0x9FA5},  // CJK Unified Ideographs
      {0x9FA6, 0x9FBB},
      {0xF900, 0xFA2D},  // CJK Compatibility Ideographs
      {0xFA30, 0xFA6A},
      {0xFA70, 0xFAD9},
      {0x2001, 0x2A6D},  // meant as Extension B (U+20000-2A6D6), see the header
      {0x2F81, 0x2FA1},  // meant as the Compatibility Supplement (U+2F800-2FA1D)
      {0xFF00, 0xFFEF},  // full-width ASCII and punctuation, half-width kana, Hangul
      {0x2E80, 0x2EFF},  // CJK Radicals Supplement
      {0x3000, 0x303F},  // CJK punctuation
      {0x31C0, 0x31EF},  // CJK strokes
      {0x2F00, 0x2FDF},  // Kangxi radicals
      {0x2FF0, 0x2FFF},  // ideographic description characters
      {0x3100, 0x312F},  // Bopomofo
      {0x31A0, 0x31BF},  // Bopomofo extended
      {0xFE10, 0xFE1F},  // vertical forms
      {0xFE30, 0xFE4F},  // CJK compatibility forms
      {0x2600, 0x26FF},  // miscellaneous symbols
      {0x2700, 0x27BF},  // dingbats
      {0x3200, 0x32FF},  // enclosed CJK letters and months
      {0x3300, 0x33FF},  // CJK compatibility
  };
  for (const auto& [first, last] : kRanges)
    if (c >= first && c <= last) return true;
  return false;
}

std::string tokenizeZh(std::string_view line) {
  const std::u32string text = decodeUtf8(std::string(line));
  size_t begin = 0, end = text.size();
  while (begin < end && isPythonWhitespace(text[begin])) ++begin;
  while (end > begin && isPythonWhitespace(text[end - 1])) --end;
  std::u32string spaced;
  for (size_t i = begin; i < end; ++i) {
    if (isSacreBleuChineseCharacter(text[i])) {
      spaced += U' ';
      spaced += text[i];
      spaced += U' ';
    } else {
      spaced += text[i];
    }
  }
  return apply13aRules(encodeUtf8(spaced));
}

}  // namespace recurlab::metrics
