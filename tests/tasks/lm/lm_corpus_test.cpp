// The LM corpus loader on hand-made texts, on the real PTB files (counts measured in the
// reference note, docs/lm.md) and on malformed input.
#include "tasks/lm/lm_corpus.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/required.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

using recurlab::testing::TempRoot;

// Writes `text` to the file `name` of the folder; returns its path.
std::string write(const TempRoot& d, const std::string& name, const std::string& text) {
  std::ofstream(d.root / name, std::ios::binary) << text;
  return (d.root / name).string();
}

std::string errorOf(const LmCorpusFiles& f) {
  try {
    loadLmCorpus(f);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(LmCorpus, WordsFollowAwdLstmLineRules) {
  // A trailing "\n " is one more (whitespace-only) line: one more <eos>, as PTB char has.
  const std::vector<std::string> want = {"a", "b", "<eos>", "c", "<eos>", "<eos>"};
  EXPECT_EQ(lmSymbols("a  b\n c \n ", LmCorpusFormat::Words, "x"), want);
  const std::vector<std::string> no_tail = {"a", "<eos>"};
  EXPECT_EQ(lmSymbols("a\n", LmCorpusFormat::Words, "x"), no_tail);
  EXPECT_TRUE(lmSymbols("", LmCorpusFormat::Words, "x").empty());
}

TEST(LmCorpus, CharsAreUtf8CharactersAndBytesAreDecimal) {
  const std::vector<std::string> chars = {"a", "\xc3\xa9", "\n", "b"};
  EXPECT_EQ(lmSymbols("a\xc3\xa9\nb", LmCorpusFormat::Chars, "x"), chars);
  const std::vector<std::string> bytes = {"97", "195", "169"};
  EXPECT_EQ(lmSymbols("a\xc3\xa9", LmCorpusFormat::Bytes, "x"), bytes);
  try {
    lmSymbols("ok\nbad \xc3(", LmCorpusFormat::Chars, "f.txt");
    FAIL() << "invalid UTF-8 accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("f.txt line 2"), std::string::npos) << e.what();
  }
}

TEST(LmCorpus, UnseenSymbolsMapToAnExplicitCountedUnknown) {
  TempRoot d("recurlab_lmcorpus");
  LmCorpusFiles f;
  f.format = LmCorpusFormat::Words;
  f.train = write(d, "train.txt", "a b a\n");
  f.valid = write(d, "valid.txt", "a z\n");
  f.test = write(d, "test.txt", "y y b\n");
  const auto c = loadLmCorpus(f);
  ASSERT_EQ(c.size(), 4);  // a b <eos> <unk>
  EXPECT_EQ(c.vocabulary[static_cast<size_t>(c.unknown_id)], "<unk>");
  EXPECT_EQ(c.unknown_valid, 1);
  EXPECT_EQ(c.unknown_test, 2);
  EXPECT_EQ(c.valid, (std::vector<int64_t>{0, c.unknown_id, 2}));
  EXPECT_EQ(c.train, (std::vector<int64_t>{0, 1, 0, 2}));
}

TEST(LmCorpus, MissingEmptyAndMalformedFilesAreErrorsNamingTheFile) {
  TempRoot d("recurlab_lmcorpus");
  LmCorpusFiles f;
  f.train = (d.root / "nope.txt").string();
  f.valid = write(d, "valid.txt", "a\n");
  f.test = write(d, "test.txt", "a\n");
  auto e = errorOf(f);
  EXPECT_NE(e.find("nope.txt not found"), std::string::npos) << e;
  EXPECT_NE(e.find("get-data.sh"), std::string::npos) << e;
  f.train = write(d, "empty.txt", "");
  e = errorOf(f);
  EXPECT_NE(e.find("empty.txt is empty"), std::string::npos) << e;
  f.format = LmCorpusFormat::Chars;
  f.train = write(d, "bin.txt", "ab\xff");
  e = errorOf(f);
  EXPECT_NE(e.find("bin.txt line 1: invalid UTF-8"), std::string::npos) << e;
  LmCorpusFiles enwik8;
  enwik8.format = LmCorpusFormat::Bytes;
  enwik8.train = write(d, "enwik8", "short");
  e = errorOf(enwik8);
  EXPECT_NE(e.find("enwik8 has 5 bytes"), std::string::npos) << e;
}

// The reference note's counts (awd-lstm-lm tokenization, <eos> per line): PTB char 5,017,483 /
// 393,043 / 442,424 symbols over 50 (train) symbols; PTB word 929,589 / 73,760 / 82,430 over
// 10,000. Neither split adds a symbol unseen in training.
TEST(LmCorpus, RealPtbFilesHaveTheReferenceCounts) {
  // The project's copy (scripts/get-data.sh ptb), else the mirror beside the checkout (as CI has).
  std::string dir;
  for (const char* d : {"data/ptb", "../shared/data/ptb"})
    if (dir.empty() && fs::exists(std::string(d) + "/ptb.char.train.txt")) dir = d;
  RECURLAB_REQUIRE_OR_SKIP(dir.empty() ? "no PTB data (scripts/get-data.sh ptb)" : "");
  LmCorpusFiles chars{LmCorpusFormat::Words, dir + "/ptb.char.train.txt",
                      dir + "/ptb.char.valid.txt", dir + "/ptb.char.test.txt", 0};
  const auto c = loadLmCorpus(chars);
  EXPECT_EQ(c.train.size(), 5017483u);
  EXPECT_EQ(c.valid.size(), 393043u);
  EXPECT_EQ(c.test.size(), 442424u);
  EXPECT_EQ(c.size(), 50);
  EXPECT_EQ(c.unknown_id, -1);
  LmCorpusFiles words{LmCorpusFormat::Words, dir + "/ptb.train.txt", dir + "/ptb.valid.txt",
                      dir + "/ptb.test.txt", 0};
  const auto w = loadLmCorpus(words);
  EXPECT_EQ(w.train.size(), 929589u);
  EXPECT_EQ(w.valid.size(), 73760u);
  EXPECT_EQ(w.test.size(), 82430u);
  EXPECT_EQ(w.size(), 10000);
  EXPECT_EQ(w.unknown_valid + w.unknown_test, 0);
  words.max_train_symbols = 1000;
  EXPECT_EQ(loadLmCorpus(words).train.size(), 1000u);
}

}  // namespace
}  // namespace recurlab::experiments
