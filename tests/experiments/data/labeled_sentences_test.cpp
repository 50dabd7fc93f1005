#include "experiments/data/labeled_sentences.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "experiments/data/classification_datasets.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;
const std::string kShared = "../shared/data";

std::string writeTemp(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / "recurlab_labeled_sentences_test";
  fs::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

std::string errorOf(const std::string& path, EmptySentencePolicy policy) {
  try {
    readLabeledSentences(path, policy);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(LabeledSentences, ReadsRealFilesWithTheirKnownSizes) {
  if (!fs::exists(kShared + "/classification/rt-polarity.all")) GTEST_SKIP() << "no ../shared/data";
  const auto mr = readLabeledSentences(kShared + "/classification/rt-polarity.all");
  EXPECT_EQ(mr.examples.size(), 10662u);  // Kim (2014) Table 1: MR has 10662 sentences
  EXPECT_TRUE(mr.warnings.empty());
  // CR's official file has 3775 lines, four of them a label without a sentence.
  const auto cr = readLabeledSentences(kShared + "/classification/custrev.all");
  EXPECT_EQ(cr.examples.size(), 3771u);
  ASSERT_EQ(cr.warnings.size(), 4u);
  EXPECT_NE(cr.warnings[0].find("custrev.all:769:"), std::string::npos) << cr.warnings[0];
  const auto trec = loadClassificationData(kShared, "TREC");
  EXPECT_EQ(trec.train.size(), 5452u);
  EXPECT_EQ(trec.test.size(), 500u);
  EXPECT_EQ(trec.num_classes, 6);
  const auto sst5 = loadClassificationData(kShared, "SST-5");
  EXPECT_EQ(sst5.num_classes, 5);
  EXPECT_EQ(sst5.dev.size(), 1101u);
}

TEST(LabeledSentences, MalformedLinesNameFileAndLine) {
  const auto no_label = writeTemp("no_label.txt", "1 a fine film\n\n0 dull\n");
  EXPECT_NE(errorOf(no_label, EmptySentencePolicy::Skip).find("no_label.txt:2: empty line, no label"),
            std::string::npos);
  const auto bad_label = writeTemp("bad_label.txt", "1 ok\n0 fine\npositive great film\n");
  const auto e = errorOf(bad_label, EmptySentencePolicy::Skip);
  EXPECT_NE(e.find("bad_label.txt:3: label 'positive' is not a non-negative integer"), std::string::npos) << e;
  EXPECT_NE(errorOf(writeTemp("neg.txt", "-1 bad\n"), EmptySentencePolicy::Skip).find("neg.txt:1:"),
            std::string::npos);
  const auto empty = writeTemp("empty_sentence.txt", "1 ok\n0   \n1 good\n");
  EXPECT_NE(errorOf(empty, EmptySentencePolicy::Error).find("empty_sentence.txt:2: label 0 has an empty sentence"),
            std::string::npos);
  const auto skipped = readLabeledSentences(empty, EmptySentencePolicy::Skip);
  EXPECT_EQ(skipped.examples.size(), 2u);
  ASSERT_EQ(skipped.warnings.size(), 1u);
  EXPECT_NE(skipped.warnings[0].find("empty_sentence.txt:2:"), std::string::npos);
  EXPECT_NE(errorOf(writeTemp("none.txt", ""), EmptySentencePolicy::Skip).find("no examples"),
            std::string::npos);
}

TEST(ClassificationDatasets, MissingDatasetSaysHowToGetIt) {
  try {
    loadClassificationData("/nonexistent-data", "MR");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("/nonexistent-data/classification/rt-polarity.all not found"), std::string::npos) << what;
    EXPECT_NE(what.find("scripts/get-data.sh"), std::string::npos) << what;
  }
  EXPECT_THROW(classificationDataset("IMDB"), std::invalid_argument);
}

TEST(ClassificationDatasets, FoldsPartitionTheDataAndAreFixedBySeed) {
  ClassificationData data;
  data.spec = classificationDataset("MR");
  data.num_classes = 2;
  for (int i = 0; i < 103; ++i) data.all.push_back({i % 2, {"w" + std::to_string(i)}});
  std::multiset<std::string> tests;
  for (int fold = 0; fold < 10; ++fold) {
    const auto s = makeClassificationSplit(data, fold, 10, 7);
    EXPECT_EQ(s.train.size() + s.dev.size() + s.test.size(), 103u);
    EXPECT_NEAR(static_cast<double>(s.dev.size()), 0.1 * (103 - s.test.size()), 1.0);
    for (const auto& e : s.test) tests.insert(e.tokens[0]);
    const auto again = makeClassificationSplit(data, fold, 10, 7);
    ASSERT_EQ(again.test.size(), s.test.size());
    for (size_t i = 0; i < s.test.size(); ++i) EXPECT_EQ(again.test[i].tokens, s.test[i].tokens);
  }
  EXPECT_EQ(tests.size(), 103u);  // every example is in exactly one test fold
  EXPECT_EQ(std::set<std::string>(tests.begin(), tests.end()).size(), 103u);
  const auto other = makeClassificationSplit(data, 0, 10, 8);
  const auto first = makeClassificationSplit(data, 0, 10, 7);
  bool differs = false;
  for (size_t i = 0; i < std::min(other.test.size(), first.test.size()); ++i)
    differs = differs || other.test[i].tokens != first.test[i].tokens;
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace recurlab::experiments
