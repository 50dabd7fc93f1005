// Python's str.split(), rstrip() and lower() on UTF-8, as sacreBLEU relies on them; code points
// and character classes, as the SQuAD evaluator and tokenizer rely on them.
#include "metrics/unicode_text.h"

#include <gtest/gtest.h>

using namespace recurlab::metrics;

TEST(UnicodeText, SplitsOnPythonWhitespaceIncludingNoBreakSpace) {
  const std::vector<std::string> expected = {"a", "b", "c", "d", "e"};
  // tab, U+00A0, U+2009 (thin space), U+3000, and U+001F (a separator Python counts).
  EXPECT_EQ(splitPythonWhitespace(" a\tb\xC2\xA0" "c\xE2\x80\x89" "d\xE3\x80\x80\x1F" "e  "),
            expected);
  EXPECT_TRUE(splitPythonWhitespace(" \xC2\xA0 ").empty());
  // U+200B (zero width space) is not whitespace for Python.
  EXPECT_EQ(splitPythonWhitespace("a\xE2\x80\x8B" "b").size(), 1u);
}

TEST(UnicodeText, RstripRemovesUnicodeWhitespaceOnly) {
  EXPECT_EQ(rstripPythonWhitespace("Hund.\xC2\xA0\r\n"), "Hund.");
  EXPECT_EQ(rstripPythonWhitespace("  x"), "  x");
  EXPECT_EQ(rstripPythonWhitespace(""), "");
}

TEST(UnicodeText, LowercasesLikePython) {
  EXPECT_EQ(pythonLower("Zwei MÄNNER Über ÖL"), "zwei männer über öl");
  EXPECT_EQ(pythonLower("\xE1\xBA\x9E"), "\xC3\x9F");        // ẞ -> ß
  EXPECT_EQ(pythonLower("\xC4\xB0"), "i\xCC\x87");           // İ -> i + U+0307
  EXPECT_EQ(pythonLower("\xCE\x9F\xCE\x94\xCE\x9F\xCE\xA3"),  // ΟΔΟΣ -> οδος, final sigma
            "\xCE\xBF\xCE\xB4\xCE\xBF\xCF\x82");
  EXPECT_EQ(pythonLower("\xCE\xA3\xCE\x91"), "\xCF\x83\xCE\xB1");  // ΣΑ -> σα
  EXPECT_EQ(pythonLower("ok\xFF"), "ok\xFF");  // an invalid byte is kept
}

TEST(UnicodeText, DecodesAndRejectsMalformedUtf8) {
  EXPECT_EQ(decodeUtf8("a\xc5\x81\xe2\x80\x93\xf0\x9f\x98\x80"), std::u32string(U"a\u0141\u2013\U0001F600"));
  EXPECT_EQ(encodeUtf8(U"a\u0141\u2013\U0001F600"), "a\xc5\x81\xe2\x80\x93\xf0\x9f\x98\x80");
  EXPECT_THROW(decodeUtf8("\xc5"), std::invalid_argument);        // truncated
  EXPECT_THROW(decodeUtf8("\xc0\xaf"), std::invalid_argument);    // overlong
  EXPECT_THROW(decodeUtf8("\xed\xa0\x80"), std::invalid_argument);  // surrogate
  EXPECT_EQ(byteOffsetOfCodePoint("\xc5\x81" "ab", 1), 2);
  EXPECT_EQ(byteOffsetOfCodePoint("\xc5\x81" "ab", 3), 4);
  EXPECT_EQ(byteOffsetOfCodePoint("\xc5\x81" "ab", 4), -1);
}

TEST(UnicodeText, LowercasesAroundInvalidBytesAndKeepsThem) {
  // ICU lowers the well-formed runs; the bytes between them stay as they were.
  EXPECT_EQ(pythonLower("\xC3\x84" "B\xFF" "\xC3\x96" "C"), "\xC3\xA4" "b\xFF" "\xC3\xB6" "c");  // ÄB?ÖC
  EXPECT_EQ(pythonLower("\xC0\xAF" "X"), "\xC0\xAF" "x");  // an overlong sequence is invalid
  EXPECT_EQ(pythonLower(""), "");
}

TEST(UnicodeText, WordCharactersAndCategoriesFollowPython) {
  EXPECT_TRUE(isPythonWordChar(U'_'));
  EXPECT_TRUE(isPythonWordChar(U'\u00E9'));   // é
  EXPECT_TRUE(isPythonWordChar(U'\u0663'));   // Arabic-Indic digit three
  EXPECT_TRUE(isPythonWordChar(U'\u4E09'));   // 三, numeric ideograph
  EXPECT_FALSE(isPythonWordChar(U'-'));
  EXPECT_FALSE(isPythonWordChar(U'\u2013'));  // en dash
  EXPECT_TRUE(isLetterMarkOrNumber(U'\u0301'));  // combining acute accent (Mn)
  EXPECT_FALSE(isLetterMarkOrNumber(U'.'));
  EXPECT_TRUE(isSeparatorOrOther(U'\u00A0'));  // no-break space (Zs)
  EXPECT_TRUE(isSeparatorOrOther(U'\u200B'));  // zero width space (Cf)
  EXPECT_FALSE(isSeparatorOrOther(U'a'));
}
