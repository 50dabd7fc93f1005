#include "experiments/metrics/unicode_text.h"

#include <locale.h>
#include <wctype.h>

#include <stdexcept>

namespace recurlab::metrics {
namespace {

constexpr char32_t kInvalid = 0xFFFFFFFF;

// Decodes the code point at text[i] and advances i; an invalid byte decodes to kInvalid and
// advances by one.
char32_t decode(std::string_view text, size_t& i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  int length = 0;
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
  for (int k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) {
      ++i;
      return kInvalid;
    }
    c = (c << 6) | (byte(i + k) & 0x3F);
  }
  i += length;
  return c;
}

void encode(char32_t c, std::string& out) {
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

locale_t utf8Locale() {
  static const locale_t locale = [] {
    locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(0));
    if (!l) l = newlocale(LC_CTYPE_MASK, "C.utf8", static_cast<locale_t>(0));
    if (!l)
      throw std::runtime_error(
          "lowercasing needs the C.UTF-8 locale (glibc's Unicode case tables); it is missing");
    return l;
  }();
  return locale;
}

bool isCased(char32_t c) {
  return iswupper_l(static_cast<wint_t>(c), utf8Locale()) ||
         iswlower_l(static_cast<wint_t>(c), utf8Locale());
}

}  // namespace

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
    const char32_t c = decode(text, i);
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
    const char32_t c = decode(text, i);
    if (c == kInvalid || !isPythonWhitespace(c)) end = i;
  }
  return std::string(text.substr(0, end));
}

std::string pythonLower(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  // Decode once so that final sigma can look at both neighbours.
  std::vector<std::pair<char32_t, std::string_view>> chars;
  while (i < text.size()) {
    const size_t at = i;
    const char32_t c = decode(text, i);
    chars.emplace_back(c, text.substr(at, i - at));
  }
  for (size_t k = 0; k < chars.size(); ++k) {
    const char32_t c = chars[k].first;
    if (c == kInvalid) {
      out += chars[k].second;
    } else if (c < 0x80) {
      out += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    } else if (c == 0x130) {  // İ -> i + combining dot above (SpecialCasing.txt)
      out += "i\xCC\x87";
    } else if (c == 0x3A3) {
      // Final_Sigma: a cased letter before (skipping case-ignorable marks is rare; Python
      // checks cased letters) and none after -> ς, else σ.
      bool before = false, after = false;
      for (size_t j = k; j-- > 0;) {
        if (chars[j].first != kInvalid && isCased(chars[j].first)) { before = true; break; }
        if (chars[j].first == kInvalid || isPythonWhitespace(chars[j].first) ||
            chars[j].first < 0x80) break;
      }
      for (size_t j = k + 1; j < chars.size(); ++j) {
        if (chars[j].first != kInvalid && isCased(chars[j].first)) { after = true; break; }
        if (chars[j].first == kInvalid || isPythonWhitespace(chars[j].first) ||
            chars[j].first < 0x80) break;
      }
      encode(before && !after ? 0x3C2 : 0x3C3, out);
    } else {
      encode(static_cast<char32_t>(towlower_l(static_cast<wint_t>(c), utf8Locale())), out);
    }
  }
  return out;
}

}  // namespace recurlab::metrics
