// sacreBLEU 2.6.0's tokenizers intl, char and zh (hand-derived from their rules) and the names
// BLEU knows them by.
#include "metrics/bleu_tokenizer.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "metrics/tokenizer_13a.h"
#include "metrics/tokenizer_intl.h"
#include "metrics/tokenizer_zh.h"

using namespace recurlab::metrics;

TEST(TokenizerIntl, SplitsPunctuationUnlessBetweenDigitsAndKeepsANumbersFinalPeriod) {
  // mteval-v14's known quirk: "1999." keeps its period (no padding space after the line).
  EXPECT_EQ(tokenizeIntl("U.S.A. 1,000.5 is 1999."), "U . S . A . 1,000.5 is 1999.");
  EXPECT_EQ(tokenizeIntl("costs $3.50 + 5\xE2\x82\xAC"), "costs $ 3.50 + 5 \xE2\x82\xAC");  // $ + € are symbols
}

TEST(TokenizerIntl, SplitsNonAsciiPunctuationUnlike13a) {
  // „Hallo“, sagte er…  -> „ Hallo “ , sagte er …   (13a leaves „ “ … attached)
  const std::string line = "\xE2\x80\x9EHallo\xE2\x80\x9C, sagte er\xE2\x80\xA6";
  EXPECT_EQ(tokenizeIntl(line), "\xE2\x80\x9E Hallo \xE2\x80\x9C , sagte er \xE2\x80\xA6");
  EXPECT_EQ(tokenize13a(line), "\xE2\x80\x9EHallo\xE2\x80\x9C , sagte er\xE2\x80\xA6");
  EXPECT_EQ(tokenizeIntl(""), "");
}

TEST(TokenizerZh, SplitsChineseCharactersThenApplies13aRulesWithoutPadding) {
  // 我爱北京。 -> every character alone (。 is CJK punctuation).
  EXPECT_EQ(tokenizeZh("\xE6\x88\x91\xE7\x88\xB1\xE5\x8C\x97\xE4\xBA\xAC\xE3\x80\x82"),
            "\xE6\x88\x91 \xE7\x88\xB1 \xE5\x8C\x97 \xE4\xBA\xAC \xE3\x80\x82");
  // AI技术,很好.  -> Latin runs stay whole, ASCII punctuation by 13a's rules.
  EXPECT_EQ(tokenizeZh(" AI\xE6\x8A\x80\xE6\x9C\xAF,\xE5\xBE\x88\xE5\xA5\xBD. "),
            "AI \xE6\x8A\x80 \xE6\x9C\xAF , \xE5\xBE\x88 \xE5\xA5\xBD .");
  // Without 13a's padding a final "5." stays whole; 13a splits it.
  EXPECT_EQ(tokenizeZh("5."), "5.");
  EXPECT_EQ(tokenize13a("5."), "5 .");
}

TEST(TokenizerZh, UsesTheRangesPythonEvaluates) {
  // sacreBLEU's '\u20000' is U+2000 followed by '0': its range is U+2001-U+2A6D, so an en dash
  // (U+2013) is split off and U+20000 (CJK Extension B) is not.
  EXPECT_TRUE(isSacreBleuChineseCharacter(0x2013));
  EXPECT_FALSE(isSacreBleuChineseCharacter(0x2000));
  EXPECT_TRUE(isSacreBleuChineseCharacter(0x2A6D));
  EXPECT_FALSE(isSacreBleuChineseCharacter(0x20000));
  EXPECT_TRUE(isSacreBleuChineseCharacter(0x2F81));
  EXPECT_FALSE(isSacreBleuChineseCharacter(0x2F800));
  EXPECT_EQ(tokenizeZh("a\xE2\x80\x93" "b"), "a \xE2\x80\x93 b");
}

TEST(BleuTokenizer, CharSeparatesEveryCodePoint) {
  EXPECT_EQ(tokenizeForBleu("F\xC3\xBC\xC3\x9F a", BleuTokenizer::Char, "en"), "F \xC3\xBC \xC3\x9F   a");
  EXPECT_EQ(tokenizeForBleu("", BleuTokenizer::Char, "en"), "");
}

TEST(BleuTokenizer, NamesAndUnknownNames) {
  for (const char* name : {"13a", "intl", "char", "zh", "none"})
    EXPECT_EQ(bleuTokenizerName(parseBleuTokenizer(name), "en"), name);
  EXPECT_EQ(bleuTokenizerName(parseBleuTokenizer("moses"), "de"), "moses-de");
  try {
    parseBleuTokenizer("ja-mecab");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'ja-mecab'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("13a, intl, char, zh, none or moses"), std::string::npos);
  }
  EXPECT_EQ(tokenizeForBleu("a.b", BleuTokenizer::None, "en"), "a.b");
}
