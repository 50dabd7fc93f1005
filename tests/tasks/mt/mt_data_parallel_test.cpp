// recurlab_mt on two data-parallel Gloo ranks (each takes half of every token-count batch's
// sentences, gradients weighed by target tokens): the epochs and the final beam test of one
// process with the same batches, to float tolerance; rank 1 killed mid-epoch ends rank 0 with
// an error, and the run started again resumes to the uninterrupted two-rank result.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/log/hdf5_run_log.h"
#include "tests/experiments/harness/data_parallel_runs.h"
#include "tests/support/tiny_multi30k.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

// Without dropout: rank 1 would draw other masks.
nlohmann::json mtConfig() { return recurlab::testing::tinyMtRunConfig(); }

class MtDataParallel : public recurlab::testing::DataParallelRuns<MtDataParallel> {
 public:
  static constexpr const char* kProgram = "recurlab_mt";
  static std::string skipReason() { return recurlab::testing::tinyMulti30kUnavailableReason(); }
  static void writeInputs(const fs::path& root) {
    recurlab::testing::writeTinyMulti30k(root / "data");  // 160 train, 20 valid, 10 test
    std::ofstream(root / "config.json") << mtConfig().dump();
  }
  static std::vector<std::string> dataArgs(const fs::path& root) {
    return {"--data-dir", (root / "data").string()};
  }
};

TEST_F(MtDataParallel, TwoRanksTrainLikeOneProcessWithTheWholeBatch) {
  runOnce("one", 1);
  runOnce("two", 2);
  recurlab::testing::expectEpochsNear(recurlab::testing::untimedEpochs(folder("one"), "/tiny"),
                                      recurlab::testing::untimedEpochs(folder("two"), "/tiny"),
                                      2e-5);
  // Rank 0 alone averaged the last two epochs and decoded the test set with beam search.
  Hdf5RunLog one((fs::path(folder("one")) / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
  Hdf5RunLog two((fs::path(folder("two")) / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
  EXPECT_EQ(two.intAttribute("/tiny", "checkpoints_averaged"), 2);
  EXPECT_NEAR(two.doubleAttribute("/tiny", "final_valid_nll"),
              one.doubleAttribute("/tiny", "final_valid_nll"), 1e-4);
  EXPECT_NEAR(two.doubleAttribute("/tiny", "test_bleu"), one.doubleAttribute("/tiny", "test_bleu"),
              1e-6);
  EXPECT_EQ(two.readText("/tiny/test_translations"), one.readText("/tiny/test_translations"));
  // Rank 1 kept its own log, without the final test.
  Hdf5RunLog rank1((fs::path(folder("two")) / "ranks" / "rank-1" / "log.h5").string(),
                   Hdf5RunLog::Mode::ReadOnly);
  EXPECT_FALSE(rank1.attribute("/tiny", "test_bleu"));
}

TEST_F(MtDataParallel, KilledRankEndsTheOtherAndTheRunResumes) {
  runOnce("two", 2);
  // Rank 1 dies at step 3 of epoch 1, after the checkpoint of step 2.
  if (!killRankOneThenResume("train-step:3", "/tiny")) return;
  Hdf5RunLog killed((fs::path(folder("killed")) / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
  Hdf5RunLog two((fs::path(folder("two")) / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
  EXPECT_EQ(killed.readText("/tiny/test_translations"), two.readText("/tiny/test_translations"));
}

}  // namespace
}  // namespace recurlab::experiments
