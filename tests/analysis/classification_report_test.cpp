#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/report_registry.h"
#include "experiments/log/hdf5_run_log.h"

namespace recurlab::analysis {
namespace {

namespace fs = std::filesystem;
using experiments::Hdf5RunLog;

void addUnit(Hdf5RunLog& log, const std::string& dataset, const std::string& model, int fold,
             double test, const std::string& status = "finished") {
  const std::string g = "/" + dataset + "/" + model + "/folds/" + std::to_string(fold) + "/seeds/0";
  log.createGroup(g);
  log.createTable(g + "/epochs", {"epoch", "train_loss", "train_acc", "dev_acc", "test_acc", "lr",
                                  "seconds", "examples_per_second"});
  log.appendRow(g + "/epochs", {1, 0.6, 0.7, 0.7, test, 1e-3, 2.0, 100});
  log.appendRow(g + "/epochs", {2, 0.4, 0.8, 0.8, test, 1e-3, 4.0, 100});
  for (const auto& [k, v] : std::map<std::string, std::string>{
           {"dataset", dataset}, {"model", model}, {"kind", "final"}, {"stop_reason", "max_epochs"},
           {"config", "{\"encoder\":\"sru\"}"}})
    log.setAttribute(g, k, v);
  for (const auto& [k, v] : std::map<std::string, int64_t>{
           {"trial", 0}, {"fold", fold}, {"seed_index", 0}, {"epochs", 2}, {"best_epoch", 2}, {"parameters", 1000}})
    log.setAttribute(g, k, v);
  log.setAttribute(g, "best_dev_acc", 0.8);
  log.setAttribute(g, "test_acc", test);
  log.setAttribute(g, "seconds_per_epoch", 3.0);
  log.setAttribute(g, "status", status);
}

TEST(ClassificationReport, MergesShardLogsIntoTheAccuracyTable) {
  const fs::path dir = fs::temp_directory_path() / ("recurlab_cls_report_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
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
  fs::remove_all(dir);
}

}  // namespace
}  // namespace recurlab::analysis
