#include "metrics/unicode_text.h"

#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <stdexcept>

namespace recurlab::metrics {
namespace {

constexpr char32_t kInvalid = 0xFFFFFFFF;

// Decodes the code point at text[i] and advances i past it; a byte that does not start a
// well-formed sequence (overlong, surrogate, beyond U+10FFFF, truncated) decodes to kInvalid
// and advances by one.
char32_t decodeAt(std::string_view text, size_t& i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  size_t length = 0;
  char32_t c = 0;
  if (b0 < 0x80) {
    ++i;
    return b0;
  } else if ((b0 & 0xE0) == 0xC0) {
    length = 2, c = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    length = 3, c = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    length = 4, c = b0 & 0x07;
  } else {
    ++i;
    return kInvalid;
  }
  if (i + length > text.size()) {
    ++i;
    return kInvalid;
  }
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) {
      ++i;
      return kInvalid;
    }
    c = (c << 6) | (byte(i + k) & 0x3F);
  }
  static const char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < kMin[length] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
    ++i;
    return kInvalid;
  }
  i += length;
  return c;
}

void encodeTo(char32_t c, std::string& out) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

void appendLowered(std::string_view valid_utf8, std::string& out) {
  if (valid_utf8.empty()) return;
  // The root locale applies the language-independent mappings, as Python does; ICU handles
  // final sigma from the context within the run.
  auto u = icu::UnicodeString::fromUTF8(icu::StringPiece(valid_utf8.data(),
                                                          static_cast<int32_t>(valid_utf8.size())));
  u.toLower(icu::Locale::getRoot());
  u.toUTF8String(out);
}

}  // namespace

std::u32string decodeUtf8(const std::string& s) {
  std::u32string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const size_t at = i;
    const char32_t c = decodeAt(s, i);
    if (c == kInvalid) throw std::invalid_argument("invalid UTF-8 at byte " + std::to_string(at));
    out.push_back(c);
  }
  return out;
}

std::string encodeUtf8(const std::u32string& s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t c : s) encodeTo(c, out);
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

bool isPythonWhitespace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000;
}

std::vector<std::string> splitPythonWhitespace(std::string_view text) {
  std::vector<std::string> pieces;
  size_t i = 0, start = 0;
  bool inside = false;
  while (i < text.size()) {
    const size_t at = i;
    const char32_t c = decodeAt(text, i);
    if (c != kInvalid && isPythonWhitespace(c)) {
      if (inside) pieces.emplace_back(text.substr(start, at - start));
      inside = false;
    } else if (!inside) {
      inside = true;
      start = at;
    }
  }
  if (inside) pieces.emplace_back(text.substr(start));
  return pieces;
}

std::string rstripPythonWhitespace(std::string_view text) {
  size_t end = 0, i = 0;
  while (i < text.size()) {
    const char32_t c = decodeAt(text, i);
    if (c == kInvalid || !isPythonWhitespace(c)) end = i;
  }
  return std::string(text.substr(0, end));
}

std::string pythonLower(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  // ASCII-only text (most of it) needs no ICU; otherwise lower each well-formed run and keep
  // the invalid bytes between runs unchanged.
  bool ascii = true;
  for (char ch : text) ascii = ascii && static_cast<unsigned char>(ch) < 0x80;
  if (ascii) {
    for (char ch : text) out += (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch + 32) : ch;
    return out;
  }
  size_t i = 0, run = 0;
  while (i < text.size()) {
    const size_t at = i;
    if (decodeAt(text, i) == kInvalid) {
      appendLowered(text.substr(run, at - run), out);
      out += text[at];
      run = i;
    }
  }
  appendLowered(text.substr(run), out);
  return out;
}

bool isPythonWordChar(char32_t c) {
  if (c == '_') return true;
  switch (u_charType(static_cast<UChar32>(c))) {
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

}  // namespace recurlab::metrics
