// Machine translation in bf16 through the whole task (the runner hands the precision to the
// unit, the Trainer autocasts; the Transformer's attention and the SRU sublayers' matmuls in
// bfloat16, the SRU recurrence up-cast at its entry): on a slice of Multi30k a tiny
// Transformer-SRU trains within 5% of its fp32 training loss, epoch by epoch, and decodes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/runtime/thread_count.h"
#include "common/log/hdf5_run_log.h"
#include "tasks/mt/mt_task.h"
#include "tests/support/in_process_run.h"
#include "tests/support/required.h"
#include "tests/support/temp_root.h"
#include "tests/support/tiny_multi30k.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

MtConfig tinyConfig() {
  return MtConfig::fromJson(nlohmann::json::parse(R"({
    "seed": 3,
    "data": {"train": ["train.en", "train.de"], "valid": ["valid.en", "valid.de"],
             "test": ["test.en", "test.de"], "max_length": 60},
    "subwords": {"type": "bpe", "vocabulary_size": 200},
    "train": {"max_epochs": 3, "lr": 0.003, "schedule": "constant", "max_tokens": 600,
              "label_smoothing": 0.1},
    "decode": {"beam": 2, "max_length_b": 5, "max_length_a": 1.0, "test_every_epoch": "none"},
    "models": {"tiny": {"model": "transformer_sru",
                        "config": {"encoder_layers": 1, "decoder_layers": 1, "d_model": 16,
                                   "heads": 2, "ffn_hidden": 16, "dropout": 0.1}}}
  })"));
}

std::vector<double> trainLosses(const fs::path& root, const std::string& precision) {
  MtTask task(tinyConfig(), (root / "data").string());
  std::vector<double> losses;
  recurlab::testing::trainInProcess(
      task, "mt", (root / precision).string(), 3,
      [&](const Hdf5RunLog& log) {
        EXPECT_EQ(log.stringAttribute("/tiny", "status"), "finished") << precision;
        losses = log.readTable("/tiny/epochs").column("train_loss");
      },
      precision);
  return losses;
}

TEST(MtPrecision, Bf16StaysWithinFivePercentOfFp32) {
  RECURLAB_REQUIRE_OR_SKIP(recurlab::testing::tinyMulti30kUnavailableReason());
  applyThreadCount(1);
  recurlab::testing::TempRoot tmp("recurlab_mt_precision");
  recurlab::testing::writeTinyMulti30k(tmp.root / "data", {120, 10, 6});
  const auto fp32 = trainLosses(tmp.root, "fp32"), bf16 = trainLosses(tmp.root, "bf16");
  ASSERT_EQ(fp32.size(), 3u);
  ASSERT_EQ(bf16.size(), fp32.size());
  for (size_t e = 0; e < fp32.size(); ++e)
    EXPECT_NEAR(bf16[e], fp32[e], 0.05 * fp32[e]) << "epoch " << e + 1;
  EXPECT_NE(bf16, fp32) << "bf16 computed exactly what fp32 did: no autocast?";
}

}  // namespace
}  // namespace recurlab::experiments
