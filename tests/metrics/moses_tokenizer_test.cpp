// Moses normalize-punctuation + tokenizer as the Multi30k tokenized files were made; the
// expected lines are what the Moses scripts of that snapshot print for the lowercased input.
#include "metrics/moses_tokenizer.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <stdexcept>

#include "metrics/corpus_bleu.h"
#include "metrics/unicode_text.h"
#include "tests/support/required.h"

using namespace recurlab::metrics;

namespace {
std::string mosesLc(const std::string& line, const std::string& language) {
  return mosesNormalizeAndTokenize(pythonLower(line), language);
}
}  // namespace

TEST(MosesTokenizer, GermanQuotesAbbreviationsOrdinalsAndEscaping) {
  // „Hallo“, sagte er.
  EXPECT_EQ(mosesLc("\xE2\x80\x9EHallo\xE2\x80\x9C, sagte er.", "de"),
            "&quot; hallo &quot; , sagte er .");
  EXPECT_EQ(mosesLc("Ein Mann (mit Hut) l\xC3\xA4uft z.B. 3,5 km weit...", "de"),
            "ein mann ( mit hut ) l\xC3\xA4uft z.b. 3,5 km weit ...");
  EXPECT_EQ(mosesLc("Er kam am 3. Oktober um 10 Uhr an.", "de"), "er kam am 3. oktober um 10 uhr an .");
  // German non-breaking prefixes, matched case-sensitively after lowercasing: "ca" is listed,
  // "nr" is not ("Nr" is), and 1-99 are, so a sentence-final "8." stays whole.
  EXPECT_EQ(mosesLc("Ca. 5 Meter weit, ca. 3 km.", "de"), "ca. 5 meter weit , ca. 3 km .");
  EXPECT_EQ(mosesLc("Er sah Nr. 7 und No. 8.", "de"), "er sah nr . 7 und no . 8.");
  EXPECT_EQ(mosesLc("A man & a woman <3 [sic] | ok", "de"),
            "a man &amp; a woman &lt; 3 &#91; sic &#93; &#124; ok");
  EXPECT_EQ(mosesLc("Sie sagte: \"Komm her.\"", "de"), "sie sagte : &quot; komm her &quot; .");
}

TEST(MosesTokenizer, NormalizationOfUnicodePunctuationAndNoBreakSpaces) {
  // 1 000 with a no-break space is a thousands separator (',' in German, '.' in English).
  EXPECT_EQ(mosesLc("Preis 1\xC2\xA0" "000 Euro, 5\xC2\xA0% und 3 000", "de"),
            "preis 1,000 euro , 5 % und 3 000");
  EXPECT_EQ(mosesLc("Preis 1\xC2\xA0" "000 Euro", "en"), "preis 1.000 euro");
  // «Ja », sagte er : gut !  (French quotes, no-break spaces before punctuation)
  EXPECT_EQ(mosesLc("\xC2\xAB" "Ja\xC2\xA0\xC2\xBB, sagte er\xC2\xA0: gut\xC2\xA0!", "de"),
            "&quot; ja &quot; , sagte er : gut !");
  // Er sagte: „Nein“. Dann… ging er — weg.
  EXPECT_EQ(mosesLc("Er sagte: \xE2\x80\x9ENein\xE2\x80\x9C. Dann\xE2\x80\xA6 ging er \xE2\x80\x94 weg.", "de"),
            "er sagte : &quot; nein &quot; . dann ... ging er - weg .");
  // Whitespace runs and control characters.
  EXPECT_EQ(mosesLc("A\tB  C\x01" "D \xC2\xA0 e", "de"), "a b cd e");
  EXPECT_EQ(mosesLc("  \xC2\xA0 ", "de"), "");
}

TEST(MosesTokenizer, EnglishApostrophesAndQuotationStyle) {
  EXPECT_EQ(mosesLc("It's a dog's life, isn't it?", "en"),
            "it &apos;s a dog &apos;s life , isn &apos;t it ?");
  EXPECT_EQ(mosesLc("It's", "de"), "it &apos; s");
  EXPECT_EQ(mosesLc("He said \"yes\".", "en"), "he said &quot; yes . &quot;");
  EXPECT_EQ(mosesLc("He said \"yes\".", "de"), "he said &quot; yes &quot; .");
  // "No." stays before a number only (English list); a lowercase next word keeps any period.
  EXPECT_EQ(mosesLc("The U.S. team won 2 - 1... No. 5 ran.", "en"),
            "the u.s. team won 2 - 1 ... no . 5 ran .");
  EXPECT_EQ(mosesTokenize("No. 5 ran.", "en"), "No. 5 ran .");
  EXPECT_EQ(mosesTokenize("No. Five ran.", "en"), "No . Five ran .");
}

TEST(MosesTokenizer, UnsupportedLanguageIsAnError) {
  try {
    mosesTokenize("x", "fr");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'fr'"), std::string::npos) << e.what();
  }
}

TEST(MosesTokenizer, Multi30kTest2016GermanReferenceHasThePublishedTokenCount) {
  // The papers' reference length on test2016 (En-De): 12,103 tokens after lowercasing and the
  // Moses scripts; sacreBLEU's 13a on the raw text counts 12,106.
  std::filesystem::path path = "data/multi30k/test_2016_flickr.de.gz";
  if (!std::filesystem::exists(path)) path = "../shared/data/multi30k/test_2016_flickr.de.gz";
  RECURLAB_REQUIRE_OR_SKIP(std::filesystem::exists(path) ? "" : "no Multi30k test2016 German file (scripts/get-data.sh multi30k)");
  gzFile file = gzopen(path.c_str(), "rb");
  ASSERT_NE(file, nullptr);
  std::vector<std::string> lines;
  std::string line;
  char buffer[4096];
  while (gzgets(file, buffer, sizeof buffer) != nullptr) {
    line += buffer;
    if (!line.empty() && line.back() == '\n') {
      line.pop_back();
      lines.push_back(line);
      line.clear();
    }
  }
  gzclose(file);
  if (!line.empty()) lines.push_back(line);
  ASSERT_EQ(lines.size(), 1000u);
  const auto tokenized = tokenizedLowercasedBleuOptions("de");
  const auto self = corpusBleu(lines, {lines}, tokenized);
  EXPECT_EQ(self.statistics.reference_length, 12103);
  EXPECT_NEAR(self.score, 100.0, 1e-9);
  EXPECT_EQ(corpusBleu(lines, {lines}).statistics.reference_length, 12106);
}
