// The LM report of a run still training: finished models as before, models cut off mid-run as
// "running" rows with their epochs so far (best valid epoch, test at it, mean time per epoch).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
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

// A model's group with `rows` epochs of {valid nats, test nats at best}; `finished` adds what
// the task writes when the unit ends.
void addModel(Hdf5RunLog& log, const std::string& model,
              const std::vector<std::pair<double, double>>& rows, bool finished) {
  const std::string g = "/ptb-char/" + model;
  log.createGroup(g);
  for (const auto& [k, v] : std::map<std::string, std::string>{
           {"corpus", "ptb-char"}, {"model", model}, {"encoder", model}, {"metric", "bpc"}})
    log.setAttribute(g, k, v);
  log.setAttribute(g, "parameters", int64_t{1000});
  log.setAttribute(g, "hidden", int64_t{10});
  log.createTable(g + "/epochs", {"epoch", "train_loss", "train_nats", "valid_nats",
                                  "test_nats_at_best", "lr", "seconds", "examples_per_second"});
  for (size_t k = 0; k < rows.size(); ++k)
    log.appendRow(g + "/epochs", {double(k + 1), 1.0, 1.0, rows[k].first, rows[k].second, 2e-3,
                                  k == 0 ? 100.0 : 300.0, k == 0 ? 1000.0 : 2000.0});
  if (!finished) return;
  log.setAttribute(g, "status", std::string("finished"));
  log.setAttribute(g, "epochs", static_cast<int64_t>(rows.size()));
  log.setAttribute(g, "best_epoch", int64_t{1});
  log.setAttribute(g, "best_valid_bpc", 1.5);
  log.setAttribute(g, "test_bpc", 1.45);
  log.setAttribute(g, "seconds_per_epoch", 50.0);
  log.setAttribute(g, "symbols_per_second", 4000.0);
}

TEST(LmReport, ARunningModelShowsItsEpochsSoFarMarkedRunning) {
  const recurlab::testing::TempRoot temp;
  const fs::path& dir = temp.path();
  {
    Hdf5RunLog log((dir / "log.h5").string(), Hdf5RunLog::Mode::Create);
    log.setAttribute("/", "experiment", std::string("lm"));
    log.setAttribute("/", "config", std::string("{}"));
    addModel(log, "sru", {{1.1, 1.0}}, true);
    // Best valid at epoch 2 (0.9 nats); the last row's test is the test at that epoch.
    addModel(log, "qrnn", {{1.2, 1.15}, {0.9, 0.85}, {1.0, 0.85}}, false);
    log.createGroup("/ptb-char/lstm");  // started, no epoch yet: left out
    log.setAttribute("/ptb-char/lstm", "metric", std::string("bpc"));
  }
  analyzeRun(dir.string());
  std::ifstream in(dir / "summary.json");
  const auto summary = nlohmann::json::parse(in);
  EXPECT_EQ(summary.at("units_finished"), 1);
  EXPECT_EQ(summary.at("units_running"), 1);
  const auto& qrnn = summary.at("models").at("qrnn");
  EXPECT_EQ(qrnn.at("status"), "running");
  EXPECT_EQ(qrnn.at("epochs"), 3);
  EXPECT_NEAR(qrnn.at("valid").get<double>(), 0.9 / std::log(2.0), 1e-12);
  EXPECT_NEAR(qrnn.at("test").get<double>(), 0.85 / std::log(2.0), 1e-12);
  EXPECT_NEAR(qrnn.at("seconds_per_epoch").get<double>(), 700.0 / 3, 1e-9);
  EXPECT_NEAR(qrnn.at("symbols_per_second").get<double>(), (1e5 + 2 * 6e5) / 700.0, 1e-9);
  EXPECT_EQ(summary.at("models").at("sru").at("test"), 1.45);
  EXPECT_FALSE(summary.at("models").contains("lstm"));
  std::ifstream md_in(dir / "report.md");
  std::stringstream md;
  md << md_in.rdbuf();
  EXPECT_NE(md.str().find("| qrnn (running) |"), std::string::npos) << md.str();
  EXPECT_NE(md.str().find("**In progress:** 1 of 2 models"), std::string::npos);
  EXPECT_NE(md.str().find("Times and rates are wall-clock, measured while training"),
            std::string::npos) << md.str();
}

// A model the run planned but has not started (a --shard or --jobs worker that has not reached
// it) is named, and counts among the models not finished.
TEST(LmReport, NamesAPlannedModelWithoutAnEpochYet) {
  const recurlab::testing::TempRoot temp;
  const fs::path& dir = temp.path();
  {
    Hdf5RunLog log((dir / "log.h5").string(), Hdf5RunLog::Mode::Create);
    log.setAttribute("/", "experiment", std::string("lm"));
    log.setAttribute("/", "config", std::string("{}"));
    log.setAttribute("/", "units_planned", std::string(R"(["/ptb-char/sru","/ptb-char/qrnn","/ptb-char/lstm"])"));
    addModel(log, "sru", {{1.1, 1.0}}, true);
    addModel(log, "qrnn", {{1.2, 1.15}}, false);
  }
  analyzeRun(dir.string());
  const auto summary = nlohmann::json::parse(recurlab::testing::fileText(dir / "summary.json"));
  EXPECT_EQ(summary.at("units_finished"), 1);
  EXPECT_EQ(summary.at("units_running"), 1);
  EXPECT_EQ(summary.at("units_not_started"), nlohmann::json::array({"ptb-char/lstm"}));
  const std::string md = recurlab::testing::fileText(dir / "report.md");
  EXPECT_NE(md.find("**In progress:** 2 of 3 models have not finished (marked \"running\" below)"),
            std::string::npos) << md;
  EXPECT_NE(md.find("Not started yet (no epoch logged, so no row below): ptb-char/lstm."),
            std::string::npos) << md;
}

// A model started from a kept model (config key init_from) says so, with what the kept
// weights had reached, so that its epochs read as further epochs.
TEST(LmReport, NamesTheKeptModelAModelStartedFrom) {
  const recurlab::testing::TempRoot temp;
  const fs::path& dir = temp.path();
  {
    Hdf5RunLog log((dir / "log.h5").string(), Hdf5RunLog::Mode::Create);
    log.setAttribute("/", "experiment", std::string("lm"));
    log.setAttribute("/", "config", std::string("{}"));
    addModel(log, "lstm", {{1.0, 0.98}}, true);
    log.setAttribute("/ptb-char/lstm", "init_from", std::string("results/a/models/ptb-char/lstm"));
    log.setAttribute("/ptb-char/lstm", "init_from_manifest",
                     std::string(R"({"weights":"best","epoch":10,"metric":"test_bpc","value":1.4427})"));
    addModel(log, "sru", {{1.1, 1.0}}, true);
  }
  analyzeRun(dir.string());
  std::ifstream md_in(dir / "report.md");
  std::stringstream md;
  md << md_in.rdbuf();
  EXPECT_NE(md.str().find("Started from kept models (config key init_from)"), std::string::npos) << md.str();
  EXPECT_NE(md.str().find("- lstm: `results/a/models/ptb-char/lstm` (its best weights, epoch 10, test_bpc 1.443)"),
            std::string::npos) << md.str();
  EXPECT_EQ(md.str().find("- sru:"), std::string::npos) << md.str();
  std::ifstream in(dir / "summary.json");
  const auto summary = nlohmann::json::parse(in);
  EXPECT_EQ(summary.at("models").at("lstm").at("init_from"), "results/a/models/ptb-char/lstm");
  EXPECT_FALSE(summary.at("models").at("sru").contains("init_from"));
  // Its curve counts on from the kept model's 10 epochs: its one epoch is drawn at 11.
  const std::string curves = recurlab::testing::fileText(dir / "learning_curves.dat");
  EXPECT_NE(curves.find("\n11 "), std::string::npos) << curves;
  EXPECT_NE(md.str().find("its first epoch here is the kept epoch + 1"), std::string::npos) << md.str();
}

}  // namespace
}  // namespace recurlab::analysis
