#include "metrics/tokenizer_13a.h"

#include "metrics/text_replace.h"
#include "metrics/unicode_text.h"

namespace recurlab::metrics {
namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isPeriodOrComma(char c) { return c == '.' || c == ','; }

// [\{-\~\[-\` -\&\(-\+\:-\@\/]
bool isSplitSymbol(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 0x7B && u <= 0x7E) || (u >= 0x5B && u <= 0x60) || (u >= 0x20 && u <= 0x26) ||
         (u >= 0x28 && u <= 0x2B) || (u >= 0x3A && u <= 0x40) || u == 0x2F;
}

}  // namespace

std::string tokenize13a(std::string_view input) {
  std::string line(input);
  replaceAll(line, "<skipped>", "");
  replaceAll(line, "-\n", "");
  replaceAll(line, "\n", " ");
  if (line.find('&') != std::string::npos) {
    replaceAll(line, "&quot;", "\"");
    replaceAll(line, "&amp;", "&");
    replaceAll(line, "&lt;", "<");
    replaceAll(line, "&gt;", ">");
  }
  return apply13aRules(" " + line + " ");
}

std::string apply13aRules(std::string_view input) {
  std::string padded;
  padded.reserve(input.size() * 2);
  for (char c : input) {
    if (isSplitSymbol(c)) {
      padded += ' ';
      padded += c;
      padded += ' ';
    } else {
      padded += c;
    }
  }
  const auto notDigit = [](char c) { return !isDigit(c); };
  const auto isHyphen = [](char c) { return c == '-'; };
  std::string text = substitutePairs(padded, notDigit, isPeriodOrComma, "", " ", " ");
  text = substitutePairs(text, isPeriodOrComma, notDigit, " ", " ", "");
  text = substitutePairs(text, isDigit, isHyphen, "", " ", " ");
  std::string joined;
  for (const auto& token : splitPythonWhitespace(text)) {
    if (!joined.empty()) joined += ' ';
    joined += token;
  }
  return joined;
}

}  // namespace recurlab::metrics
