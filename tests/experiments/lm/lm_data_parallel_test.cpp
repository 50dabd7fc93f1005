// recurlab_lm on two data-parallel Gloo ranks (5 BPTT streams: rank 0 takes 2, rank 1 takes
// 3, each carrying its own streams' state): the epochs, valid and test numbers of one process
// with all 5 streams, to float tolerance; rank 1 killed mid-epoch ends rank 0 with an error,
// and the run started again resumes (each rank with its own carried state) to the
// uninterrupted two-rank result.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/log/hdf5_run_log.h"
#include "tests/experiments/harness/data_parallel_runs.h"
#include "tests/experiments/harness/run_log_summary.h"
#include "tests/support/child_process.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;
using recurlab::testing::fileText;
using recurlab::testing::runChild;

const std::string kGroup = "/toy/sru";

class LmDataParallel : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(program())) << program() << " is not built";
    if (tmp_ != nullptr) return;
    tmp_ = new recurlab::testing::TempRoot("recurlab_lm_dp");
    const fs::path& root = tmp_->root;
    std::string text;
    for (int i = 0; i < 300; ++i)
      text += (i % 3 ? "the cat sat " : "on a mat ") + std::string(i % 7 ? "" : "\n");
    for (const char* split : {"train.txt", "valid.txt", "test.txt"})
      std::ofstream(root / split) << (std::string(split) == "train.txt" ? text : text.substr(0, 600));
    // No dropout: rank 1 would draw other masks than the one process.
    const nlohmann::json config = {
        {"experiment", "lm"},
        {"seed", 5},
        {"corpus", {{"name", "toy"}, {"format", "chars"}, {"train", (root / "train.txt").string()},
                    {"valid", (root / "valid.txt").string()}, {"test", (root / "test.txt").string()}}},
        {"lm", {{"embed_dim", 8}, {"batch_size", 5}, {"bptt", 20}, {"eval_batch_size", 2},
                {"output_dropout", 0.0}}},
        {"train", {{"optimizer", "adam"}, {"lr", 0.01}, {"max_epochs", 2},
                   {"checkpoint_every_steps", 3}}},
        {"models", {{"sru", {{"encoder", "sru"},
                             {"config", {{"layers", 2}, {"hidden", 12}, {"dropout", 0.0}}}}}}}};
    std::ofstream(root / "config.json") << config.dump();
  }
  static void TearDownTestSuite() {
    delete tmp_;
    tmp_ = nullptr;
  }
  static std::string program() { return recurlab::testing::siblingBinary("recurlab_lm"); }
  static std::string folder(const std::string& out) { return (tmp_->root / out).string(); }
  static std::string output(const std::string& out) {
    return (tmp_->root / (out + ".txt")).string();
  }
  static std::vector<std::string> args(const std::string& out, int ranks) {
    std::vector<std::string> a{"--config", (tmp_->root / "config.json").string(), "--out",
                               folder(out), "--threads", "1"};
    if (ranks > 1)
      for (const std::string& x : {std::string("--nproc-per-node"), std::to_string(ranks)})
        a.push_back(x);
    return a;
  }
  // The uninterrupted run into `out` on `ranks` processes, once per test program.
  static void runOnce(const std::string& out, int ranks) {
    if (fs::exists(fs::path(folder(out)) / "summary.json")) return;
    const auto r = runChild(program(), args(out, ranks), "", -1, output(out));
    ASSERT_EQ(r.exit_code, 0) << fileText(output(out));
  }
  static inline recurlab::testing::TempRoot* tmp_ = nullptr;
};

TEST_F(LmDataParallel, TwoRanksTrainLikeOneProcessWithAllStreams) {
  runOnce("one", 1);
  runOnce("two", 2);
  recurlab::testing::expectEpochsNear(recurlab::testing::untimedEpochs(folder("one"), kGroup),
                                      recurlab::testing::untimedEpochs(folder("two"), kGroup),
                                      2e-5);
  Hdf5RunLog one((fs::path(folder("one")) / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
  Hdf5RunLog two((fs::path(folder("two")) / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
  for (const char* metric : {"best_valid_nats", "test_nats"})
    EXPECT_NEAR(two.doubleAttribute(kGroup, metric), one.doubleAttribute(kGroup, metric), 1e-5)
        << metric;
}

TEST_F(LmDataParallel, KilledRankEndsTheOtherAndTheRunResumes) {
  runOnce("two", 2);
  // Rank 1 dies at step 4 of epoch 1, after the checkpoint of step 3 (its own streams' state).
  recurlab::testing::expectKilledRankEndsTheOther(program(), args("killed", 1), "train-step:4",
                                                  output("killed"));
  const auto r = runChild(program(), args("killed", 2), "", 300000, output("resumed"));
  ASSERT_FALSE(r.killed) << "the resumed run hung: " << fileText(output("resumed"));
  ASSERT_EQ(r.exit_code, 0) << fileText(output("resumed"));
  EXPECT_EQ(recurlab::testing::finishedUnits(folder("killed")),
            recurlab::testing::finishedUnits(folder("two")));
  EXPECT_EQ(recurlab::testing::resumedUnits(folder("killed")).at(kGroup), 1);
}

}  // namespace
}  // namespace recurlab::experiments
