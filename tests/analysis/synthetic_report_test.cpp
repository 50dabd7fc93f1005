// The synthetic suite's report from hand-written logs: the learning rate with the best dev
// accuracy chosen per (task, model, width), each task's lengths listed, and accuracy against
// the test length drawn, where the test lengths vary, from the per-sequence scores; recall
// accuracy split by item and lag from the per-question outcomes.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/report_registry.h"
#include "common/log/hdf5_run_log.h"
#include "tests/support/figure_data.h"
#include "tests/support/file_text.h"
#include "tests/support/temp_root.h"

namespace recurlab::analysis {
namespace {

namespace fs = std::filesystem;
using experiments::Hdf5RunLog;
using recurlab::testing::fileText;

struct UnitSpec {
  int64_t lr_index = 0;
  double dev = 0, test = 0;
  std::vector<double> sequence_acc, sequence_length;  // lengths empty: an older log
};

// A recall task's test questions, per question: right (1) or not, the item asked, the lag,
// the item the answer named (empty: an older log without it).
struct QuestionSpec {
  std::vector<double> correct, item, lag, answered_item;
};

std::string unitGroup(int64_t lr_index) {
  return "/parity/lstm/w8/lr" + std::to_string(lr_index) + "/seeds/0";
}

void addUnit(Hdf5RunLog& log, const UnitSpec& u) {
  const std::string g = unitGroup(u.lr_index);
  log.createGroup(g);
  for (const auto& [k, v] : std::map<std::string, std::string>{
           {"task", "parity"}, {"kind", "parity"}, {"model", "lstm"}, {"encoder", "lstm"},
           {"status", "finished"}})
    log.setAttribute(g, k, v);
  for (const auto& [k, v] : std::map<std::string, int64_t>{
           {"width", 8}, {"lr_index", u.lr_index}, {"seed_index", 0}, {"state_size", 16},
           {"train_length", 8}, {"train_min_length", 1}, {"test_length", 16},
           {"test_min_length", 9}})
    log.setAttribute(g, k, v);
  for (const auto& [k, v] : std::map<std::string, double>{
           {"lr", u.lr_index == 0 ? 0.001 : 0.01}, {"best_dev_acc", u.dev}, {"test_acc", u.test},
           {"test_exact", u.test}, {"unit_seconds", 2.0}})
    log.setAttribute(g, k, v);
  log.writeArray(g + "/test_sequence_acc", u.sequence_acc, {u.sequence_acc.size()});
  if (!u.sequence_length.empty())
    log.writeArray(g + "/test_sequence_length", u.sequence_length, {u.sequence_length.size()});
}

// The (x, y) points of one series of a figure's .dat file.
std::vector<std::pair<double, double>> datBlock(const std::string& text, int block) {
  std::vector<std::pair<double, double>> points;
  for (const auto& line : recurlab::testing::dataBlock(text, block)) {
    std::istringstream fields(line);
    double x = 0, y = 0;
    fields >> x >> y;
    points.emplace_back(x, y);
  }
  return points;
}

// `questions`, when given, are the first unit's.
void writeRun(const fs::path& dir, const std::vector<UnitSpec>& units,
              const QuestionSpec* questions = nullptr) {
  Hdf5RunLog log((dir / "log.h5").string(), Hdf5RunLog::Mode::Create);
  log.setAttribute("/", "experiment", std::string("synthetic"));
  log.setAttribute("/", "config", std::string("{}"));
  for (const auto& u : units) addUnit(log, u);
  if (!questions) return;
  for (const auto& [name, values] : {std::pair{"correct", &questions->correct},
                                     {"item", &questions->item}, {"lag", &questions->lag}})
    log.writeArray(unitGroup(units.front().lr_index) + "/test_question_" + name, *values,
                   {values->size()});
  if (!questions->answered_item.empty())
    log.writeArray(unitGroup(units.front().lr_index) + "/test_question_answered_item",
                   questions->answered_item, {questions->answered_item.size()});
}

TEST(SyntheticReport, TakesTheRateOfBestDevAndListsEachTasksLengths) {
  const recurlab::testing::TempRoot temp;
  // The better test accuracy is at the rate with the worse dev accuracy: not chosen.
  writeRun(temp.path(), {{0, 0.6, 0.9, {1, 1}, {9, 16}}, {1, 0.8, 0.5, {1, 0}, {9, 16}}});
  analyzeRun(temp.path().string());
  const auto summary = nlohmann::json::parse(fileText(temp.path() / "summary.json"));
  const auto& row = summary.at("synthetic").at(0);
  EXPECT_DOUBLE_EQ(row.at("best_lr").get<double>(), 0.01);
  EXPECT_DOUBLE_EQ(row.at("test_acc").get<double>(), 0.5);
  const std::string report = fileText(temp.path() / "report.md");
  // A log older than the dev keys: its dev sequences had the train range.
  EXPECT_NE(report.find("| parity | parity | 1–8 | 1–8 | 9–16 |"), std::string::npos) << report;
}

TEST(SyntheticReport, ListsTheDevLengthsTheUnitsLogged) {
  const recurlab::testing::TempRoot temp;
  writeRun(temp.path(), {{0, 0.6, 0.9, {1, 1}, {9, 16}}, {1, 0.8, 0.5, {1, 0}, {9, 16}}});
  {
    Hdf5RunLog log((temp.path() / "log.h5").string(), Hdf5RunLog::Mode::Append);
    for (const int64_t lr : {0, 1}) {
      log.setAttribute(unitGroup(lr), "dev_min_length", int64_t{12});
      log.setAttribute(unitGroup(lr), "dev_length", int64_t{16});
    }
  }
  analyzeRun(temp.path().string());
  const std::string report = fileText(temp.path() / "report.md");
  EXPECT_NE(report.find("| parity | parity | 1–8 | 12–16 | 9–16 |"), std::string::npos) << report;
}

// Each summary row counts its finished units against the run's plan: a third rate planned and
// not begun leaves the cell at 2 of 3 (recurlab_compare takes only whole cells); a log with no
// plan gives no count.
TEST(SyntheticReport, SummaryRowsCountFinishedUnitsAgainstThePlan) {
  const recurlab::testing::TempRoot temp;
  writeRun(temp.path(), {{0, 0.6, 0.9, {1, 1}, {9, 16}}, {1, 0.8, 0.5, {1, 0}, {9, 16}}});
  analyzeRun(temp.path().string());
  auto row = nlohmann::json::parse(fileText(temp.path() / "summary.json")).at("synthetic").at(0);
  EXPECT_EQ(row.at("units").get<int64_t>(), 2);
  EXPECT_FALSE(row.contains("planned")) << row;
  {
    Hdf5RunLog log((temp.path() / "log.h5").string(), Hdf5RunLog::Mode::Append);
    // Other cells' groups sort before and after this cell's ("w80" after "w8/").
    const nlohmann::json planned = {unitGroup(0), unitGroup(1), unitGroup(2),
                                    "/parity/lstm/w16/lr0/seeds/0", "/parity/gru/w8/lr0/seeds/0",
                                    "/parity/lstm/w80/lr0/seeds/0", "/parity/sru/w8/lr0/seeds/0"};
    log.setAttribute("/", "units_planned", planned.dump());
  }
  analyzeRun(temp.path().string());
  row = nlohmann::json::parse(fileText(temp.path() / "summary.json")).at("synthetic").at(0);
  EXPECT_EQ(row.at("units").get<int64_t>(), 2);
  EXPECT_EQ(row.at("planned").get<int64_t>(), 3) << row;
}

// Both rates reach 90% dev: the lowest is taken, and the report says they tied.
TEST(SyntheticReport, SaysWhichCellsTiedOnDevAndTakesTheLowestRate) {
  const recurlab::testing::TempRoot temp;
  writeRun(temp.path(), {{0, 0.9, 0.6, {1, 0}, {9, 16}}, {1, 0.9, 1.0, {1, 1}, {9, 16}}});
  analyzeRun(temp.path().string());
  const auto summary = nlohmann::json::parse(fileText(temp.path() / "summary.json"));
  const auto& row = summary.at("synthetic").at(0);
  EXPECT_DOUBLE_EQ(row.at("best_lr").get<double>(), 0.001);
  EXPECT_EQ(row.at("tied_rates").get<int64_t>(), 2);
  const std::string report = fileText(temp.path() / "report.md");
  EXPECT_NE(report.find("Tied on dev: parity lstm width 8 (2 rates at 90.0%)."), std::string::npos)
      << report;

  const recurlab::testing::TempRoot untied;
  writeRun(untied.path(), {{0, 0.9, 0.6, {1, 0}, {9, 16}}, {1, 0.8, 1.0, {1, 1}, {9, 16}}});
  analyzeRun(untied.path().string());
  EXPECT_EQ(fileText(untied.path() / "report.md").find("Tied on dev"), std::string::npos);
}

// Eight test sequences of lengths 9 to 16 (8 lengths: one bin each), right at the even ones.
TEST(SyntheticReport, DrawsAccuracyAgainstTheTestLengthFromTheSequencesScores) {
  const recurlab::testing::TempRoot temp;
  const std::vector<double> lengths = {16, 9, 10, 11, 12, 13, 14, 15};
  std::vector<double> acc;
  for (double l : lengths) acc.push_back(static_cast<int>(l) % 2 == 0 ? 1.0 : 0.0);
  writeRun(temp.path(), {{0, 0.9, 0.5, acc, lengths}});
  analyzeRun(temp.path().string());
  const auto points = datBlock(fileText(temp.path() / "accuracy_vs_length.dat"), 0);
  ASSERT_EQ(points.size(), 8u);
  for (size_t i = 0; i < points.size(); ++i) {
    EXPECT_DOUBLE_EQ(points[i].first, 9.0 + static_cast<double>(i));
    EXPECT_DOUBLE_EQ(points[i].second, i % 2 == 0 ? 0.0 : 100.0) << "length " << 9 + i;
  }
}

// 120 lengths pool into 12 bins of 10; a log written before lengths were logged has no figure.
TEST(SyntheticReport, PoolsLengthsIntoBinsAndSkipsLogsWithoutLengths) {
  const recurlab::testing::TempRoot temp;
  std::vector<double> lengths, acc;
  for (int l = 41; l <= 160; ++l) lengths.push_back(l), acc.push_back(l <= 50 ? 1.0 : 0.5);
  writeRun(temp.path(), {{0, 0.9, 0.5, acc, lengths}});
  analyzeRun(temp.path().string());
  const auto points = datBlock(fileText(temp.path() / "accuracy_vs_length.dat"), 0);
  ASSERT_EQ(points.size(), 12u);
  EXPECT_DOUBLE_EQ(points[0].first, 45.5);  // 41..50
  EXPECT_DOUBLE_EQ(points[0].second, 100.0);
  EXPECT_DOUBLE_EQ(points[11].first, 155.5);  // 151..160
  EXPECT_DOUBLE_EQ(points[11].second, 50.0);

  const recurlab::testing::TempRoot older;
  writeRun(older.path(), {{0, 0.9, 0.5, acc, {}}});
  analyzeRun(older.path().string());
  EXPECT_TRUE(fs::exists(older.path() / "report.md"));
  EXPECT_FALSE(fs::exists(older.path() / "accuracy_vs_length.dat"));
}

// 45 recall questions: 20 at lag 1, all right; 20 at lag 5, right at item 2 only; 5 at lag 100,
// wrong, at item 1. By item: 1 10/25, 2 20/20; by lag: 1 100%, 4-7 50%, 64-127 0% (5 questions:
// too few for the figure, in summary.json).
TEST(SyntheticReport, SplitsRecallAccuracyByItemAndByLag) {
  const recurlab::testing::TempRoot temp;
  QuestionSpec q;
  for (int i = 0; i < 45; ++i) {
    const double item = i < 40 ? 1 + i % 2 : 1;
    q.item.push_back(item);
    q.lag.push_back(i < 20 ? 1 : i < 40 ? 5 : 100);
    q.correct.push_back(i < 20 || (i < 40 && item == 2) ? 1 : 0);
  }
  writeRun(temp.path(), {{0, 0.9, 0.5, {1.0}, {}}}, &q);
  analyzeRun(temp.path().string());
  const auto by_item = datBlock(fileText(temp.path() / "recall_by_item.dat"), 0);
  EXPECT_EQ(by_item, (std::vector<std::pair<double, double>>{{1, 40}, {2, 100}}));
  const auto by_lag = datBlock(fileText(temp.path() / "recall_by_lag.dat"), 0);
  ASSERT_EQ(by_lag.size(), 2u);
  EXPECT_NEAR(by_lag[0].first, std::sqrt(2.0) - 0.5, 1e-9);
  EXPECT_DOUBLE_EQ(by_lag[0].second, 100.0);
  EXPECT_NEAR(by_lag[1].first, 4 * std::sqrt(2.0) - 0.5, 1e-9);
  EXPECT_DOUBLE_EQ(by_lag[1].second, 50.0);
  const std::string report = fileText(temp.path() / "report.md");
  EXPECT_NE(report.find("| 8 | lstm | 50.0 | 40.0 | 100.0 |"), std::string::npos) << report;
  const auto summary = nlohmann::json::parse(fileText(temp.path() / "summary.json"));
  const auto& row = summary.at("synthetic_recall").at(0);
  EXPECT_DOUBLE_EQ(row.at("acc_by_item").at("1").get<double>(), 0.4);
  EXPECT_DOUBLE_EQ(row.at("acc_by_lag").at("4–7").get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(row.at("acc_by_lag").at("64–127").get<double>(), 0.0);
}

// Ten questions about two items: 4 right, 4 named the other item's answer, 2 named none of
// the sequence's answers: 40%, 40%, 20%, and right on 4 of the 8 that named an answer (50%).
// Without the answered items (an older log) the part is left out.
TEST(SyntheticReport, SplitsRecallAnswersIntoRightAnotherAnswerOfTheSequenceAndNone) {
  const recurlab::testing::TempRoot temp;
  QuestionSpec q;
  for (int i = 0; i < 10; ++i) {
    const double item = 1 + i % 2;
    q.item.push_back(item);
    q.lag.push_back(3);
    q.correct.push_back(i < 4 ? 1 : 0);
    q.answered_item.push_back(i < 4 ? item : i < 8 ? 3 - item : 0);
  }
  writeRun(temp.path(), {{0, 0.9, 0.4, {1.0}, {}}}, &q);
  analyzeRun(temp.path().string());
  const std::string report = fileText(temp.path() / "report.md");
  EXPECT_NE(report.find("| 8 | lstm | 40.0 | 40.0 | 20.0 | 50.0 |"), std::string::npos) << report;
  const auto bars = recurlab::testing::dataBlock(fileText(temp.path() / "recall_answers.dat"), 0);
  ASSERT_EQ(bars.size(), 1u);  // one model: one category of three bars (value, error) each
  std::istringstream fields(bars[0]);
  std::vector<std::string> field{std::istream_iterator<std::string>(fields), {}};
  ASSERT_EQ(field.size(), 8u) << bars[0];
  EXPECT_EQ(field[1], "\"lstm\"");
  EXPECT_EQ(std::vector<std::string>({field[2], field[4], field[6]}),
            std::vector<std::string>({"40", "40", "20"})) << bars[0];
  const auto summary = nlohmann::json::parse(fileText(temp.path() / "summary.json"));
  const auto& row = summary.at("synthetic_recall_answers").at(0);
  EXPECT_DOUBLE_EQ(row.at("another_answer").get<double>(), 0.4);
  EXPECT_DOUBLE_EQ(row.at("none_of_its_answers").get<double>(), 0.2);

  const recurlab::testing::TempRoot older;
  q.answered_item.clear();
  writeRun(older.path(), {{0, 0.9, 0.4, {1.0}, {}}}, &q);
  analyzeRun(older.path().string());
  EXPECT_NE(fileText(older.path() / "report.md").find("recall tasks' questions"), std::string::npos);
  EXPECT_FALSE(fs::exists(older.path() / "recall_answers.dat"));
}

// A state-tracking run (no questions logged) has no recall section.
TEST(SyntheticReport, HasNoRecallSectionWithoutQuestions) {
  const recurlab::testing::TempRoot temp;
  writeRun(temp.path(), {{0, 0.9, 0.5, {1.0}, {}}});
  analyzeRun(temp.path().string());
  EXPECT_FALSE(fs::exists(temp.path() / "recall_by_lag.dat"));
  EXPECT_EQ(fileText(temp.path() / "report.md").find("recall tasks' questions"), std::string::npos);
}

// A run of many planned units names the first twelve it has not started (in the order of their
// names: lr0, lr1, lr10, ...) and counts the rest;
// summary.json lists them all.
TEST(SyntheticReport, NamesAFewOfManyUnitsNotStartedAndCountsTheRest) {
  const recurlab::testing::TempRoot temp;
  writeRun(temp.path(), {{0, 0.9, 0.5, {1}, {9}}});
  {
    Hdf5RunLog log((temp.path() / "log.h5").string(), Hdf5RunLog::Mode::Append);
    nlohmann::json planned = {"/parity/lstm/w8/lr0/seeds/0"};
    for (int i = 0; i < 20; ++i) planned.push_back("/parity/sru/w8/lr" + std::to_string(i) + "/seeds/0");
    log.setAttribute("/", "units_planned", planned.dump());
  }
  analyzeRun(temp.path().string());
  const std::string md = fileText(temp.path() / "report.md");
  EXPECT_NE(md.find("**In progress:** 20 of 21 units have not finished. Not started yet (no epoch "
                    "logged, so no row below): parity/sru/w8/lr0/seeds/0, "),
            std::string::npos) << md;
  EXPECT_NE(md.find(", parity/sru/w8/lr19/seeds/0 and 8 more (summary.json: units_not_started)."),
            std::string::npos) << md;
  const auto summary = nlohmann::json::parse(fileText(temp.path() / "summary.json"));
  EXPECT_EQ(summary.at("units_not_started").size(), 20u);
}

// The kept models scored at chosen lengths (the run's parity_by_length.csv): the table at the
// rate dev chose (lr1, seeds pooled: 11 of 20 at length 64), beside the best rate at the longest
// length (lr0, 90%); the figure's points and the training length's line; summary rows. A file
// for a task the run lacks is not read; without a file there is no section.
TEST(SyntheticReport, ScoresKeptModelsAtChosenLengthsAtTheChosenRate) {
  const recurlab::testing::TempRoot temp;
  writeRun(temp.path(), {{0, 0.6, 0.9, {1, 1}, {9, 16}}, {1, 0.8, 0.5, {1, 0}, {9, 16}}});
  analyzeRun(temp.path().string());
  EXPECT_EQ(fileText(temp.path() / "report.md").find("At lengths beyond"), std::string::npos);

  std::ofstream(temp.path() / "parity_by_length.csv")
      << "task,model,width,lr_index,seed,length,sequences,questions,right,exact_sequences,"
         "accuracy,exact_match\n"
         "parity,lstm,8,0,0,8,10,10,10,10,1,1\n"
         "parity,lstm,8,0,0,64,10,10,9,9,0.9,0.9\n"
         "parity,lstm,8,1,0,8,10,10,10,10,1,1\n"
         "parity,lstm,8,1,0,64,10,10,5,5,0.5,0.5\n"
         "parity,lstm,8,1,1,64,10,10,6,6,0.6,0.6\n";
  std::ofstream(temp.path() / "cycle_by_length.csv") << "not,a,scores,file\n";
  analyzeRun(temp.path().string());
  const std::string md = fileText(temp.path() / "report.md");
  EXPECT_NE(md.find("parity: trained on lengths up to 8, tested on 9–16."), std::string::npos) << md;
  EXPECT_NE(md.find("| model | width | lr | 8 | 64 | best lr at 64 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| lstm | 8 | 0.010 | 100.0 | 55.0 | 90.0 (0.0010) |"), std::string::npos) << md;
  const std::string dat = fileText(temp.path() / "accuracy_at_lengths.dat");
  EXPECT_EQ(datBlock(dat, 0), (std::vector<std::pair<double, double>>{{8, 100}, {64, 55}}));
  EXPECT_EQ(datBlock(dat, 1), (std::vector<std::pair<double, double>>{{8, 0}, {8, 100}}));
  const auto summary = nlohmann::json::parse(fileText(temp.path() / "summary.json"));
  const auto& row = summary.at("synthetic_at_lengths").at(0);
  EXPECT_EQ(row.at("lengths"), nlohmann::json({8, 64}));
  EXPECT_DOUBLE_EQ(row.at("accuracy").at(1).get<double>(), 0.55);
  EXPECT_DOUBLE_EQ(row.at("best_lr").get<double>(), 0.01);
}

TEST(SyntheticReport, RefusesAMalformedScoresFileNamingItsLine) {
  const recurlab::testing::TempRoot temp;
  writeRun(temp.path(), {{0, 0.6, 0.9, {1, 1}, {9, 16}}});
  std::ofstream(temp.path() / "parity_by_length.csv")
      << "task,model,width,lr_index,seed,length,questions,right\n"
         "parity,lstm,8,0,0,64,10,eleven\n";
  try {
    analyzeRun(temp.path().string());
    FAIL() << "a malformed scores file was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("parity_by_length.csv:2: right 'eleven' is not an integer"),
              std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace recurlab::analysis
