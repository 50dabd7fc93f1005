// Joint sentencepiece subwords trained on a slice of the real Multi30k validation text: special
// ids, determinism, detokenized round trips, and the errors of a missing or mismatched model.
#include "tasks/mt/subword_model.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tasks/mt/parallel_corpus.h"
#include "tests/support/required.h"
#include "tests/support/temp_root.h"

namespace fs = std::filesystem;
using namespace recurlab::experiments;

namespace {

const std::string kMulti30k = "../shared/data/multi30k";

std::vector<std::string> valText() {
  const auto c = loadParallelCorpus(kMulti30k + "/val.en.gz", kMulti30k + "/val.de.gz");
  std::vector<std::string> text;
  for (const auto& p : c.pairs) {
    text.push_back(p.source);
    text.push_back(p.target);
  }
  return text;
}

std::string bytesOf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path tempDir() {
  const auto dir = recurlab::testing::perProcessTempPath("recurlab_subword_model_test_");
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST(SubwordModel, TrainsDeterministicallyWithFixedSpecialIds) {
  RECURLAB_REQUIRE_OR_SKIP(SubwordModel::unavailableReason());
  RECURLAB_REQUIRE_OR_SKIP(fs::exists(kMulti30k + "/val.en.gz") ? "" : "no " + kMulti30k + "/val.en.gz");
  const auto text = valText();
  const auto dir = tempDir();
  SubwordOptions options;
  options.vocabulary_size = 500;
  const auto a = SubwordModel::train(text, options, (dir / "a.model").string());
  const auto b = SubwordModel::train(text, options, (dir / "b.model").string());
  EXPECT_EQ(bytesOf(a.path()), bytesOf(b.path()));
  EXPECT_EQ(a.size(), 500);
  EXPECT_EQ(a.padId(), 0);
  EXPECT_EQ(a.unkId(), 1);
  EXPECT_EQ(a.bosId(), 2);
  EXPECT_EQ(a.eosId(), 3);
  // Detokenized output: decode(encode(x)) gives x back, up to sentencepiece's NFKC
  // normalisation, which turns the no-break space (U+00A0) of one German line into a space.
  int no_break_lines = 0;
  for (const auto& line : text) {
    const auto ids = a.encode(line);
    for (auto id : ids) ASSERT_GT(id, 3) << "a special id inside a sentence";
    std::string expected = line;
    for (size_t at; (at = expected.find("\xC2\xA0")) != std::string::npos;) {
      expected.replace(at, 2, " ");
      ++no_break_lines;
    }
    EXPECT_EQ(a.decode(ids), expected);
  }
  EXPECT_EQ(no_break_lines, 1);
  EXPECT_EQ(a.decode(a.encode("Zwei Männer spielen Fußball.")), "Zwei Männer spielen Fußball.");
}

TEST(SubwordModel, ReusesAStoredModelAndRejectsAMismatchedOne) {
  RECURLAB_REQUIRE_OR_SKIP(SubwordModel::unavailableReason());
  RECURLAB_REQUIRE_OR_SKIP(fs::exists(kMulti30k + "/val.en.gz") ? "" : "no " + kMulti30k + "/val.en.gz");
  const auto text = valText();
  const auto path = (tempDir() / "joint.model").string();
  SubwordOptions options;
  options.vocabulary_size = 400;
  const auto first = SubwordModel::loadOrTrain(text, options, path);
  const auto stored = bytesOf(path);
  // On resume the stored file is loaded, not retrained (training on other text would differ).
  const auto again = SubwordModel::loadOrTrain({"x y z"}, options, path);
  EXPECT_EQ(bytesOf(path), stored);
  EXPECT_EQ(again.encode("Ein Hund"), first.encode("Ein Hund"));
  options.vocabulary_size = 600;
  try {
    SubwordModel::loadOrTrain(text, options, path);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path + " has 400 pieces"), std::string::npos) << what;
    EXPECT_NE(what.find("vocabulary_size = 600"), std::string::npos) << what;
  }
}

TEST(SubwordModel, MissingOrBrokenModelFilesAreErrorsNamingThem) {
  const auto dir = tempDir();
  try {
    SubwordModel::load((dir / "none.model").string());
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "none.model").string() + " not found"),
              std::string::npos);
  }
  SubwordOptions options;
  options.type = "wordpiece";
  EXPECT_THROW(SubwordModel::train({"a b"}, options, (dir / "x.model").string()),
               std::invalid_argument);
  // A build that cannot load the sentencepiece module (AddressSanitizer) says why instead of
  // dying inside dlopen; a normal build loads it and names the broken file.
  const auto why = SubwordModel::unavailableReason();
  const auto broken = (dir / "broken.model").string();
  std::ofstream(broken) << "not a model";
  try {
    SubwordModel::load(broken);
    FAIL() << "a broken model loaded";
  } catch (const std::runtime_error& e) {
    if (why.empty())
      EXPECT_NE(std::string(e.what()).find(broken + " cannot be loaded"), std::string::npos)
          << e.what();
    else
      EXPECT_EQ(std::string(e.what()), why);
  }
}
