// The scores of kept models at chosen lengths (scripts/synthetic-lengths.sh's CSV): a committed
// file read whole, and malformed files refused naming the file, the line and what was expected.
#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>
#include <string>

#include "analysis/synthetic_length_scores.h"
#include "tests/support/temp_root.h"

namespace recurlab::analysis {
namespace {

// What reading `text` as a scores file throws ("" if nothing).
std::string errorReading(const std::string& text) {
  const recurlab::testing::TempRoot temp;
  const std::string path = (temp.path() / "parity_by_length.csv").string();
  std::ofstream(path) << text;
  try {
    readLengthScores(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

const std::string kHeader =
    "task,model,width,lr_index,seed,length,sequences,questions,right,exact_sequences,accuracy,"
    "exact_match\n";

// The negative-eigenvalue run's parity scores: 10 models x 4 rates x 12 lengths, one seed.
TEST(SyntheticLengthScores, ReadsACommittedRunsFile) {
  const auto scores =
      readLengthScores("results/reference/synthetic/negative-eigenvalues/parity_by_length.csv");
  ASSERT_EQ(scores.size(), 480u);
  const auto& first = scores.front();
  EXPECT_EQ(first.task, "parity");
  EXPECT_EQ(first.model, "hgrn");
  EXPECT_EQ(first.width, 64);
  EXPECT_EQ(first.lr_index, 0);
  EXPECT_EQ(first.seed, 0);
  EXPECT_EQ(first.length, 20);
  EXPECT_EQ(first.questions, 1000);
  EXPECT_EQ(first.right, 519);
  for (const auto& s : scores) EXPECT_LE(s.right, s.questions);
}

TEST(SyntheticLengthScores, ReadsColumnsByTheirHeaderNames) {
  const recurlab::testing::TempRoot temp;
  const std::string path = (temp.path() / "cycle_by_length.csv").string();
  std::ofstream(path) << "right,length,questions,model,task,seed,lr_index,width\r\n"
                         "7,80,9,gla,cycle,1,2,64\r\n\r\n";
  const auto scores = readLengthScores(path);
  ASSERT_EQ(scores.size(), 1u);
  EXPECT_EQ(scores[0].model, "gla");
  EXPECT_EQ(scores[0].right, 7);
  EXPECT_EQ(scores[0].questions, 9);
  EXPECT_EQ(scores[0].length, 80);
  EXPECT_EQ(scores[0].lr_index, 2);
  EXPECT_EQ(scores[0].seed, 1);
}

TEST(SyntheticLengthScores, RefusesMalformedFilesNamingTheLine) {
  EXPECT_NE(errorReading("").find("parity_by_length.csv: empty"), std::string::npos);
  EXPECT_NE(errorReading("task,model,width,lr_index,seed,length,questions\n")
                .find("parity_by_length.csv:1: the header lacks the column 'right'"),
            std::string::npos);
  EXPECT_NE(errorReading(kHeader + "parity,lstm,64,0,0,20,1000,1000,519,519,0.519,0.519\n"
                                   "parity,lstm,64,0,0,40,1000,1000,498\n")
                .find("parity_by_length.csv:3: 9 fields, expected 12"),
            std::string::npos);
  EXPECT_NE(errorReading(kHeader + "parity,lstm,6x,0,0,20,1000,1000,519,519,0.519,0.519\n")
                .find(":2: width '6x' is not an integer >= 1"),
            std::string::npos);
  EXPECT_NE(errorReading(kHeader + "parity,lstm,64,0,0,20,1000,1000,-1,0,0,0\n")
                .find(":2: right '-1' is not an integer >= 0"),
            std::string::npos);
  EXPECT_NE(errorReading(kHeader + "parity,lstm,64,0,0,20,1000,1000,1001,0,1,1\n")
                .find(":2: right 1001 exceeds questions 1000"),
            std::string::npos);
  EXPECT_NE(errorReading(kHeader + ",lstm,64,0,0,20,1000,1000,1,0,0,0\n").find(":2: empty task"),
            std::string::npos);
  EXPECT_NE(errorReading(kHeader + "parity,lstm,64,0,0,20,1000,1000,519,519,0.519,0.519\n"
                                   "parity,lstm,64,1,0,20,1000,1000,519,519,0.519,0.519\n"
                                   "parity,lstm,64,0,0,20,1000,1000,519,519,0.519,0.519\n")
                .find(":4: a second row for parity lstm width 64 lr_index 0 seed 0 length 20 "
                      "(the first is line 2)"),
            std::string::npos);
  EXPECT_EQ(errorReading(kHeader + "parity,lstm,64,0,0,20,1000,1000,519,519,0.519,0.519\n"), "");
}

TEST(SyntheticLengthScores, NamesAFileThatCannotBeRead) {
  try {
    readLengthScores("/nonexistent/parity_by_length.csv");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/parity_by_length.csv: cannot be read"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace recurlab::analysis
