// The parallel-corpus loader on the real Multi30k files and on malformed ones.
#include "tasks/mt/parallel_corpus.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "tests/support/required.h"
#include "tests/support/temp_root.h"

namespace fs = std::filesystem;
using namespace recurlab::experiments;

namespace {

const std::string kMulti30k = "../shared/data/multi30k";

std::string temp(const std::string& name, const std::string& content) {
  const auto dir = recurlab::testing::perProcessTempPath("recurlab_parallel_corpus_test_");
  fs::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

std::string errorOf(const std::string& a, const std::string& b,
                    EmptyLinePolicy policy = EmptyLinePolicy::Skip) {
  try {
    loadParallelCorpus(a, b, policy);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ParallelCorpus, ReadsTheRealGzippedMulti30kValidationSet) {
  RECURLAB_REQUIRE_OR_SKIP(fs::exists(kMulti30k + "/val.en.gz") ? "" : "no " + kMulti30k + "/val.en.gz");
  const auto c = loadParallelCorpus(kMulti30k + "/val.en.gz", kMulti30k + "/val.de.gz");
  EXPECT_EQ(c.lines, 1014);
  EXPECT_EQ(c.empty_pairs, 0);
  ASSERT_EQ(c.pairs.size(), 1014u);
  EXPECT_EQ(c.pairs[0].line, 1);
  EXPECT_EQ(c.pairs[0].source.rfind("A group of men", 0), 0u) << c.pairs[0].source;
  EXPECT_EQ(c.pairs[0].target.rfind("Eine Gruppe von M\xC3\xA4nnern", 0), 0u) << c.pairs[0].target;
  EXPECT_EQ(readCorpusLines(kMulti30k + "/test_2016_flickr.de.gz").size(), 1000u);
}

TEST(ParallelCorpus, DifferentLineCountsNameBothFilesAndCounts) {
  const auto a = temp("three.en", "a\nb\nc\n"), b = temp("two.de", "x\ny\n");
  const auto e = errorOf(a, b);
  EXPECT_NE(e.find(a + " has 3 lines"), std::string::npos) << e;
  EXPECT_NE(e.find(b + " has 2"), std::string::npos) << e;
}

TEST(ParallelCorpus, EmptyLinesAreSkippedAndCountedOrAnError) {
  const auto a = temp("gaps.en", "\xEF\xBB\xBFone\r\n\ntwo\nthree\n"),
             b = temp("gaps.de", "eins\nzwei\n  \ndrei\n");
  const auto c = loadParallelCorpus(a, b);
  EXPECT_EQ(c.lines, 4);
  EXPECT_EQ(c.empty_pairs, 2);
  ASSERT_EQ(c.pairs.size(), 2u);
  EXPECT_EQ(c.pairs[0].source, "one");  // BOM and \r dropped
  EXPECT_EQ(c.pairs[1].source, "three");
  EXPECT_EQ(c.pairs[1].line, 4);
  const auto e = errorOf(a, b, EmptyLinePolicy::Error);
  EXPECT_NE(e.find(a + ":2: an empty sentence"), std::string::npos) << e;
}

TEST(ParallelCorpus, MissingCorruptAndBinaryFilesAreErrorsNamingThem) {
  const auto good = temp("good.en", "a\n");
  EXPECT_NE(errorOf(good, "/nonexistent/x.de").find("cannot open /nonexistent/x.de"),
            std::string::npos);
  // A gzip header followed by garbage.
  const auto bad = temp("bad.de.gz", std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage", 18));
  EXPECT_NE(errorOf(good, bad).find(bad + ": not a readable gzip file"), std::string::npos)
      << errorOf(good, bad);
  const auto nul = temp("nul.de", std::string("a\0b\n", 4));
  EXPECT_NE(errorOf(good, nul).find(nul + ":1: a NUL byte"), std::string::npos);
}

TEST(ParallelCorpus, PlainAndGzipFilesReadTheSame) {
  const std::string text = "Ein Hund.\nZwei Hunde.\n";
  const auto plain = temp("same.de", text);
  const auto gz = (recurlab::testing::perProcessTempPath("recurlab_parallel_corpus_test_") / "same.de.gz").string();
  gzFile f = gzopen(gz.c_str(), "wb");
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  EXPECT_EQ(readCorpusLines(plain), readCorpusLines(gz));
  EXPECT_EQ(readCorpusLines(gz).size(), 2u);
}
