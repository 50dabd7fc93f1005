// Python's str.split(), rstrip() and lower() on UTF-8, as sacreBLEU relies on them.
#include "experiments/metrics/unicode_text.h"

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
