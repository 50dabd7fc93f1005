// The QA report of a run still training: a reader without its final attributes shows its best
// dev epoch so far, marked running, and counts in units_running; recurlab_compare's headline
// metrics leave running models out; a planned reader no shard has started yet is named.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "analysis/report_registry.h"
#include "analysis/run_comparison.h"
#include "common/log/hdf5_run_log.h"
#include "tests/support/temp_root.h"
#include "tests/support/file_text.h"

namespace recurlab::analysis {
namespace {

using experiments::Hdf5RunLog;
using recurlab::testing::fileText;

// A reader's group with `rows` epochs of {dev EM, dev F1}; `finished` adds what the task writes
// when the unit ends.
void addReader(Hdf5RunLog& log, const std::string& model,
               const std::vector<std::pair<double, double>>& rows, bool finished) {
  const std::string g = "/" + model;
  log.createGroup(g);
  log.setAttribute(g, "model", model);
  log.setAttribute(g, "encoder", model);
  log.setAttribute(g, "protocol", std::string("offline"));
  for (const char* count : {"train_examples", "dev_questions", "parameters"})
    log.setAttribute(g, count, int64_t{100});
  log.createTable(g + "/epochs", {"epoch", "train_loss", "dev_em", "dev_f1", "rnn_seconds",
                                  "rnn_cpu_seconds", "train_cpu_seconds", "seconds",
                                  "examples_per_second"});
  for (size_t k = 0; k < rows.size(); ++k)
    log.appendRow(g + "/epochs", {double(k + 1), 5.0, rows[k].first, rows[k].second, 10.0, 10.0,
                                  20.0, 30.0, 100.0});
  if (!finished) return;
  log.setAttribute(g, "status", std::string("finished"));
  log.setAttribute(g, "epochs", static_cast<int64_t>(rows.size()));
  log.setAttribute(g, "best_epoch", int64_t{1});
  log.setAttribute(g, "best_dev_em", rows[0].first);
  log.setAttribute(g, "best_dev_f1", rows[0].second);
}

TEST(QaReport, ARunningReaderShowsItsBestEpochSoFarMarkedRunning) {
  testing::TempRoot tmp;
  {
    Hdf5RunLog log(tmp.file("log.h5"), Hdf5RunLog::Mode::Create);
    log.setAttribute("/", "experiment", std::string("qa"));
    log.setAttribute("/", "config", std::string("{}"));
    log.setAttribute("/", "protocol", std::string("offline"));
    addReader(log, "sru", {{40.0, 50.0}}, true);
    // Best dev F1 at epoch 2; its EM is that epoch's, not the highest EM.
    addReader(log, "lstm", {{20.0, 30.0}, {25.0, 36.0}, {27.0, 35.0}}, false);
    log.createGroup("/cnn");  // started, no epoch yet: left out
    log.setAttribute("/cnn", "model", std::string("cnn"));
  }
  analyzeRun(tmp.path().string());
  const auto summary = nlohmann::json::parse(fileText(tmp.path() / "summary.json"));
  EXPECT_EQ(summary.at("units_finished"), 1);
  EXPECT_EQ(summary.at("units_running"), 1);
  const auto& lstm = summary.at("models").at("lstm");
  EXPECT_EQ(lstm.at("status"), "running");
  EXPECT_EQ(lstm.at("epochs"), 3);
  EXPECT_EQ(lstm.at("best_epoch"), 2);
  EXPECT_EQ(lstm.at("dev_f1"), 36.0);
  EXPECT_EQ(lstm.at("dev_em"), 25.0);
  EXPECT_EQ(summary.at("models").at("sru").at("dev_f1"), 50.0);
  EXPECT_FALSE(summary.at("models").contains("cnn"));
  const std::string md = fileText(tmp.path() / "report.md");
  EXPECT_NE(md.find("| lstm (running) |"), std::string::npos) << md;
  EXPECT_NE(md.find("**In progress:** 1 of 2 readers"), std::string::npos) << md;

  // Only the finished reader is a result to compare.
  const auto metrics = headlineMetrics("qa", summary);
  ASSERT_EQ(metrics.size(), 2u);
  for (const auto& m : metrics) EXPECT_EQ(m.model, "sru") << m.metric;
}

// A --jobs 2 run whose second worker has not logged an epoch of its reader yet: that shard's log
// has no row for it, and the report must not read as complete.
TEST(QaReport, NamesAPlannedReaderThatNoShardHasStarted) {
  testing::TempRoot tmp;
  const std::string planned = R"(["/lstm","/sru"])";
  {
    Hdf5RunLog log(tmp.file("log.shard-0-of-2.h5"), Hdf5RunLog::Mode::Create);
    log.setAttribute("/", "experiment", std::string("qa"));
    log.setAttribute("/", "config", std::string("{}"));
    log.setAttribute("/", "units_planned", planned);
    addReader(log, "sru", {{40.0, 50.0}}, true);
  }
  {
    Hdf5RunLog log(tmp.file("log.shard-1-of-2.h5"), Hdf5RunLog::Mode::Create);
    log.setAttribute("/", "experiment", std::string("qa"));
    log.setAttribute("/", "config", std::string("{}"));
    log.setAttribute("/", "units_planned", planned);
    log.createGroup("/lstm");  // started, no epoch yet
    log.setAttribute("/lstm", "model", std::string("lstm"));
  }
  analyzeRun(tmp.path().string());
  const auto summary = nlohmann::json::parse(fileText(tmp.path() / "summary.json"));
  EXPECT_EQ(summary.at("units_finished"), 1);
  EXPECT_EQ(summary.at("units_running"), 0);
  EXPECT_EQ(summary.at("units_not_started"), nlohmann::json::array({"lstm"}));
  const std::string md = fileText(tmp.path() / "report.md");
  EXPECT_NE(md.find("**In progress:** 1 of 2 readers have not finished. Not started yet (no epoch "
                    "logged, so no row below): lstm."),
            std::string::npos) << md;

  // Every planned reader logged and finished: no note.
  {
    Hdf5RunLog log(tmp.file("log.shard-1-of-2.h5"), Hdf5RunLog::Mode::Append);
    log.remove("/lstm");
    addReader(log, "lstm", {{30.0, 45.0}}, true);
  }
  analyzeRun(tmp.path().string());
  const auto after = nlohmann::json::parse(fileText(tmp.path() / "summary.json"));
  EXPECT_EQ(after.at("units_finished"), 2);
  EXPECT_FALSE(after.contains("units_not_started"));
  EXPECT_EQ(fileText(tmp.path() / "report.md").find("In progress"), std::string::npos);
}

}  // namespace
}  // namespace recurlab::analysis
