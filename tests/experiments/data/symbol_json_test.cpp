// Vocabulary symbols as JSON: UTF-8 stays a readable string, anything else (Latin-1 words of
// MR/CR, raw bytes of enwik8) becomes its byte values, and both read back to the same bytes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "experiments/data/symbol_json.h"
#include "experiments/data/vocabulary_file.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

TEST(SymbolJson, Utf8IsAStringAndOtherBytesAnArrayAndBothRoundTrip) {
  const std::vector<std::string> symbols = {"film", "caf\xc3\xa9", "caf\xe9", "\x80", "\xff",
                                            std::string(1, '\0'), "\n", ""};
  const auto json = symbolsToJson(symbols);
  EXPECT_EQ(json[0], "film");
  EXPECT_EQ(json[1], "caf\xc3\xa9");
  EXPECT_EQ(json[2], nlohmann::json({99, 97, 102, 233}));
  EXPECT_EQ(json[3], nlohmann::json({128}));
  EXPECT_EQ(json[4], nlohmann::json({255}));
  // The whole array can be written as JSON text (a raw Latin-1 string would throw here).
  const auto text = json.dump();
  EXPECT_EQ(symbolsFromJson(nlohmann::json::parse(text), "v.json"), symbols);
}

TEST(SymbolJson, BadEntriesNameTheFileAndTheEntry) {
  const auto bad = nlohmann::json::parse(R"(["a", [104, 256], 3])");
  try {
    symbolsFromJson(bad, "vocabulary.json: words");
    FAIL() << "byte 256 was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("vocabulary.json: words: entry 1"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("256"), std::string::npos) << e.what();
  }
  EXPECT_THROW(symbolsFromJson(nlohmann::json::parse(R"(["a", 3])"), "v"), std::runtime_error);
  EXPECT_THROW(symbolsFromJson(nlohmann::json::parse(R"({"a": 1})"), "v"), std::runtime_error);
}

TEST(VocabularyFile, LatinOneWordsRoundTripThroughTheKeptModelFile) {
  recurlab::testing::TempRoot tmp("recurlab_vocabulary_file");
  Vocabulary vocabulary;
  for (const std::string w : {"the", "na\xefve", "caf\xc3\xa9", "\xe9t\xe9"}) vocabulary.add(w);
  const auto path = (tmp.root / "vocabulary.json").string();
  writeVocabularyFile(vocabulary, path);
  const auto back = readVocabularyFile(path);
  ASSERT_EQ(back.size(), vocabulary.size());
  for (int64_t i = 0; i < vocabulary.size(); ++i) EXPECT_EQ(back.word(i), vocabulary.word(i));
  EXPECT_EQ(back.id("na\xefve"), vocabulary.id("na\xefve"));
}

}  // namespace
}  // namespace recurlab::experiments
