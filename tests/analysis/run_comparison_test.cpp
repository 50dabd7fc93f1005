// recurlab_compare's parts on synthetic runs with known numbers: headline metrics per kind, the
// mean ± std over seeds of one config, a second config kept apart, the exact paired test, and
// compare.md / compare.csv / the figure.
#include "analysis/run_comparison.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/log/hdf5_run_log.h"
#include "tests/support/temp_root.h"
#include "tests/support/file_text.h"

namespace recurlab::analysis {
namespace {

using experiments::Hdf5RunLog;
namespace fs = std::filesystem;

using recurlab::testing::fileText;

// A QA run folder: the root attributes compare reads, and a summary.json with dev EM/F1.
std::string qaRun(const testing::TempRoot& tmp, const std::string& name, int seed, int hidden,
                  double sru_f1, double lstm_f1) {
  const fs::path dir = tmp.path() / name;
  fs::create_directories(dir);
  {
    Hdf5RunLog log((dir / "log.h5").string(), Hdf5RunLog::Mode::Create);
    log.setAttribute("/", "experiment", std::string("qa"));
    log.setAttribute("/", "seed", int64_t{seed});
    log.setAttribute("/", "start_time", "2026-01-0" + std::to_string(seed) + "T10:20:30Z");
    log.setAttribute("/", "config", nlohmann::json{{"seed", seed}, {"hidden", hidden}}.dump());
  }
  const nlohmann::json summary = {
      {"models",
       {{"sru", {{"dev_em", sru_f1 - 10}, {"dev_f1", sru_f1}, {"encoder", "sru"}}},
        {"lstm", {{"dev_em", nullptr}, {"dev_f1", lstm_f1}}}}}};
  std::ofstream((dir / "summary.json").string()) << summary.dump();
  return dir.string();
}

const ComparisonRow* findRow(const Comparison& c, const std::string& metric,
                             const std::string& label) {
  for (const auto& r : c.rows)
    if (r.metric == metric && r.label == label) return &r;
  return nullptr;
}

TEST(RunComparisonTest, SignFlipPValuesAreExact) {
  EXPECT_DOUBLE_EQ(signFlipPValue({1, 2, 3}), 2.0 / 8);     // only all-plus and all-minus
  EXPECT_DOUBLE_EQ(signFlipPValue({5, 5, 5, 5, 5}), 2.0 / 32);
  EXPECT_DOUBLE_EQ(signFlipPValue({3, -1, 2, 2}), 4.0 / 16);  // |sum| >= 6: 8, 8, 6, 6
  EXPECT_DOUBLE_EQ(signFlipPValue({1, -1}), 1.0);
  EXPECT_DOUBLE_EQ(signFlipPValue({0, 0, 0}), 1.0);
  EXPECT_THROW(signFlipPValue(std::vector<double>(21, 1.0)), std::invalid_argument);
}

TEST(RunComparisonTest, HeadlineMetricsOfEachKind) {
  const auto qa = headlineMetrics(
      "qa", {{"models", {{"sru", {{"dev_em", 60.5}, {"dev_f1", 70.25}, {"parameters", 9}}}}}});
  ASSERT_EQ(qa.size(), 2u);
  EXPECT_EQ(qa[0].metric, "dev EM (%)");
  EXPECT_DOUBLE_EQ(qa[1].value, 70.25);
  const auto cls = headlineMetrics(
      "classification", {{"accuracy", {{"MR", {{"sru", {{"mean", 76.5}, {"std", 1}}}}}}}});
  ASSERT_EQ(cls.size(), 1u);
  EXPECT_EQ(cls[0].metric, "test accuracy % (MR)");
  // A cell with fewer finished folds than planned (a run still training) is no result.
  const auto partial = headlineMetrics(
      "classification",
      {{"accuracy", {{"MR", {{"sru", {{"mean", 76.5}, {"n", 9}, {"planned", 10}}},
                             {"cnn", {{"mean", 75.0}, {"n", 10}, {"planned", 10}}}}}}}});
  ASSERT_EQ(partial.size(), 1u);
  EXPECT_EQ(partial[0].model, "cnn");
  const auto lm = headlineMetrics(
      "lm", {{"models", {{"sru", {{"test", 1.4}, {"valid", 1.5}, {"metric", "bpc"}}}}}});
  ASSERT_EQ(lm.size(), 2u);
  EXPECT_EQ(lm[0].metric, "test bpc");
  const auto mt = headlineMetrics(
      "mt", {{"models", {{"t", {{"test_bleu", 30.0}, {"test_bleu_tok_lc", nullptr}}}}}});
  ASSERT_EQ(mt.size(), 1u) << "a null (NaN) value is left out";
  EXPECT_EQ(mt[0].metric, "test BLEU");
  // Synthetic: a cell per task and width, in percent; one with fewer finished units than
  // planned is no result; a row without a plan (an older summary) counts.
  const auto synthetic = headlineMetrics(
      "synthetic",
      {{"synthetic",
        {{{"task", "parity"}, {"model", "lstm"}, {"width", 64}, {"test_acc", 0.875},
          {"units", 4}, {"planned", 4}},
         {{"task", "parity"}, {"model", "sru"}, {"width", 64}, {"test_acc", 0.5}, {"units", 3},
          {"planned", 4}},
         {{"task", "cycle"}, {"model", "gla"}, {"width", 128}, {"test_acc", 0.25}}}}});
  ASSERT_EQ(synthetic.size(), 2u);
  EXPECT_EQ(synthetic[0].model, "lstm");
  EXPECT_EQ(synthetic[0].metric, "test accuracy % (parity, width 64)");
  EXPECT_DOUBLE_EQ(synthetic[0].value, 87.5);
  EXPECT_EQ(synthetic[1].metric, "test accuracy % (cycle, width 128)");
  EXPECT_TRUE(headlineMetrics("speed", {{"models", {{"x", {{"test", 1}}}}}}).empty());
}

TEST(RunComparisonTest, SeedsOfOneConfigGiveMeanStdAndPairedTests) {
  testing::TempRoot tmp;
  std::vector<RunMetrics> runs;
  runs.push_back(readRunMetrics(qaRun(tmp, "a", 1, 128, 70, 69)));
  runs.push_back(readRunMetrics(qaRun(tmp, "b", 2, 128, 72, 70)));
  runs.push_back(readRunMetrics(qaRun(tmp, "c", 3, 128, 74, 71)));
  runs.push_back(readRunMetrics(qaRun(tmp, "d", 1, 256, 80, 75)));
  EXPECT_EQ(runs[0].experiment, "qa");
  EXPECT_EQ(runs[0].seed, "1");
  EXPECT_EQ(runs[0].config, runs[1].config) << "the seed is not part of the config";
  const Comparison c = compareRuns(runs);
  ASSERT_EQ(c.configs.size(), 2u);

  const auto* sru = findRow(c, "dev F1 (%)", "sru [config 1]");
  ASSERT_NE(sru, nullptr);
  EXPECT_DOUBLE_EQ(sru->mean, 72.0);
  EXPECT_DOUBLE_EQ(sru->std, 2.0);
  EXPECT_EQ(sru->values.size(), 3u);
  EXPECT_EQ(sru->model, "sru");
  EXPECT_EQ(sru->config_name, "config 1");
  const auto* lstm = findRow(c, "dev F1 (%)", "lstm [config 1]");
  ASSERT_NE(lstm, nullptr);
  EXPECT_DOUBLE_EQ(lstm->mean, 70.0);
  EXPECT_DOUBLE_EQ(lstm->std, 1.0);
  const auto* single = findRow(c, "dev F1 (%)", "sru [config 2]");
  ASSERT_NE(single, nullptr);
  EXPECT_DOUBLE_EQ(single->mean, 80.0);
  EXPECT_TRUE(std::isnan(single->std));
  EXPECT_EQ(findRow(c, "dev EM (%)", "lstm [config 1]"), nullptr) << "null values are left out";

  // sru vs lstm under config 1: differences 1, 2, 3 over seeds 1-3 -> p = 2/8.
  bool found = false;
  for (const auto& p : c.paired)
    if (p.metric == "dev F1 (%)" && p.first == "lstm [config 1]" && p.second == "sru [config 1]") {
      found = true;
      EXPECT_EQ(p.pairs, 3u);
      EXPECT_DOUBLE_EQ(p.mean_difference, -2.0);
      EXPECT_DOUBLE_EQ(p.p_value, 0.25);
    }
  EXPECT_TRUE(found);
  for (const auto& p : c.paired) EXPECT_GE(p.pairs, 2u) << "config 2 has one seed: no pairs";

  const std::string out = tmp.file("cmp");
  const auto files = writeComparison(c, runs, out);
  const std::string md = fileText(out + "/compare.md");
  EXPECT_NE(md.find("| dev F1 (%) | sru [config 1] | 72 ± 2 | 3 | 1, 2, 3 |"), std::string::npos) << md;
  EXPECT_NE(md.find("## Paired comparisons"), std::string::npos);
  EXPECT_NE(md.find("\"hidden\":256"), std::string::npos) << "the configs are listed";
  const std::string csv = fileText(out + "/compare.csv");
  EXPECT_NE(csv.find("dev F1 (%),sru [config 1],72,2,3"), std::string::npos) << csv;
  EXPECT_TRUE(fs::exists(out + "/compare.gp"));
  std::string listed;
  for (const auto& r : runs) listed += r.run + "\n";
  EXPECT_EQ(fileText(out + "/runs.txt"), listed) << "make figures compares these again";
  if (testing::commandAvailable("gnuplot")) {
    EXPECT_TRUE(fs::exists(out + "/compare.png"));
    // Dated by the newest run's start (seed 3's), not the clock: the same runs give the same PDF.
    EXPECT_NE(fileText(out + "/compare.pdf").find("/CreationDate (D:20260103102030"),
              std::string::npos);
  }
}

// Two protocols of a synthetic suite: gla ran under both configs, lstm under the first only. In
// the figure every bar belongs to its config (lstm's to config 1, keyed), and seventeen model
// names too wide to stand level under their bars are slanted.
TEST(RunComparisonTest, FigureGroupsEveryModelByItsConfigAndSlantsCrowdedNames) {
  testing::TempRoot tmp;
  RunMetrics first{"runs/first", "synthetic", "{\"patience\":3}", "1", "2026-01-01T00:00:00Z", {}};
  RunMetrics second{"runs/second", "synthetic", "{\"patience\":16}", "1", "2026-01-02T00:00:00Z", {}};
  const std::string metric = "test accuracy % (cycle, width 64)";
  first.values = {{"gla", metric, 50.9}, {"lstm", metric, 92.6}};
  second.values = {{"gla", metric, 51.7}};
  for (int k = 0; k < 15; ++k) first.values.push_back({"a_long_model_" + std::to_string(k), metric, 20});
  first.values.push_back({"gla", "test accuracy % (cycle, width 128)", 37.4});
  const std::vector<RunMetrics> runs = {first, second};
  const Comparison c = compareRuns(runs);
  ASSERT_EQ(c.configs.size(), 2u);
  // Metrics in the order the runs give them, not as text sorts them ("128" before "64").
  EXPECT_EQ(c.rows.front().metric, metric);
  EXPECT_EQ(c.rows.back().metric, "test accuracy % (cycle, width 128)");
  const auto* lstm = findRow(c, metric, "lstm");
  ASSERT_NE(lstm, nullptr) << "a model under one config keeps its plain label";
  EXPECT_EQ(lstm->config_index, 0u);
  ASSERT_NE(findRow(c, metric, "gla [config 2]"), nullptr);
  const std::string out = tmp.file("cmp");
  writeComparison(c, runs, out);
  const std::string dat = fileText(out + "/compare.dat");
  EXPECT_NE(dat.find("# category_index category \"config 1\" error \"config 2\" error"),
            std::string::npos) << dat;
  EXPECT_NE(dat.find("\"lstm\" 92.6 0 NaN 0"), std::string::npos) << "lstm's bar is config 1's\n" << dat;
  EXPECT_EQ(dat.find("category \"\""), std::string::npos) << "no untitled series\n" << dat;
  const std::string gp = fileText(out + "/compare.gp");
  EXPECT_NE(gp.find("rotate by 45 right"), std::string::npos) << gp;
}

TEST(RunComparisonTest, ARunWithoutSummaryGetsItsReportFirst) {
  testing::TempRoot tmp;
  {
    Hdf5RunLog log(tmp.file("log.h5"), Hdf5RunLog::Mode::Create);
    log.setAttribute("/", "experiment", std::string("made-up-kind"));
  }
  const RunMetrics r = readRunMetrics(tmp.path().string());
  EXPECT_TRUE(fs::exists(tmp.file("summary.json")));
  EXPECT_TRUE(r.values.empty());
  EXPECT_THROW(readRunMetrics(tmp.file("missing")), std::exception);
}

}  // namespace
}  // namespace recurlab::analysis
