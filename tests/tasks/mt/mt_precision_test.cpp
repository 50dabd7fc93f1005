// Machine translation in bf16 through the whole task (the runner hands the precision to the
// unit, the Trainer autocasts; the Transformer's attention and the SRU sublayers' matmuls in
// bfloat16, the SRU recurrence up-cast at its entry): on a slice of Multi30k a tiny
// Transformer-SRU trains within 5% of its fp32 training loss, epoch by epoch, and decodes.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "common/log/hdf5_run_log.h"
#include "common/runtime/thread_count.h"
#include "tasks/mt/mt_task.h"
#include "tests/support/in_process_run.h"
#include "tests/support/op_inputs.h"
#include "tests/support/precision_comparison.h"
#include "tests/support/required.h"
#include "tests/support/temp_root.h"
#include "tests/support/tiny_multi30k.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

nlohmann::json tinyConfigJson() {
  return nlohmann::json::parse(R"({
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
  })");
}

// One precision's run through the task, as trainInBothPrecisions gives its numbers: the epochs'
// losses, step 1's loss (a steps row every step) and the steps taken; in bf16 also what the
// recurrences received.
void trainIn(const fs::path& root, const std::string& precision,
             recurlab::testing::PrecisionLosses& losses) {
  nlohmann::json config = tinyConfigJson();
  config["train"]["log_every_steps"] = 1;
  MtTask task(MtConfig::fromJson(config), (root / "data").string());
  const bool bf16 = precision == "bf16";
  recurlab::testing::OpInputs recurrences(
      {recurlab::testing::kRecurrenceOps[0], recurlab::testing::kRecurrenceOps[1]});
  recurlab::testing::trainInProcess(
      task, "mt", (root / precision).string(), 3,
      [&](const Hdf5RunLog& log) {
        EXPECT_EQ(log.stringAttribute("/tiny", "status"), "finished") << precision;
        (bf16 ? losses.bf16 : losses.fp32) = log.readTable("/tiny/epochs").column("train_loss");
        const auto steps = log.readTable("/tiny/steps").column("train_loss");
        (bf16 ? losses.bf16_first_step : losses.fp32_first_step) = steps.empty() ? NAN : steps[0];
        (bf16 ? losses.bf16_steps : losses.fp32_steps) = log.intAttribute("/tiny", "steps");
      },
      precision);
  if (!bf16) return;
  losses.bf16_recurrence_calls = recurrences.callCount();
  losses.bf16_recurrence_calls_not_float32 = recurrences.callsNotInFloat32();
}

TEST(MtPrecision, Bf16StaysWithinFivePercentOfFp32) {
  RECURLAB_REQUIRE_OR_SKIP(recurlab::testing::tinyMulti30kUnavailableReason());
  applyThreadCount(1);
  recurlab::testing::TempRoot tmp("recurlab_mt_precision");
  recurlab::testing::writeTinyMulti30k(tmp.root / "data", {120, 10, 6});
  recurlab::testing::PrecisionLosses losses;
  trainIn(tmp.root, "fp32", losses);
  trainIn(tmp.root, "bf16", losses);
  ASSERT_EQ(losses.fp32.size(), 3u);
  recurlab::testing::expectBf16Near(losses, 0.05);
}

}  // namespace
}  // namespace recurlab::experiments
