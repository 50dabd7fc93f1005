#include "experiments/qa/unicode_text.h"

#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/locid.h>

#include <stdexcept>

namespace recurlab::experiments::qa {

std::u32string decodeUtf8(const std::string& s) {
  std::u32string out;
  out.reserve(s.size());
  size_t i = 0;
  auto fail = [&] {
    throw std::invalid_argument("invalid UTF-8 at byte " + std::to_string(i));
  };
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    int n = 0;
    char32_t c = 0;
    if (b < 0x80) { c = b; n = 0; }
    else if ((b & 0xE0) == 0xC0) { c = b & 0x1F; n = 1; }
    else if ((b & 0xF0) == 0xE0) { c = b & 0x0F; n = 2; }
    else if ((b & 0xF8) == 0xF0) { c = b & 0x07; n = 3; }
    else fail();
    if (i + static_cast<size_t>(n) >= s.size()) fail();  // truncated sequence
    for (int k = 1; k <= n; ++k) {
      const auto x = static_cast<unsigned char>(s[i + k]);
      if ((x & 0xC0) != 0x80) fail();
      c = (c << 6) | (x & 0x3F);
    }
    static const char32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (c < kMin[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) fail();
    out.push_back(c);
    i += n + 1;
  }
  return out;
}

std::string encodeUtf8(const std::u32string& s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t c : s) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (c >> 12)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (c >> 18)));
      out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

int64_t byteOffsetOfCodePoint(const std::string& utf8, int64_t index) {
  if (index < 0) return -1;
  int64_t seen = 0;
  for (size_t i = 0; i < utf8.size(); ++i) {
    // Count lead bytes only (continuation bytes are 10xxxxxx).
    if ((static_cast<unsigned char>(utf8[i]) & 0xC0) != 0x80) {
      if (seen == index) return static_cast<int64_t>(i);
      ++seen;
    }
  }
  return seen == index ? static_cast<int64_t>(utf8.size()) : -1;
}

std::string pythonLower(const std::string& utf8) {
  // The root locale applies the language-independent mappings, as Python does.
  auto u = icu::UnicodeString::fromUTF8(utf8);
  u.toLower(icu::Locale::getRoot());
  std::string out;
  u.toUTF8String(out);
  return out;
}

bool isPythonSpace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000;
}

bool isPythonWordChar(char32_t c) {
  if (c == '_') return true;
  const auto type = u_charType(static_cast<UChar32>(c));
  switch (type) {
    case U_UPPERCASE_LETTER: case U_LOWERCASE_LETTER: case U_TITLECASE_LETTER:
    case U_MODIFIER_LETTER: case U_OTHER_LETTER:
    case U_DECIMAL_DIGIT_NUMBER: case U_LETTER_NUMBER: case U_OTHER_NUMBER:
      return true;
    default:
      // isnumeric() also holds for a few ideographs with numeric values (all Lo above).
      return u_getNumericValue(static_cast<UChar32>(c)) != U_NO_NUMERIC_VALUE;
  }
}

bool isLetterMarkOrNumber(char32_t c) {
  const auto mask = U_GET_GC_MASK(static_cast<UChar32>(c));
  return (mask & (U_GC_L_MASK | U_GC_M_MASK | U_GC_N_MASK)) != 0;
}

bool isSeparatorOrOther(char32_t c) {
  const auto mask = U_GET_GC_MASK(static_cast<UChar32>(c));
  return (mask & (U_GC_Z_MASK | U_GC_C_MASK)) != 0;
}

}  // namespace recurlab::experiments::qa
