// recurlab_qa on two data-parallel Gloo ranks (each takes half of every batch's questions):
// the epochs and dev EM/F1 of one process with the same batches, to float tolerance; rank 1
// killed mid-epoch ends rank 0 with an error, and the run started again resumes to the
// uninterrupted two-rank result.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/log/hdf5_run_log.h"
#include "tests/experiments/harness/data_parallel_runs.h"
#include "tests/experiments/harness/run_log_summary.h"
#include "tests/experiments/qa/squad_test_data.h"
#include "tests/support/child_process.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments::qa {
namespace {

namespace fs = std::filesystem;
using recurlab::testing::fileText;
using recurlab::testing::runChild;

// An SRU reader of width 8 without dropout (rank 1 would draw other masks) on 45 training and
// 16 dev questions of the offline split: 2 epochs of 6 batches of 8 (the last of 5, split 2 +
// 3), checkpoints every 2 steps.
nlohmann::json qaConfig() {
  return nlohmann::json::parse(R"({
    "experiment": "qa", "seed": 5,
    "data": {"protocol": "offline", "split_seed": 1, "dev_articles": 10,
             "max_train_questions": 45, "max_dev_questions": 16},
    "reader": {"embed_dim": 8, "embed_dropout": 0.0, "output_dropout": 0.0, "max_span": 15},
    "train": {"optimizer": "adam", "lr": 0.002, "clip": 10, "batch_size": 8,
              "schedule": "constant", "max_epochs": 2, "checkpoint_every_steps": 2},
    "models": {
      "sru": {"encoder": "sru", "config": {"layers": 1, "hidden": 8, "bidirectional": true}}
    }
  })");
}

class QaDataParallel : public ::testing::Test {
 protected:
  void SetUp() override {
    if (squadDevPath().empty()) GTEST_SKIP() << "no dev-v1.1.json";
    ASSERT_TRUE(fs::exists(program())) << program() << " is not built";
    if (tmp_ != nullptr) return;
    tmp_ = new recurlab::testing::TempRoot("recurlab_qa_dp");
    std::ofstream(tmp_->root / "config.json") << qaConfig().dump();
  }
  static void TearDownTestSuite() {
    delete tmp_;
    tmp_ = nullptr;
  }
  static std::string program() { return recurlab::testing::siblingBinary("recurlab_qa"); }
  static std::string folder(const std::string& out) { return (tmp_->root / out).string(); }
  static std::string output(const std::string& out) {
    return (tmp_->root / (out + ".txt")).string();
  }
  static std::vector<std::string> args(const std::string& out, int ranks) {
    // --data-dir: the folder holding squad/dev-v1.1.json.
    const std::string data =
        fs::absolute(fs::path(squadDevPath())).parent_path().parent_path().string();
    std::vector<std::string> a{"--config",  (tmp_->root / "config.json").string(),
                               "--data-dir", data,
                               "--out",      folder(out),
                               "--threads",  "1"};
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

TEST_F(QaDataParallel, TwoRanksTrainLikeOneProcessWithTheWholeBatch) {
  runOnce("one", 1);
  runOnce("two", 2);
  recurlab::testing::expectEpochsNear(recurlab::testing::untimedEpochs(folder("one"), "/sru"),
                                      recurlab::testing::untimedEpochs(folder("two"), "/sru"),
                                      2e-5);
  Hdf5RunLog one((fs::path(folder("one")) / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
  Hdf5RunLog two((fs::path(folder("two")) / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
  for (const char* metric : {"best_dev_em", "best_dev_f1"})
    EXPECT_NEAR(two.doubleAttribute("/sru", metric), one.doubleAttribute("/sru", metric), 1e-6)
        << metric;
  // Rank 0 alone evaluated and wrote the predictions.
  EXPECT_EQ(fileText(folder("two") + "/predictions-sru.json"),
            fileText(folder("one") + "/predictions-sru.json"));
  EXPECT_FALSE(fs::exists(fs::path(folder("two")) / "ranks" / "rank-1" / "predictions-sru.json"));
}

TEST_F(QaDataParallel, KilledRankEndsTheOtherAndTheRunResumes) {
  runOnce("two", 2);
  // Rank 1 dies at step 3 of epoch 1, after the checkpoint of step 2.
  recurlab::testing::expectKilledRankEndsTheOther(program(), args("killed", 1), "train-step:3",
                                                  output("killed"));
  const auto r = runChild(program(), args("killed", 2), "", 300000, output("resumed"));
  ASSERT_FALSE(r.killed) << "the resumed run hung: " << fileText(output("resumed"));
  ASSERT_EQ(r.exit_code, 0) << fileText(output("resumed"));
  EXPECT_EQ(recurlab::testing::finishedUnits(folder("killed")),
            recurlab::testing::finishedUnits(folder("two")));
  EXPECT_EQ(recurlab::testing::resumedUnits(folder("killed")).at("/sru"), 1);
  EXPECT_EQ(fileText(folder("killed") + "/predictions-sru.json"),
            fileText(folder("two") + "/predictions-sru.json"));
}

}  // namespace
}  // namespace recurlab::experiments::qa
