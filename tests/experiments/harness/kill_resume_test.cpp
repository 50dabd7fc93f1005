// Resume after real kills: a child process is killed with SIGKILL (no destructor runs, the
// log is not closed) at chosen points (mid-epoch, between writing a checkpoint and putting it
// in place, between the log row and the checkpoint, between units) and at random times, then
// run again until it finishes; the result must equal an uninterrupted run's, and the run that
// finished a killed unit must have started from its checkpoint (resumed_from_checkpoint).
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/harness/run_folder.h"
#include "tests/experiments/harness/run_log_summary.h"
#include "tests/support/child_process.h"
#include "tests/support/file_text.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;
using recurlab::testing::runChild;

using recurlab::testing::TempRoot;

// The children's last lines, for a failure message: the file goes with the test's folder,
// and on a CI machine the message is all that is left.
std::string lastLinesOf(const std::string& output, size_t count = 12) {
  std::istringstream in(recurlab::testing::fileText(output));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string text = output + ", last lines:";
  for (size_t i = lines.size() > count ? lines.size() - count : 0; i < lines.size(); ++i)
    text += "\n  " + lines[i];
  return text;
}

// Kills at each chosen point (each must be reached), then runs to the end.
void runWithKills(const std::string& program, const std::vector<std::string>& args,
                  const std::vector<std::string>& points, const std::string& output) {
  for (const auto& point : points) {
    const auto r = runChild(program, args, point, -1, output);
    EXPECT_TRUE(r.killed) << "the child never reached kill point " << point << " (exit "
                          << r.exit_code << "; see " << lastLinesOf(output) << ")";
  }
  const auto last = runChild(program, args, "", -1, output);
  ASSERT_FALSE(last.killed);
  ASSERT_EQ(last.exit_code, 0) << "see " << lastLinesOf(output);
}

// Runs `args` uninterrupted and returns its wall time in milliseconds.
int timedRun(const std::string& program, const std::vector<std::string>& args,
             const std::string& output) {
  const auto start = std::chrono::steady_clock::now();
  const auto r = runChild(program, args, "", -1, output);
  EXPECT_EQ(r.exit_code, 0) << "see " << lastLinesOf(output);
  return static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now() - start)
                              .count());
}

// Kills a fresh run `kills` times at random moments, then runs it to the end, and returns how
// many kills hit. The first kill comes at 10-60% of `whole_ms` (an uninterrupted run's time)
// into a fresh run in `out`. The machine may have got faster since `whole_ms` was measured
// (ctest runs tests side by side), so a first kill that finds the run already done starts over
// on a fresh folder with half the delay, until one hits; later kills may find the run done.
int runWithRandomKills(const std::string& program, const std::vector<std::string>& args,
                       const std::string& out, int kills, int whole_ms,
                       const std::string& output) {
  std::mt19937 rng(7);
  int hits = 0;
  for (int k = 0; k < kills; ++k) {
    const int lo = whole_ms / 10, span = std::max(1, whole_ms / 2);
    int delay = lo + static_cast<int>(rng() % span);
    for (int attempt = 0;; ++attempt) {
      const auto r = runChild(program, args, "", delay, output);
      if (r.killed) {
        ++hits;
        break;
      }
      EXPECT_EQ(r.exit_code, 0) << "see " << lastLinesOf(output);
      if (k > 0 || attempt == 8 || delay <= 1) break;
      fs::remove_all(out);
      delay /= 2;
    }
  }
  const auto last = runChild(program, args, "", -1, output);
  EXPECT_FALSE(last.killed);
  EXPECT_EQ(last.exit_code, 0) << "see " << lastLinesOf(output);
  return hits;
}

TEST(KillResume, ClassificationSurvivesSigkillAtChosenAndRandomPoints) {
  const std::string program = recurlab::testing::siblingBinary("recurlab_classification");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  TempRoot tmp("recurlab_kill_cls");
  fs::create_directories(tmp.root / "data" / "classification");
  {
    std::ofstream mr(tmp.root / "data" / "classification" / "rt-polarity.all");
    // Latin-1 bytes as in the real rt-polarity.all: the kept model's vocabulary must hold them.
    const char* filler[] = {"the", "film", "plot", "is", "a", "story", "of", "na\xefve"};
    for (int i = 0; i < 60; ++i) {
      mr << i % 2;
      for (int t = 0; t < 3 + i % 3; ++t) mr << " " << filler[(i + 3 * t) % 8];
      mr << " " << (i % 2 ? "great" : "dull") << " .\n";
    }
  }
  const auto config = (tmp.root / "tiny.json").string();
  std::ofstream(config) << R"({
    "seed": 3, "datasets": ["MR"], "cv_folds": 10, "folds": 2, "trials": 2, "seeds": 1,
    "train": {"max_epochs": 3, "embed_dim": 8, "batch_size": 8, "checkpoint_every_steps": 2,
              "lr": {"loguniform": [0.001, 0.01]}},
    "models": {"sru": {"encoder": "sru", "config": {"layers": 1, "hidden": 8}}}
  })";
  auto args = [&](const std::string& out) {
    return std::vector<std::string>{"--config", config, "--data-dir", (tmp.root / "data").string(),
                                    "--out", out, "--threads", "1"};
  };
  const std::string output = (tmp.root / "children.txt").string();
  const std::string whole = (tmp.root / "whole").string(), killed = (tmp.root / "killed").string();
  const std::string random = (tmp.root / "random").string();
  const int whole_ms = timedRun(program, args(whole), output);
  runWithKills(program, args(killed),
               {"train-step:5", "checkpoint-written:3", "epoch-row-written:2", "unit-finished:1",
                "train-step:9", "epoch-end:2"},
               output);
  const auto expected = recurlab::testing::finishedUnits(whole);
  EXPECT_EQ(expected.size(), 4u);
  EXPECT_EQ(recurlab::testing::finishedUnits(killed), expected);
  // The first kill (step 5, after the checkpoint of step 4) left unit 0 mid-epoch: the run
  // that finished it started from its checkpoint, not from scratch.
  EXPECT_EQ(recurlab::testing::resumedUnitCount(whole), 0);
  EXPECT_GE(recurlab::testing::resumedUnitCount(killed), 1);
  EXPECT_GE(runWithRandomKills(program, args(random), random, 3, whole_ms, output), 1)
      << "no random kill hit a running child";
  EXPECT_EQ(recurlab::testing::finishedUnits(random), expected);
}

TEST(KillResume, CheckpointedLongUnitResumesBitIdentically) {
  const std::string program = recurlab::testing::siblingBinary("recurlab_toy_task");
  TempRoot tmp("recurlab_kill_long");
  auto args = [&](const std::string& out) {
    return std::vector<std::string>{
        "--out", out, "--threads", "1", "--set", "seeds=1", "--set",
        "keep_checkpoints=true", "--set",
        R"(train={"examples": 512, "batch_size": 4, "max_epochs": 6, "lr": 0.01,
                  "checkpoint_every_steps": 16, "log_every_steps": 8, "optimizer": "adam"})"};
  };
  const std::string output = (tmp.root / "children.txt").string();
  const std::string whole = (tmp.root / "whole").string(), killed = (tmp.root / "killed").string();
  const std::string random = (tmp.root / "random").string();
  const int whole_ms = timedRun(program, args(whole), output);
  runWithKills(program, args(killed),
               {"train-step:40", "checkpoint-written:2", "epoch-row-written:1", "train-step:150",
                "epoch-end:1"},
               output);
  const auto expected = recurlab::testing::finishedUnits(whole);
  ASSERT_EQ(expected.size(), 1u);
  EXPECT_EQ(recurlab::testing::finishedUnits(killed), expected);
  // The one unit was finished by a run that started from its checkpoint.
  EXPECT_EQ(recurlab::testing::resumedUnits(whole).at("/toy/seeds/0"), 0);
  EXPECT_EQ(recurlab::testing::resumedUnits(killed).at("/toy/seeds/0"), 1);
  EXPECT_GE(runWithRandomKills(program, args(random), random, 3, whole_ms, output), 1)
      << "no random kill hit a running child";
  EXPECT_EQ(recurlab::testing::finishedUnits(random), expected);
  // The final weights, bit for bit.
  torch::serialize::InputArchive a, b;
  a.load_from((fs::path(whole) / "checkpoints" / "toy_seeds_0" / "last.pt").string());
  b.load_from((fs::path(killed) / "checkpoints" / "toy_seeds_0" / "last.pt").string());
  // The toy model is a Sequential: its one Linear is the submodule "0".
  torch::serialize::InputArchive model_a, model_b, ma, mb;
  a.read("model", model_a);
  b.read("model", model_b);
  model_a.read("0", ma);
  model_b.read("0", mb);
  for (const char* name : {"weight", "bias"}) {
    torch::Tensor x, y;
    ma.read(name, x);
    mb.read(name, y);
    EXPECT_TRUE(torch::equal(x, y)) << name << ": " << x << " vs " << y;
  }
}

}  // namespace
}  // namespace recurlab::experiments
