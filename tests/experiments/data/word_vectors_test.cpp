#include "experiments/data/word_vectors.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

class WordVectorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = recurlab::testing::perProcessTempPath(
        "recurlab-wv-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
        "-");
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& bytes) {
    const std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  // word2vec's binary layout: header line, then "word " + D little-endian float32 (+ "\n").
  std::string binary(const std::vector<std::pair<std::string, std::vector<float>>>& entries,
                     size_t dim, bool newline_after = true) {
    std::string s = std::to_string(entries.size()) + " " + std::to_string(dim) + "\n";
    for (const auto& [w, v] : entries) {
      s += w + " ";
      s.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
      if (newline_after) s += "\n";
    }
    return s;
  }
  fs::path dir_;
};

void expectVector(const WordVectors& wv, const std::string& word, const std::vector<float>& v) {
  const auto i = wv.find(word);
  ASSERT_TRUE(i.has_value()) << word;
  for (size_t j = 0; j < v.size(); ++j) EXPECT_FLOAT_EQ(wv.vector(*i)[j], v[j]) << word;
}

TEST_F(WordVectorsTest, ReadsWord2VecBinary) {
  for (bool nl : {true, false}) {
    const auto p = write("v.bin", binary({{"the", {0.5f, -1.0f, 10.0f}},
                                          {"cat", {1e-3f, 2.0f, -0.25f}}},
                                         3, nl));
    const auto wv = loadWordVectors(p);
    EXPECT_EQ(wv.format, WordVectorFormat::Word2VecBinary);
    EXPECT_EQ(wv.dim, 3);
    EXPECT_EQ(wv.size(), 2);
    expectVector(wv, "the", {0.5f, -1.0f, 10.0f});
    expectVector(wv, "cat", {1e-3f, 2.0f, -0.25f});
  }
}

TEST_F(WordVectorsTest, ReadsWord2VecTextAndGlove) {
  const auto w2v = loadWordVectors(write("v.txt", "2 3\nthe 0.5 -1 10\ncat 0.001 2 -0.25\n"));
  EXPECT_EQ(w2v.format, WordVectorFormat::Word2VecText);
  expectVector(w2v, "cat", {0.001f, 2.0f, -0.25f});
  const auto glove = loadWordVectors(write("g.txt", "the 0.5 -1 10 4\r\ncat 0.001 2 -0.25 4\n"));
  EXPECT_EQ(glove.format, WordVectorFormat::GloveText);
  EXPECT_EQ(glove.dim, 4);
  expectVector(glove, "the", {0.5f, -1.0f, 10.0f, 4.0f});
}

TEST_F(WordVectorsTest, KeepsOnlyTheVocabularyAndTheFirstDuplicate) {
  const std::unordered_set<std::string> vocab{"cat", "dog"};
  WordVectorLoadOptions o;
  o.vocabulary = &vocab;
  const auto wv =
      loadWordVectors(write("v.txt", "3 2\nthe 1 1\ncat 2 2\ncat 3 3\n"), o);
  EXPECT_EQ(wv.size(), 1);
  expectVector(wv, "cat", {2, 2});
  EXPECT_FALSE(wv.find("the"));
}

void expectError(const std::string& path, const std::vector<std::string>& fragments) {
  try {
    loadWordVectors(path);
    FAIL() << "no error for " << path;
  } catch (const std::runtime_error& e) {
    for (const auto& f : fragments)
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what() << " lacks " << f;
  }
}

TEST_F(WordVectorsTest, MalformedFilesNameFileAndLine) {
  const auto wrong_count = write("a.txt", "2 3\nthe 1 2 3\ncat 1 2\n");
  expectError(wrong_count, {wrong_count + ":3", "expected 3 values", "'cat'", "got 2"});
  const auto not_number = write("b.txt", "the 1 2\ncat 1 x2\n");
  expectError(not_number, {not_number + ":2", "'x2'", "not a number"});
  const auto short_file = write("c.txt", "3 2\nthe 1 2\ncat 1 2\n");
  expectError(short_file, {"announces 3", "has 2"});
  const auto truncated = binary({{"the", {1, 2, 3}}, {"cat", {4, 5, 6}}}, 3);
  const auto trunc_path = write("d.bin", truncated.substr(0, truncated.size() - 6));
  expectError(trunc_path, {trunc_path + ":entry 2", "'cat'", "file ends"});
  expectError(write("e.txt", ""), {"empty"});
  expectError((dir_ / "absent.bin").string(), {"absent.bin", "cannot open"});
}

// The same TextLines rule as the sentence loader: BOM dropped, CRLF cut, blank lines skipped
// (and counted), in every text format and before a binary file's header.
TEST_F(WordVectorsTest, ByteOrderMarkCrlfAndBlankLinesReadLikeAPlainFile) {
  const std::string bom = "\xEF\xBB\xBF";
  for (const auto& [plain, odd] : std::vector<std::pair<std::string, std::string>>{
           {"2 3\nthe 0.5 -1 10\ncat 0.001 2 -0.25\n",
            bom + "2 3\r\n\r\nthe 0.5 -1 10\r\n \t\r\ncat 0.001 2 -0.25\r\n\n"},
           {"the 0.5 -1 10\ncat 0.001 2 -0.25\n",
            bom + "\n\nthe 0.5 -1 10\r\n\r\ncat 0.001 2 -0.25"}}) {
    const auto a = loadWordVectors(write("plain.txt", plain));
    const auto b = loadWordVectors(write("odd.txt", odd));
    EXPECT_EQ(b.format, a.format);
    EXPECT_EQ(b.words, a.words);
    EXPECT_EQ(b.values, a.values);
  }
  const auto bin = binary({{"the", {0.5f, -1.0f, 10.0f}}, {"cat", {1e-3f, 2.0f, -0.25f}}}, 3);
  const auto wv = loadWordVectors(write("bom.bin", bom + bin));
  EXPECT_EQ(wv.format, WordVectorFormat::Word2VecBinary);
  expectVector(wv, "cat", {1e-3f, 2.0f, -0.25f});
  // Line numbers count the blank lines: the bad entry is on line 4.
  const auto bad = write("bad.txt", bom + "2 3\r\n\r\nthe 1 2 3\r\ncat 1 2\r\n");
  expectError(bad, {bad + ":4", "'cat'", "got 2"});
  expectError(write("blank.txt", bom + "\n \n\r\n"), {"empty"});
}

TEST_F(WordVectorsTest, HugeHeaderDimensionIsAnErrorNotAnAllocation) {
  const auto p = write("huge.bin", "2 99999999999\nthe 1\n");
  expectError(p, {p + ":1", "dimension 99999999999", "more than 100000"});
}

}  // namespace
}  // namespace recurlab::experiments
