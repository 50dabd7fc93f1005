// 13a tokenization: the verified examples of sacreBLEU 2.6.0.
#include "metrics/tokenizer_13a.h"

#include <gtest/gtest.h>

using recurlab::metrics::tokenize13a;

TEST(Tokenizer13a, SplitsSymbolsButKeepsNumbersAndHyphenatedWords) {
  EXPECT_EQ(tokenize13a("well-known 3-4 1,000.5 U.S.A. costs $3.50!"),
            "well-known 3 - 4 1,000.5 U . S . A . costs $ 3.50 !");
}

TEST(Tokenizer13a, UnescapesOnlyFourEntities) {
  EXPECT_EQ(tokenize13a("&quot;Hi&quot;, she said."), "\" Hi \" , she said .");
  EXPECT_EQ(tokenize13a("a &amp; b &lt;c&gt;"), "a & b < c >");
  EXPECT_EQ(tokenize13a("it&apos;s"), "it & apos ; s");
}

TEST(Tokenizer13a, KeepsApostrophesAndDoubleHyphens) {
  EXPECT_EQ(tokenize13a("It's -- ok"), "It's -- ok");
}

TEST(Tokenizer13a, PeriodsAndCommasAgainstDigits) {
  EXPECT_EQ(tokenize13a("end..."), "end . . .");
  EXPECT_EQ(tokenize13a("5.x x.5"), "5 . x x . 5");
  EXPECT_EQ(tokenize13a("km/h; 10-20%"), "km / h ; 10 - 20 %");
}

TEST(Tokenizer13a, LeavesNonAsciiPunctuationAndSkippedMarks) {
  // „ “ ” – … ’ are not split; <skipped> is deleted; a no-break space separates tokens.
  EXPECT_EQ(tokenize13a("\xE2\x80\x9E" "Ja\xE2\x80\x9C <skipped>sagte er\xE2\x80\xA6"),
            "\xE2\x80\x9E" "Ja\xE2\x80\x9C sagte er\xE2\x80\xA6");
  EXPECT_EQ(tokenize13a("Ein\xC2\xA0Hund."), "Ein Hund .");
  EXPECT_EQ(tokenize13a(""), "");
}
