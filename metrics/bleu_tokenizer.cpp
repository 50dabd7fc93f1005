#include "metrics/bleu_tokenizer.h"

#include <stdexcept>

#include "metrics/moses_nonbreaking_prefixes.h"
#include "metrics/moses_tokenizer.h"
#include "metrics/tokenizer_13a.h"
#include "metrics/tokenizer_intl.h"
#include "metrics/tokenizer_zh.h"
#include "metrics/unicode_text.h"

namespace recurlab::metrics {
namespace {

std::string tokenizeChar(std::string_view line) {
  const std::u32string text = decodeUtf8(std::string(line));
  std::u32string spaced;
  spaced.reserve(text.size() * 2);
  for (size_t i = 0; i < text.size(); ++i) {
    if (i > 0) spaced += U' ';
    spaced += text[i];
  }
  return encodeUtf8(spaced);
}

}  // namespace

BleuTokenizer parseBleuTokenizer(const std::string& name) {
  if (name == "13a") return BleuTokenizer::k13a;
  if (name == "intl") return BleuTokenizer::Intl;
  if (name == "char") return BleuTokenizer::Char;
  if (name == "zh") return BleuTokenizer::Zh;
  if (name == "none") return BleuTokenizer::None;
  if (name == "moses") return BleuTokenizer::Moses;
  throw std::invalid_argument("unknown tokenizer '" + name +
                              "'; expected 13a, intl, char, zh, none or moses");
}

bool mosesTokenizerSupports(std::string_view language) {
  return hasMosesNonbreakingPrefixes(language);
}

std::string bleuTokenizerName(BleuTokenizer tokenizer, std::string_view moses_language) {
  switch (tokenizer) {
    case BleuTokenizer::k13a: return "13a";
    case BleuTokenizer::Intl: return "intl";
    case BleuTokenizer::Char: return "char";
    case BleuTokenizer::Zh: return "zh";
    case BleuTokenizer::None: return "none";
    case BleuTokenizer::Moses: return "moses-" + std::string(moses_language);
  }
  return "";
}

std::string tokenizeForBleu(std::string_view line, BleuTokenizer tokenizer,
                            std::string_view moses_language) {
  switch (tokenizer) {
    case BleuTokenizer::k13a: return tokenize13a(line);
    case BleuTokenizer::Intl: return tokenizeIntl(line);
    case BleuTokenizer::Char: return tokenizeChar(line);
    case BleuTokenizer::Zh: return tokenizeZh(line);
    case BleuTokenizer::None: return std::string(line);
    case BleuTokenizer::Moses: return mosesNormalizeAndTokenize(line, moses_language);
  }
  return std::string(line);
}

}  // namespace recurlab::metrics
