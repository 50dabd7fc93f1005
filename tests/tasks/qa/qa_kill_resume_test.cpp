// recurlab_qa killed with SIGKILL while preparing (after the evaluation data is written),
// mid-epoch after a checkpoint, and between writing a checkpoint and putting it in place, and
// run again each time, ends with the uninterrupted run's epochs table and predictions; each run
// after a kill went on from the last checkpoint put in place before it (resume_trace.h). Its report agrees with its log and with
// recurlab_squad_eval.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/log/hdf5_run_log.h"
#include "tasks/qa/squad_evaluation.h"
#include "tests/experiments/harness/run_log_summary.h"
#include "tests/support/child_process.h"
#include "tests/support/file_text.h"
#include "tests/support/required.h"
#include "tests/support/resume_trace.h"
#include "tests/support/temp_root.h"
#include "tests/tasks/qa/squad_test_data.h"

namespace recurlab::experiments::qa {
namespace {

namespace fs = std::filesystem;
using recurlab::testing::runChild;

// The data-parallel tests' run config with dropout (resuming must restore the random state
// too) on 48 training questions: 6 whole batches of 8.
nlohmann::json qaKillConfig() {
  auto config = tinyQaRunConfig();
  config["data"]["max_train_questions"] = 48;
  config["reader"]["embed_dropout"] = 0.1;
  config["reader"]["output_dropout"] = 0.1;
  return config;
}

using recurlab::testing::fileText;

TEST(QaKillResume, SigkillWhilePreparingAndTrainingResumesToTheUninterruptedResult) {
  RECURLAB_REQUIRE_OR_SKIP(squadUnavailableReason());
  const std::string program = recurlab::testing::siblingBinary("recurlab_qa");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  recurlab::testing::TempRoot tmp("recurlab_qa_kill");
  std::ofstream(tmp.root / "config.json") << qaKillConfig().dump();
  // --data-dir: the folder holding squad/dev-v1.1.json.
  const std::string data = squadDataDir();
  auto args = [&](const std::string& out) {
    return std::vector<std::string>{
        "--config", (tmp.root / "config.json").string(), "--data-dir", data,
        "--out",    (tmp.root / out).string(),           "--threads",  "1"};
  };
  const std::string output = (tmp.root / "children.txt").string();
  recurlab::testing::ResumeTrace whole_trace(output), trace(output);
  ASSERT_EQ(whole_trace.run(program, args("whole")).exit_code, 0) << whole_trace.describe(0);
  // 6 steps an epoch, checkpoints after steps 2 and 4 and at the epoch's end: the kill while
  // preparing leaves nothing to resume; the one at step 3 leaves step 2's checkpoint; the next
  // run, from step 2, is killed writing its second checkpoint (the epoch's end): step 4's stays.
  recurlab::testing::runWithChosenKills(trace, program, args("killed"),
                                        {{"eval-data-written:1", "", false},
                                         {"train-step:3", "epoch 1 batch 2 step 2"},
                                         {"checkpoint-written:2", "epoch 1 batch 4 step 4"}});

  const auto whole = (tmp.root / "whole").string(), killed = (tmp.root / "killed").string();
  const auto expected = recurlab::testing::finishedUnits(whole);
  ASSERT_EQ(expected.size(), 1u);
  EXPECT_EQ(recurlab::testing::finishedUnits(killed), expected);
  EXPECT_EQ(fileText(tmp.root / "killed" / "predictions-sru.json"),
            fileText(tmp.root / "whole" / "predictions-sru.json"));
  EXPECT_EQ(fileText(tmp.root / "killed" / "eval-data.json"),
            fileText(tmp.root / "whole" / "eval-data.json"));
  EXPECT_EQ(recurlab::testing::resumedUnits(whole).at("/sru"), 0);
  EXPECT_EQ(recurlab::testing::resumePositions(killed).at("/sru"), "epoch 1 step 4");

  // The report against the log: summary.json and the results table carry the log's best
  // dev EM/F1 and epochs, and recurlab_squad_eval on the files the report names gives them.
  Hdf5RunLog log((tmp.root / "killed" / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
  const double em = log.doubleAttribute("/sru", "best_dev_em");
  const double f1 = log.doubleAttribute("/sru", "best_dev_f1");
  const auto summary = nlohmann::json::parse(fileText(tmp.root / "killed" / "summary.json"));
  const auto& model = summary.at("models").at("sru");
  EXPECT_EQ(model.at("dev_em").get<double>(), em);
  EXPECT_EQ(model.at("dev_f1").get<double>(), f1);
  EXPECT_EQ(model.at("epochs").get<int64_t>(), 2);
  EXPECT_EQ(model.at("best_epoch").get<int64_t>(), log.intAttribute("/sru", "best_epoch"));
  const std::string report = fileText(tmp.root / "killed" / "report.md");
  const auto at = report.find("| sru | sru |");
  ASSERT_NE(at, std::string::npos) << report;
  const std::string row = report.substr(at, report.find('\n', at) - at);
  char em_text[32], f1_text[32], epochs_text[32];
  std::snprintf(em_text, sizeof em_text, "%.1f", em);
  std::snprintf(f1_text, sizeof f1_text, "%.1f", f1);
  std::snprintf(epochs_text, sizeof epochs_text, "%lld / 2",
                static_cast<long long>(log.intAttribute("/sru", "best_epoch")));
  for (const char* cell : {em_text, f1_text, epochs_text})
    EXPECT_NE(row.find(cell), std::string::npos) << cell << " not in: " << row;
  const std::string scored = (tmp.root / "scored.txt").string();
  const auto eval = runChild(recurlab::testing::siblingBinary("recurlab_squad_eval"),
                             {(tmp.root / "killed" / "eval-data.json").string(),
                              (tmp.root / "killed" / "predictions-sru.json").string()},
                             "", -1, scored);
  EXPECT_EQ(eval.exit_code, 0) << fileText(scored);
  EXPECT_NE(fileText(scored).find("{\"exact_match\": " + pythonFloat(em) +
                                  ", \"f1\": " + pythonFloat(f1) + "}"),
            std::string::npos)
      << fileText(scored) << " vs EM " << em << " F1 " << f1;
}

}  // namespace
}  // namespace recurlab::experiments::qa
