// recurlab_lm killed with SIGKILL inside an epoch (after a mid-epoch checkpoint) and while
// writing a checkpoint, and run again, ends with the same log as an uninterrupted run: the
// carried BPTT state is restored with the checkpoint, not restarted from zeros (a cold restart
// changes the losses), and each run after a kill went on from the last checkpoint put in place
// before it (tests/support/resume_trace.h).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "common/log/hdf5_run_log.h"
#include "tests/experiments/harness/run_log_summary.h"
#include "tests/support/resume_trace.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

TEST(LmKillResume, SigkillMidEpochResumesToTheUninterruptedResult) {
  const std::string program = recurlab::testing::siblingBinary("recurlab_lm");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  const fs::path root = recurlab::testing::perProcessTempPath("recurlab_lm_kill_");
  fs::remove_all(root);
  fs::create_directories(root);
  std::string text;
  for (int i = 0; i < 400; ++i) text += (i % 3 ? "the cat sat " : "on a mat ") + std::string(i % 7 ? "" : "\n");
  for (const char* split : {"train.txt", "valid.txt", "test.txt"})
    std::ofstream(root / split) << (std::string(split) == "train.txt" ? text : text.substr(0, 900));
  const nlohmann::json config = {
      {"experiment", "lm"},
      {"seed", 5},
      {"corpus", {{"name", "toy"}, {"format", "chars"}, {"train", (root / "train.txt").string()},
                  {"valid", (root / "valid.txt").string()}, {"test", (root / "test.txt").string()}}},
      {"lm", {{"embed_dim", 8}, {"batch_size", 4}, {"bptt", 20}, {"eval_batch_size", 2},
              {"output_dropout", 0.1}}},
      {"train", {{"optimizer", "adam"}, {"lr", 0.01}, {"max_epochs", 2},
                 {"checkpoint_every_steps", 3}}},
      {"models", {{"sru", {{"encoder", "sru"}, {"config", {{"layers", 2}, {"hidden", 12}, {"dropout", 0.1}}}}}}}};
  std::ofstream(root / "config.json") << config.dump();
  auto args = [&](const std::string& out) {
    return std::vector<std::string>{"--config", (root / "config.json").string(), "--threads", "1",
                                    "--out", (root / out).string()};
  };
  const std::string output = (root / "output.txt").string();
  recurlab::testing::ResumeTrace whole_trace(output), trace(output);
  const auto whole = whole_trace.run(program, args("whole"));
  ASSERT_EQ(whole.exit_code, 0) << whole_trace.describe(0);
  EXPECT_TRUE(whole_trace.resumesOf(0).empty()) << whole_trace.describe(0);
  // Killed at step 8 of epoch 1, after the checkpoint of step 6; then, resumed from it,
  // between writing the step-12 checkpoint and putting it in place (step 9's is in place).
  recurlab::testing::runWithChosenKills(
      trace, program, args("killed"),
      {{"train-step:8", "epoch 1 batch 6 step 6"}, {"checkpoint-written:2", "epoch 1 batch 9 step 9"}});
  const auto a = recurlab::testing::finishedUnits((root / "whole").string());
  const auto b = recurlab::testing::finishedUnits((root / "killed").string());
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a, b);
  // The log says where the finishing run went on from: the step-9 checkpoint.
  EXPECT_EQ(recurlab::testing::resumedUnitCount((root / "whole").string()), 0);
  const auto positions = recurlab::testing::resumePositions((root / "killed").string());
  ASSERT_EQ(positions.size(), 1u);
  EXPECT_EQ(positions.begin()->second, "epoch 1 step 9");

  // The report against the log: summary.json carries the unit's epochs, parameters and its
  // best valid number: the lowest valid nats of the epochs table, in bits per character (or
  // as a perplexity).
  const auto units = recurlab::testing::resumedUnits((root / "killed").string());
  ASSERT_EQ(units.size(), 1u);
  const std::string group = units.begin()->first;
  Hdf5RunLog log((root / "killed" / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
  const std::string metric = log.stringAttribute(group, "metric");
  const auto valid = log.readTable(group + "/epochs").column("valid_nats");
  ASSERT_EQ(valid.size(), 2u);
  const double best_nats = *std::min_element(valid.begin(), valid.end());
  ASSERT_TRUE(metric == "bpc" || metric == "ppl") << metric;
  const double best = metric == "bpc" ? best_nats / std::log(2.0) : std::exp(best_nats);
  std::ifstream summary_file(root / "killed" / "summary.json");
  ASSERT_TRUE(summary_file) << "no summary.json: the report was not written";
  const auto summary = nlohmann::json::parse(summary_file);
  const auto& model = summary.at("models").at("sru");
  EXPECT_NEAR(model.at("valid").get<double>(), best, 1e-12 * best);
  EXPECT_EQ(model.at("test").get<double>(), log.doubleAttribute(group, "test_" + metric));
  EXPECT_EQ(model.at("epochs").get<int64_t>(), 2);
  EXPECT_EQ(model.at("parameters").get<int64_t>(), log.intAttribute(group, "parameters"));
  fs::remove_all(root);
}

}  // namespace
}  // namespace recurlab::experiments
