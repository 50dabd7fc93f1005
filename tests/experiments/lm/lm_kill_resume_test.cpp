// recurlab_lm killed with SIGKILL inside an epoch (after a mid-epoch checkpoint) and run again
// ends with the same log as an uninterrupted run: the carried BPTT state is restored with the
// checkpoint, not restarted from zeros (a cold restart changes the losses).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "tests/experiments/harness/run_log_summary.h"
#include "tests/support/child_process.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;
using recurlab::testing::runChild;

TEST(LmKillResume, SigkillMidEpochResumesToTheUninterruptedResult) {
  const std::string program = recurlab::testing::siblingBinary("recurlab_lm");
  if (!fs::exists(program)) GTEST_SKIP() << program << " is not built";
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
  const auto whole = runChild(program, args("whole"), "", -1, output);
  ASSERT_EQ(whole.exit_code, 0) << "see " << output;
  // Killed at step 8 of epoch 1, after the checkpoint of step 6.
  const auto killed = runChild(program, args("killed"), "train-step:8", -1, output);
  ASSERT_TRUE(killed.killed) << "see " << output;
  const auto resumed = runChild(program, args("killed"), "", -1, output);
  ASSERT_EQ(resumed.exit_code, 0) << "see " << output;
  const auto a = recurlab::testing::finishedUnits((root / "whole").string());
  const auto b = recurlab::testing::finishedUnits((root / "killed").string());
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a, b);
  fs::remove_all(root);
}

}  // namespace
}  // namespace recurlab::experiments
