#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/report_registry.h"
#include "common/log/hdf5_run_log.h"
#include "tests/support/temp_root.h"
#include "tests/support/file_text.h"

namespace recurlab::analysis {
namespace {

namespace fs = std::filesystem;
using experiments::Hdf5RunLog;

void addUnit(Hdf5RunLog& log, const std::string& dataset, const std::string& model, int fold,
             double test, const std::string& status = "finished", double dev_shift = 0,
             int seed = 0, int64_t parameters = 1000) {
  const std::string g = "/" + dataset + "/" + model + "/folds/" + std::to_string(fold) + "/seeds/" +
                        std::to_string(seed);
  log.createGroup(g);
  log.createTable(g + "/epochs", {"epoch", "train_loss", "train_acc", "dev_acc", "test_acc", "lr",
                                  "seconds", "examples_per_second"});
  log.appendRow(g + "/epochs", {1, 0.6, 0.7, 0.7 + dev_shift, test, 1e-3, 2.0, 100});
  log.appendRow(g + "/epochs", {2, 0.4, 0.8, 0.8 + dev_shift, test, 1e-3, 4.0, 100});
  for (const auto& [k, v] : std::map<std::string, std::string>{
           {"dataset", dataset}, {"model", model}, {"kind", "final"}, {"stop_reason", "max_epochs"},
           {"config", "{\"encoder\":\"sru\"}"}})
    log.setAttribute(g, k, v);
  for (const auto& [k, v] : std::map<std::string, int64_t>{
           {"trial", 0}, {"fold", fold}, {"seed_index", seed}, {"epochs", 2}, {"best_epoch", 2}, {"parameters", parameters}})
    log.setAttribute(g, k, v);
  log.setAttribute(g, "best_dev_acc", 0.8);
  log.setAttribute(g, "test_acc", test);
  log.setAttribute(g, "seconds_per_epoch", 3.0);
  log.setAttribute(g, "status", status);
}

TEST(ClassificationReport, MergesShardLogsIntoTheAccuracyTable) {
  const recurlab::testing::TempRoot temp;
  const fs::path& dir = temp.path();
  {
    Hdf5RunLog main((dir / "log.h5").string(), Hdf5RunLog::Mode::Create);
    main.setAttribute("/", "experiment", std::string("classification"));
    main.setAttribute("/", "config", std::string("{}"));
    addUnit(main, "MR", "sru2", 0, 0.75);
    addUnit(main, "MR", "sru2", 2, 0.99, "diverged");  // left out of the mean
    Hdf5RunLog shard((dir / "log.shard-1-of-2.h5").string(), Hdf5RunLog::Mode::Create);
    shard.setAttribute("/", "experiment", std::string("classification"));
    addUnit(shard, "MR", "sru2", 1, 0.77);
    shard.createGroup("/MR/sru2/folds/3/seeds/0");  // cut off mid-way: no status, ignored
  }
  analyzeRun(dir.string());
  std::ifstream in(dir / "summary.json");
  const auto summary = nlohmann::json::parse(in);
  const auto& acc = summary.at("accuracy").at("MR").at("sru2");
  EXPECT_NEAR(acc.at("mean").get<double>(), 76.0, 1e-9);
  EXPECT_NEAR(acc.at("std").get<double>(), std::sqrt(2.0), 1e-9);  // sample std of 75, 77
  EXPECT_EQ(acc.at("n"), 2);
  std::ifstream md(dir / "report.md");
  std::stringstream text;
  text << md.rdbuf();
  EXPECT_NE(text.str().find("76.0 ± 1.4"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("76.1"), std::string::npos);  // Kim's CNN-rand on MR beside ours
  EXPECT_NE(text.str().find("1 unit(s) diverged"), std::string::npos);
}

using recurlab::testing::fileText;

// The runner lists every planned unit in the log: a cell with some of its folds finished says
// how many, the summary says how many were planned, and the report says the run is not done.
TEST(ClassificationReport, MarksCellsOfARunStillTraining) {
  const recurlab::testing::TempRoot temp;
  const fs::path& dir = temp.path();
  {
    Hdf5RunLog log((dir / "log.h5").string(), Hdf5RunLog::Mode::Create);
    log.setAttribute("/", "experiment", std::string("classification"));
    nlohmann::json planned = nlohmann::json::array();
    for (const std::string m : {"sru2", "cnn"})
      for (int f = 0; f < 3; ++f) planned.push_back("/MR/" + m + "/folds/" + std::to_string(f) + "/seeds/0");
    log.setAttribute("/", "units_planned", planned.dump());
    for (int f = 0; f < 3; ++f) addUnit(log, "MR", "cnn", f, 0.75);
    addUnit(log, "MR", "sru2", 0, 0.70);
    addUnit(log, "MR", "sru2", 1, 0.72);
    log.createGroup("/MR/sru2/folds/2/seeds/0");  // training
  }
  analyzeRun(dir.string());
  const auto summary = nlohmann::json::parse(fileText((dir / "summary.json").string()));
  EXPECT_EQ(summary.at("accuracy").at("MR").at("sru2").at("planned"), 3);
  EXPECT_EQ(summary.at("accuracy").at("MR").at("sru2").at("n"), 2);
  EXPECT_EQ(summary.at("units_running"), 1);
  const std::string md = fileText((dir / "report.md").string());
  EXPECT_NE(md.find("71.0 ± 1.4 (2 of 3)"), std::string::npos) << md;
  EXPECT_EQ(md.find("(3 of 3)"), std::string::npos) << "a finished cell is not marked";
  EXPECT_NE(md.find("**In progress:** 1 of 6 units"), std::string::npos) << md;
}

TEST(ClassificationReport, WritesSeedBandsBarsAndPaperTables) {
  const recurlab::testing::TempRoot temp;
  const fs::path& dir = temp.path();
  {
    Hdf5RunLog log((dir / "log.h5").string(), Hdf5RunLog::Mode::Create);
    log.setAttribute("/", "experiment", std::string("classification"));
    addUnit(log, "MR", "sru2", 0, 0.75, "finished", 0.00, 0);
    addUnit(log, "MR", "sru2", 0, 0.77, "finished", 0.02, 1);
    addUnit(log, "MR", "cnn", 0, 0.70, "finished", 0.00, 0);
    addUnit(log, "TREC", "cnn", 0, 0.90, "finished", 0.00, 0);
  }
  analyzeRun(dir.string());
  // The accuracy table in LaTeX: the best of our rows bold per dataset, the papers in italics.
  const std::string tex = fileText(dir / "accuracy.tex");
  EXPECT_NE(tex.find("sru2 & \\textbf{76.0 $\\pm$ 1.4} & --"), std::string::npos) << tex;
  EXPECT_NE(tex.find("cnn & 70.0 & \\textbf{90.0}"), std::string::npos) << tex;
  EXPECT_NE(tex.find("\\textit{Kim CNN-rand (paper)} & \\textit{76.1} & \\textit{91.2}"), std::string::npos) << tex;
  EXPECT_TRUE(fs::exists(dir / "accuracy.csv"));
  EXPECT_TRUE(fs::exists(dir / "units.tex"));
  // Time per epoch: grouped bars labelled with the dataset names.
  const std::string bars = fileText(dir / "time_per_epoch.gp");
  EXPECT_NE(bars.find("set xtics ('MR' 0, 'TREC' 1)"), std::string::npos) << bars;
  EXPECT_NE(bars.find("with boxes"), std::string::npos) << bars;
  // Learning curves: MR sru2 epoch 1 is the mean of 70% and 72% with its standard deviation.
  const std::string curves = fileText(dir / "learning_curves.dat");
  EXPECT_NE(curves.find("\n1 71 69.58578644 72.41421356\n"), std::string::npos) << curves;
  EXPECT_NE(curves.find("\n2 81 79.58578644 82.41421356\n"), std::string::npos) << curves;
  const std::string md = fileText(dir / "report.md");
  EXPECT_NE(md.find("over 1-2 runs per curve (folds × seeds)"), std::string::npos) << md;
  EXPECT_NE(md.find("Times and rates are wall-clock, measured while training"), std::string::npos) << md;
  EXPECT_NE(fileText(dir / "learning_curves.gp").find("set xtics 1, 1\n"), std::string::npos);
}

// The embedding table follows each dataset's vocabulary, so a model's parameter count is given
// per dataset (a single count per model used to show whichever dataset was read last).
TEST(ClassificationReport, GivesParametersPerDatasetAndModel) {
  const recurlab::testing::TempRoot temp;
  const fs::path& dir = temp.path();
  {
    Hdf5RunLog log((dir / "log.h5").string(), Hdf5RunLog::Mode::Create);
    log.setAttribute("/", "experiment", std::string("classification"));
    addUnit(log, "MR", "sru2", 0, 0.75, "finished", 0, 0, 6000000);
    addUnit(log, "MR", "sru2", 1, 0.76, "finished", 0, 0, 6100000);
    addUnit(log, "TREC", "sru2", 0, 0.90, "finished", 0, 0, 2000000);
    addUnit(log, "MR", "cnn", 0, 0.74, "finished", 0, 0, 7000000);
  }
  analyzeRun(dir.string());
  const std::string md = fileText(dir / "report.md");
  EXPECT_NE(md.find("| sru2 | 6,050,000 | 2,000,000 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| cnn | 7,000,000 | – |"), std::string::npos) << md;
  EXPECT_NE(md.find("by up to 1.7%"), std::string::npos) << md;
  // The time table holds seconds only.
  const std::string time_csv = fileText(dir / "time_per_epoch.csv");
  EXPECT_EQ(time_csv.find("parameters"), std::string::npos) << time_csv;
  std::ifstream in(dir / "summary.json");
  const auto summary = nlohmann::json::parse(in);
  EXPECT_DOUBLE_EQ(summary.at("parameters").at("MR").at("sru2").get<double>(), 6050000.0);
  EXPECT_DOUBLE_EQ(summary.at("parameters").at("TREC").at("sru2").get<double>(), 2000000.0);
}

}  // namespace
}  // namespace recurlab::analysis
