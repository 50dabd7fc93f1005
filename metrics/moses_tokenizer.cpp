#include "metrics/moses_tokenizer.h"

#include <unicode/uchar.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <vector>

#include "metrics/moses_nonbreaking_prefixes.h"
#include "metrics/text_replace.h"
#include "metrics/unicode_text.h"

namespace recurlab::metrics {
namespace {

// ---- normalization: bytes, as the script reads them ------------------------------------------

const std::string kNoBreakSpace = "\xC2\xA0";

bool isAsciiDigit(char c) { return c >= '0' && c <= '9'; }
bool isAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
// Perl's \s on a byte string: ASCII whitespace only.
bool isAsciiSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

void collapseSpaces(std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text)
    if (c != ' ' || out.empty() || out.back() != ' ') out += c;
  text.swap(out);
}

// Global, leftmost, non-overlapping "(a)middle(b)" -> a + replacement + b, where a and b are
// single bytes.
std::string replaceBetween(const std::string& text, const std::function<bool(char)>& a,
                           std::string_view middle, const std::function<bool(char)>& b,
                           std::string_view replacement) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const size_t after = i + 1 + middle.size();
    if (after < text.size() && a(text[i]) && text.compare(i + 1, middle.size(), middle) == 0 &&
        b(text[after])) {
      out += text[i];
      out += replacement;
      out += text[after];
      i = after + 1;
    } else {
      out += text[i++];
    }
  }
  return out;
}

// German/French style: a run of dots before a closing quote goes after it (`."` -> `".`) when
// anything but '<' follows the quote, possibly after whitespace.
std::string moveDotsAfterQuote(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '.') {
      out += text[i++];
      continue;
    }
    size_t end = i;
    while (end < text.size() && text[end] == '.') ++end;
    if (end < text.size() && text[end] == '"') {
      size_t space_end = end + 1;
      while (space_end < text.size() && isAsciiSpace(text[space_end])) ++space_end;
      size_t consumed = 0;  // bytes after the quote that the match takes
      if (space_end < text.size() && text[space_end] != '<')
        consumed = space_end + 1 - (end + 1);
      else if (space_end > end + 1)
        consumed = space_end - (end + 1);  // the last whitespace byte serves as [^<]
      if (consumed > 0) {
        out += '"';
        out.append(text, i, end - i);
        out.append(text, end + 1, consumed);
        i = end + 1 + consumed;
        continue;
      }
    }
    out.append(text, i, end - i);
    i = end;
  }
  return out;
}

// English style: `",` and `".` become `,"` and `."`.
std::string moveQuoteAfterPunctuation(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '"') {
      size_t end = i + 1;
      while (end < text.size() && (text[end] == ',' || text[end] == '.')) ++end;
      if (end > i + 1) {
        out.append(text, i + 1, end - i - 1);
        out += '"';
        i = end;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

// ---- tokenization: code points, as the script decodes its input ------------------------------

// Stands for one dot of a run of dots while the other rules run: no input code point has it.
constexpr char32_t kRunDot = 0x110000;

// Perl's \s on a character string: Python's set without U+001C-001F.
bool isPerlSpace(char32_t c) { return isPythonWhitespace(c) && !(c >= 0x1C && c <= 0x1F); }
bool isAlpha(char32_t c) { return c != kRunDot && u_hasBinaryProperty(c, UCHAR_ALPHABETIC); }
bool isNumber(char32_t c) { return c != kRunDot && (U_GET_GC_MASK(c) & U_GC_N_MASK) != 0; }
bool isAlnum(char32_t c) { return isAlpha(c) || (c != kRunDot && u_charType(c) == U_DECIMAL_DIGIT_NUMBER); }
bool isLower(char32_t c) { return c != kRunDot && u_hasBinaryProperty(c, UCHAR_LOWERCASE); }

using Class = std::function<bool(char32_t)>;

// Global, leftmost, non-overlapping "(a)'(b)" -> a + replacement + b.
std::u32string substituteApostrophe(const std::u32string& text, const Class& a, const Class& b,
                                    std::u32string_view replacement) {
  std::u32string out;
  out.reserve(text.size() + text.size() / 4);
  size_t i = 0;
  while (i < text.size()) {
    if (i + 2 < text.size() && text[i + 1] == U'\'' && a(text[i]) && b(text[i + 2])) {
      out += text[i];
      out += replacement;
      out += text[i + 2];
      i += 3;
    } else {
      out += text[i++];
    }
  }
  return out;
}

void collapseSpaces(std::u32string& text) {
  std::u32string out;
  out.reserve(text.size());
  for (char32_t c : text)
    if (c != U' ' || out.empty() || out.back() != U' ') out += c;
  text.swap(out);
}

void trimOneSpace(std::u32string& text) {
  if (!text.empty() && text.front() == U' ') text.erase(0, 1);
  if (!text.empty() && text.back() == U' ') text.pop_back();
}

bool isTokenPunctuationKept(char32_t c) {
  return c == U'.' || c == U'\'' || c == U'`' || c == U',' || c == U'-';
}

std::u32string splitApostrophes(const std::u32string& text, std::string_view language) {
  if (language != "en") {
    std::u32string out;
    for (char32_t c : text) {
      if (c == U'\'') out += U" ' ";
      else out += c;
    }
    return out;
  }
  const auto alpha = [](char32_t c) { return isAlpha(c); };
  const auto notAlpha = [](char32_t c) { return !isAlpha(c); };
  auto t = substituteApostrophe(text, notAlpha, notAlpha, U" ' ");
  t = substituteApostrophe(t, [](char32_t c) { return !isAlpha(c) && !isNumber(c); }, alpha, U" ' ");
  t = substituteApostrophe(t, alpha, notAlpha, U" ' ");
  t = substituteApostrophe(t, alpha, alpha, U" '");
  return substituteApostrophe(t, [](char32_t c) { return isNumber(c); },
                              [](char32_t c) { return c == U's'; }, U" '");
}

// Perl's split(/ /, ...): a leading empty field stays, trailing empty fields go.
std::vector<std::u32string> splitOnSpaces(const std::u32string& text) {
  std::vector<std::u32string> words;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == U' ') {
      words.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  while (!words.empty() && words.back().empty()) words.pop_back();
  return words;
}

// A word's final period is split off unless it ends an abbreviation.
std::u32string splitFinalPeriods(const std::u32string& text, std::string_view language) {
  const auto words = splitOnSpaces(text);
  std::u32string out;
  for (size_t i = 0; i < words.size(); ++i) {
    std::u32string word = words[i];
    if (word.size() >= 2 && word.back() == U'.') {
      const std::u32string pre = word.substr(0, word.size() - 1);
      bool has_period = false, has_alpha = false;
      for (char32_t c : pre) {
        has_period = has_period || c == U'.';
        has_alpha = has_alpha || isAlpha(c);
      }
      const auto kind = mosesNonbreakingPrefix(language, encodeUtf8(pre));
      const bool has_next = i + 1 < words.size() && !words[i + 1].empty();
      const bool next_lower = has_next && isLower(words[i + 1][0]);
      const bool next_digit = has_next && words[i + 1][0] >= U'0' && words[i + 1][0] <= U'9';
      const bool keep = (has_period && has_alpha) || kind == NonbreakingPrefix::Always ||
                        next_lower || (kind == NonbreakingPrefix::BeforeNumber && next_digit);
      if (!keep) word = pre + U" .";
    }
    out += word;
    out += U' ';
  }
  return out;
}

std::string escapeXml(const std::string& text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '|': out += "&#124;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '\'': out += "&apos;"; break;
      case '"': out += "&quot;"; break;
      case '[': out += "&#91;"; break;
      case ']': out += "&#93;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string mosesNormalizePunctuation(std::string_view line, std::string_view language) {
  std::string t(line);
  t += '\n';  // the script sees each line with its newline, which the `."` rule can match
  t.erase(std::remove(t.begin(), t.end(), '\r'), t.end());
  replaceAll(t, "(", " (");
  replaceAll(t, ")", ") ");
  collapseSpaces(t);
  const auto closing = [](char c) { return c == ')'; };
  const auto clause_end = [](char c) { return std::string_view(".!:?;,").find(c) != std::string_view::npos; };
  t = replaceBetween(t, closing, " ", clause_end, "");
  replaceAll(t, "( ", "(");
  replaceAll(t, " )", ")");
  t = replaceBetween(t, isAsciiDigit, " ", [](char c) { return c == '%'; }, "");
  replaceAll(t, " :", ":");
  replaceAll(t, " ;", ";");
  replaceAll(t, "`", "'");
  replaceAll(t, "''", " \" ");

  replaceAll(t, "\xE2\x80\x9E", "\"");  // „
  replaceAll(t, "\xE2\x80\x9C", "\"");  // “
  replaceAll(t, "\xE2\x80\x9D", "\"");  // ”
  replaceAll(t, "\xE2\x80\x93", "-");   // –
  replaceAll(t, "\xE2\x80\x94", " - ");  // —
  collapseSpaces(t);
  replaceAll(t, "\xC2\xB4", "'");  // ´
  t = replaceBetween(t, isAsciiLetter, "\xE2\x80\x98", isAsciiLetter, "'");  // ‘ inside a word
  t = replaceBetween(t, isAsciiLetter, "\xE2\x80\x99", isAsciiLetter, "'");  // ’ inside a word
  replaceAll(t, "\xE2\x80\x98", "\"");  // ‘
  replaceAll(t, "\xE2\x80\x9A", "\"");  // ‚
  replaceAll(t, "\xE2\x80\x99", "\"");  // ’
  replaceAll(t, "''", "\"");
  replaceAll(t, "\xC2\xB4\xC2\xB4", "\"");  // ´´ (none left after ´ -> ', kept for the order)
  replaceAll(t, "\xE2\x80\xA6", "...");     // …

  const std::string nbsp = kNoBreakSpace, open = "\xC2\xAB", close = "\xC2\xBB";  // « »
  replaceAll(t, nbsp + open + nbsp, " \"");
  replaceAll(t, open + nbsp, "\"");
  replaceAll(t, open, "\"");
  replaceAll(t, nbsp + close + nbsp, "\" ");
  replaceAll(t, nbsp + close, "\"");
  replaceAll(t, close, "\"");
  const std::string ordinal = "\xC2\xBA";  // º
  replaceAll(t, nbsp + "%", "%");
  replaceAll(t, "n" + ordinal + nbsp, "n" + ordinal + " ");
  replaceAll(t, nbsp + ":", ":");
  replaceAll(t, nbsp + ordinal + "C", " " + ordinal + "C");
  replaceAll(t, nbsp + "cm", " cm");
  replaceAll(t, nbsp + "?", "?");
  replaceAll(t, nbsp + "!", "!");
  replaceAll(t, nbsp + ";", ";");
  replaceAll(t, "," + nbsp, ", ");
  collapseSpaces(t);

  if (language == "en") {
    t = moveQuoteAfterPunctuation(t);
  } else if (language != "cs" && language != "cz") {
    replaceAll(t, ",\"", "\",");
    t = moveDotsAfterQuote(t);
  }
  const bool decimal_comma = language == "de" || language == "es" || language == "cz" ||
                             language == "cs" || language == "fr";
  // A no-break space between digits is a thousands separator.
  t = replaceBetween(t, isAsciiDigit, nbsp, isAsciiDigit, decimal_comma ? "," : ".");
  if (!t.empty() && t.back() == '\n') t.pop_back();
  return t;
}

std::string mosesTokenize(std::string_view line, std::string_view language) {
  if (!hasMosesNonbreakingPrefixes(language))
    throw std::invalid_argument("Moses tokenizer: language '" + std::string(language) +
                                "' is not supported; expected de or en");
  const std::u32string input = decodeUtf8(std::string(line));
  bool blank = true;
  for (char32_t c : input) blank = blank && isPerlSpace(c);
  if (blank) return "";

  // Whitespace runs to one space, control characters out.
  std::u32string t;
  bool in_space = false;
  for (char32_t c : U" " + input + U" ") {
    if (isPerlSpace(c)) {
      if (!in_space) t += U' ';
      in_space = true;
    } else {
      in_space = false;
      if (c >= 0x20) t += c;
    }
  }
  collapseSpaces(t);
  trimOneSpace(t);

  // Every character but letters, digits, whitespace and . ' ` , - stands alone.
  {
    std::u32string out;
    for (char32_t c : t) {
      if (isAlnum(c) || isPerlSpace(c) || isTokenPunctuationKept(c)) {
        out += c;
      } else {
        out += U' ';
        out += c;
        out += U' ';
      }
    }
    t.swap(out);
  }
  // A run of two or more dots is one token, apart from what precedes and follows it.
  {
    std::u32string out;
    size_t i = 0;
    while (i < t.size()) {
      size_t end = i;
      while (end < t.size() && t[end] == U'.') ++end;
      if (end - i >= 2) {
        out += U' ';
        out.append(end - i, kRunDot);
        if (end < t.size()) out += U' ';
        i = end;
      } else {
        out += t[i++];
      }
    }
    t.swap(out);
  }
  // Commas, unless between digits.
  const auto notNumber = [](char32_t c) { return !isNumber(c); };
  const auto comma = [](char32_t c) { return c == U','; };
  t = substitutePairs(t, notNumber, comma, U"", U" ", U" ");
  t = substitutePairs(t, comma, notNumber, U" ", U" ", U"");
  if (t.size() >= 2 && t.back() == U',' && isNumber(t[t.size() - 2])) t.insert(t.size() - 1, U" ");

  t = splitApostrophes(t, language);
  t = splitFinalPeriods(t, language);
  collapseSpaces(t);
  trimOneSpace(t);
  if (t.size() >= 2 && t[t.size() - 2] == U'.' && t.back() == U'\'') t.replace(t.size() - 2, 2, U" . '");
  for (auto& c : t)
    if (c == kRunDot) c = U'.';
  std::string tokens = escapeXml(encodeUtf8(t));
  // The script may leave a space at the end.
  while (!tokens.empty() && tokens.back() == ' ') tokens.pop_back();
  return tokens;
}

std::string mosesNormalizeAndTokenize(std::string_view line, std::string_view language) {
  return mosesTokenize(mosesNormalizePunctuation(line, language), language);
}

}  // namespace recurlab::metrics
