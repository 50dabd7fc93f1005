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
#include "tests/tasks/qa/squad_test_data.h"

namespace recurlab::experiments::qa {
namespace {

namespace fs = std::filesystem;
using recurlab::testing::fileText;

// Without dropout (rank 1 would draw other masks); the last of the 6 batches of 8 holds 5
// questions, split 2 + 3 over the ranks.
nlohmann::json qaConfig() { return tinyQaRunConfig(); }

class QaDataParallel : public recurlab::testing::DataParallelRuns<QaDataParallel> {
 public:
  static constexpr const char* kProgram = "recurlab_qa";
  static std::string skipReason() { return squadUnavailableReason(); }
  static void writeInputs(const fs::path& root) {
    std::ofstream(root / "config.json") << qaConfig().dump();
  }
  // --data-dir: the folder holding squad/dev-v1.1.json.
  static std::vector<std::string> dataArgs(const fs::path&) {
    return {"--data-dir", squadDataDir()};
  }
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
  if (!killRankOneThenResume("train-step:3", "/sru")) return;
  EXPECT_EQ(fileText(folder("killed") + "/predictions-sru.json"),
            fileText(folder("two") + "/predictions-sru.json"));
}

}  // namespace
}  // namespace recurlab::experiments::qa
