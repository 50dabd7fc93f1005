#include "tasks/classification/labeled_sentences.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "tasks/classification/classification_datasets.h"
#include "tests/support/required.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;
const std::string kShared = "../shared/data";

std::string writeTemp(const std::string& name, const std::string& text) {
  const fs::path dir = recurlab::testing::perProcessTempPath("recurlab_labeled_sentences_test_");
  fs::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

std::string errorOf(const std::string& path, EmptySentencePolicy policy, int num_classes = 2) {
  try {
    readLabeledSentences(path, num_classes, policy);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(LabeledSentences, ReadsRealFilesWithTheirKnownSizes) {
  RECURLAB_REQUIRE_OR_SKIP(fs::exists(kShared + "/classification/rt-polarity.all") ? "" : "no " + kShared + "/classification");
  const auto mr = readLabeledSentences(kShared + "/classification/rt-polarity.all", 2);
  EXPECT_EQ(mr.examples.size(), 10662u);  // Kim (2014) Table 1: MR has 10662 sentences
  EXPECT_TRUE(mr.warnings.empty());
  // CR's official file has 3775 lines, four of them a label without a sentence.
  const auto cr = readLabeledSentences(kShared + "/classification/custrev.all", 2);
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
  const auto bad_label = writeTemp("bad_label.txt", "1 ok\n0 fine\npositive great film\n");
  const auto e = errorOf(bad_label, EmptySentencePolicy::Skip);
  EXPECT_NE(e.find("bad_label.txt:3: label 'positive' is not a class"), std::string::npos) << e;
  EXPECT_NE(e.find("an integer in 0..1"), std::string::npos) << e;
  const auto empty = writeTemp("empty_sentence.txt", "1 ok\n0   \n1 good\n");
  EXPECT_NE(errorOf(empty, EmptySentencePolicy::Error).find("empty_sentence.txt:2: label 0 has an empty sentence"),
            std::string::npos);
  const auto skipped = readLabeledSentences(empty, 2, EmptySentencePolicy::Skip);
  EXPECT_EQ(skipped.examples.size(), 2u);
  ASSERT_EQ(skipped.warnings.size(), 1u);
  EXPECT_NE(skipped.warnings[0].find("empty_sentence.txt:2:"), std::string::npos);
  EXPECT_NE(errorOf(writeTemp("none.txt", ""), EmptySentencePolicy::Skip).find("no examples"),
            std::string::npos);
  EXPECT_NE(errorOf(writeTemp("blank.txt", "\n  \n\t\n"), EmptySentencePolicy::Skip).find("no examples"),
            std::string::npos);
}

// Before: 99999 built a 100,000-way output layer and 2147483647 overflowed label + 1.
TEST(LabeledSentences, LabelsOutsideZeroToKMinusOneNameFileLineAndLabel) {
  struct Case { std::string label; int k; };
  const Case cases[] = {{"2", 2},          {"6", 6},   {"99999", 2}, {"2147483647", 2},
                        {"2147483648", 2}, {"99999999999999999999999", 5},
                        {"-1", 2},         {"+1", 2},  {"0x1", 2},   {"1e0", 2}, {"1.0", 2}};
  for (const auto& c : cases) {
    const auto path = writeTemp("label.txt", "0 fine\n\n" + c.label + " a sentence\n");
    const auto e = errorOf(path, EmptySentencePolicy::Skip, c.k);
    EXPECT_NE(e.find("label.txt:3: label '" + c.label + "' is not a class"), std::string::npos)
        << c.label << ": " << e;
    EXPECT_NE(e.find("0.." + std::to_string(c.k - 1)), std::string::npos) << e;
  }
  const auto ok = writeTemp("labels_ok.txt", "0 a\n5 b\n007 c\n");
  const auto file = readLabeledSentences(ok, 8);
  ASSERT_EQ(file.examples.size(), 3u);
  EXPECT_EQ(file.examples[1].label, 5);
  EXPECT_EQ(file.examples[2].label, 7);
  EXPECT_THROW(readLabeledSentences(ok, 0), std::invalid_argument);
}

// One rule for every loader (TextLines): a UTF-8 byte-order mark is dropped, CRLF ends are
// cut, blank lines are skipped but still counted in line numbers.
TEST(LabeledSentences, ByteOrderMarkCrlfAndBlankLinesReadLikeAPlainFile) {
  const auto plain = readLabeledSentences(writeTemp("plain.txt", "1 a b\n0 c\n1 d e f\n"), 2);
  const auto odd = readLabeledSentences(
      writeTemp("odd.txt", "\xEF\xBB\xBF" "1 a b\r\n\r\n \t\n0 c\r\n1\n\n1 d e f"), 2);
  ASSERT_EQ(odd.examples.size(), plain.examples.size());
  for (size_t i = 0; i < plain.examples.size(); ++i) {
    EXPECT_EQ(odd.examples[i].label, plain.examples[i].label);
    EXPECT_EQ(odd.examples[i].tokens, plain.examples[i].tokens);
  }
  ASSERT_EQ(odd.warnings.size(), 1u);  // the label-only line, at its true line number
  EXPECT_NE(odd.warnings[0].find("odd.txt:5: skipped: label 1"), std::string::npos) << odd.warnings[0];
  // A BOM is only dropped at the start of the file; in the middle it is a bad label.
  EXPECT_NE(errorOf(writeTemp("mid_bom.txt", "1 a\n\xEF\xBB\xBF" "0 b\n"), EmptySentencePolicy::Skip)
                .find("mid_bom.txt:2:"),
            std::string::npos);
}

TEST(LabeledSentences, RealFileWithByteOrderMarkAndCrlfReadsTheSame) {
  const std::string trec = kShared + "/classification/TREC.test.all";
  RECURLAB_REQUIRE_OR_SKIP(fs::exists(trec) ? "" : "no " + trec);
  std::ifstream in(trec, std::ios::binary);
  std::string converted = "\xEF\xBB\xBF", line;
  while (std::getline(in, line)) converted += line + "\r\n\r\n";
  const auto a = readLabeledSentences(trec, 6);
  const auto b = readLabeledSentences(writeTemp("trec_bom_crlf.txt", converted), 6);
  ASSERT_EQ(a.examples.size(), 500u);
  ASSERT_EQ(b.examples.size(), a.examples.size());
  for (size_t i = 0; i < a.examples.size(); ++i) {
    EXPECT_EQ(b.examples[i].label, a.examples[i].label);
    EXPECT_EQ(b.examples[i].tokens, a.examples[i].tokens);
  }
}

TEST(ClassificationDatasets, EveryRealDatasetUsesExactlyItsKnownClasses) {
  RECURLAB_REQUIRE_OR_SKIP(fs::exists(kShared + "/classification/rt-polarity.all") ? "" : "no " + kShared + "/classification");
  for (const auto& spec : classificationDatasets()) {
    // Every dataset is in the shared data: a missing file is a failure, not a skip.
    const auto path = classificationDatasetPaths(kShared, spec)[0];
    if (!fs::exists(path)) {
      ADD_FAILURE() << spec.name << ": " << path << " is missing";
      continue;
    }
    const auto data = loadClassificationData(kShared, spec.name);
    EXPECT_EQ(data.num_classes, spec.num_classes) << spec.name;
    std::set<int> labels;
    for (const auto* part : {&data.all, &data.train, &data.dev, &data.test})
      for (const auto& e : *part) labels.insert(e.label);
    EXPECT_EQ(labels.size(), static_cast<size_t>(spec.num_classes)) << spec.name;
    EXPECT_EQ(*labels.rbegin(), spec.num_classes - 1) << spec.name;
  }
}

TEST(ClassificationDatasets, StrayLabelOrMissingClassIsAnError) {
  const fs::path root = recurlab::testing::perProcessTempPath("recurlab_classification_labels_test_");
  fs::create_directories(root / "classification");
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(root / "classification" / name) << text;
  };
  write("TREC.train.all", "0 a\n1 b\n2 c\n3 d\n4 e\n5 f\n");
  write("TREC.test.all", "0 a\n99999 b\n");
  try {
    loadClassificationData(root.string(), "TREC");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("TREC.test.all:2: label '99999' is not a class"),
              std::string::npos) << e.what();
  }
  write("TREC.train.all", "0 a\n1 b\n2 c\n3 d\n5 f\n");
  write("TREC.test.all", "0 a\n");
  try {
    loadClassificationData(root.string(), "TREC");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no example of class 4 of TREC"), std::string::npos) << e.what();
  }
  fs::remove_all(root);
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
