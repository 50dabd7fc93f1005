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

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

const std::string kGroup = "/toy/sru";

class LmDataParallel : public recurlab::testing::DataParallelRuns<LmDataParallel> {
 public:
  static constexpr const char* kProgram = "recurlab_lm";
  static void writeInputs(const fs::path& root) {
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
  killRankOneThenResume("train-step:4", kGroup);
}

}  // namespace
}  // namespace recurlab::experiments
