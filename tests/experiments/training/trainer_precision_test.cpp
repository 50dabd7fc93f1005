// The Trainer's device options on the CPU: bf16 training stays near fp32 with float32 weights,
// a checkpoint records its precision (another precision is refused on resume), the loss
// scaler's state survives a crash and resume, and reading the step losses from the device every
// few steps (as on CUDA) gives the same tables as reading every step, divergence included.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <ATen/autocast_mode.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "common/runtime/torch_build.h"
#include "experiments/search/seed_sequence.h"
#include "experiments/training/trainer.h"
#include "tests/support/temp_root.h"
#include "tests/support/toy_regression.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

using recurlab::testing::ToyRegression;

// y = W·x on random data through two linear layers (matmuls autocast can take), dropout from
// torch's generator, shuffled per epoch; the absolute error as a tally read on the device.
std::unique_ptr<ToyRegression> freshModel() {
  torch::manual_seed(7);
  torch::nn::Sequential net{torch::nn::Linear(6, 16), torch::nn::Tanh(), torch::nn::Dropout(0.1),
                            torch::nn::Linear(16, 1)};
  auto x = torch::rand({40, 6});
  auto dev = torch::rand({8, 6});
  auto model = std::make_unique<ToyRegression>(net, x, dev);
  model->target = [](const torch::Tensor& t) {
    return (t * torch::arange(1, 7, torch::kFloat)).sum(1, true) / 6;
  };
  model->shuffle = true;
  model->tally_abs_error = true;
  return model;
}

OptimizerOptions adam() {
  OptimizerOptions opt;
  opt.lr = 0.01;
  opt.schedule = "constant";
  return opt;
}

TrainerOptions epochs(int64_t n) {
  TrainerOptions loop;
  loop.max_epochs = n;
  loop.patience = 100;
  return loop;
}

TrainerContext context(Hdf5RunLog* log, const std::string& group, const std::string& precision) {
  TrainerContext c;
  c.log = log;
  c.group = group;
  c.fingerprint = "cfg";
  c.execution.precision = precision;
  return c;
}

// Every non-timing value of a table, in order.
std::vector<double> values(const Hdf5RunLog& log, const std::string& table) {
  const auto t = log.readTable(table);
  std::vector<double> v;
  for (const auto& row : t.rows)
    for (size_t j = 0; j < row.size(); ++j)
      if (t.columns[j].find("second") == std::string::npos) v.push_back(row[j]);
  return v;
}

TEST(TrainerPrecision, Bf16TrainsWithinTwoPercentOfFp32WithFloat32Weights) {
  recurlab::testing::TempRoot tmp("recurlab_trainer_bf16");
  Hdf5RunLog log((tmp.root / "log.h5").string(), Hdf5RunLog::Mode::Create);
  auto fp32 = freshModel();
  const auto a = train(*fp32, adam(), epochs(3), 5, context(&log, "/fp32", "fp32"));
  auto bf16 = freshModel();
  const auto b = train(*bf16, adam(), epochs(3), 5, context(&log, "/bf16", "bf16"));
  EXPECT_FALSE(recurlab::autocastEnabled(c10::DeviceType::CPU)) << "autocast is off again after training";
  const auto loss_a = log.readTable("/fp32/epochs").column("train_loss");
  const auto loss_b = log.readTable("/bf16/epochs").column("train_loss");
  ASSERT_EQ(loss_a.size(), 3u);
  for (size_t e = 0; e < loss_a.size(); ++e)
    EXPECT_NEAR(loss_b[e], loss_a[e], 0.02 * loss_a[e] + 1e-4) << "epoch " << e + 1;
  EXPECT_NEAR(b.best.at("dev_mse"), a.best.at("dev_mse"), 0.02 * a.best.at("dev_mse") + 1e-4);
  EXPECT_NE(loss_b, loss_a) << "bf16 computed something else than fp32";
  for (const auto& p : bf16->net->parameters()) EXPECT_EQ(p.scalar_type(), torch::kFloat);
  EXPECT_FALSE(b.loss_scaling);
}

TEST(TrainerPrecision, ACheckpointOfAnotherPrecisionIsRefusedNamingBoth) {
  recurlab::testing::TempRoot tmp("recurlab_trainer_precision_ckpt");
  const CheckpointStore store((tmp.root / "ckpt").string());
  auto first = freshModel();
  auto c = context(nullptr, "/u", "bf16");
  c.checkpoints = store;
  train(*first, adam(), epochs(1), 5, c);
  ASSERT_TRUE(store.has("last"));
  auto again = freshModel();
  c.execution.precision = "fp32";
  try {
    train(*again, adam(), epochs(2), 5, c);
    FAIL() << "resumed a bf16 checkpoint in fp32";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("trained with --precision bf16, this run asks for --precision fp32"),
              std::string::npos) << what;
    EXPECT_NE(what.find("delete the unit's checkpoints"), std::string::npos) << what;
  }
  auto same = freshModel();
  c.execution.precision = "bf16";
  EXPECT_TRUE(train(*same, adam(), epochs(2), 5, c).resumed);
}

TEST(TrainerPrecision, TheLossScalerSkipsOverflowsAndResumesItsState) {
  recurlab::testing::TempRoot tmp("recurlab_trainer_loss_scaler");
  LossScalerOptions scaling;
  scaling.initial_scale = std::ldexp(1.0, 140);  // beyond float32: the first steps overflow
  scaling.growth_interval = 4;
  TrainerOptions loop = epochs(3);
  loop.checkpoint_every_steps = 3;
  auto c = context(nullptr, "/u", "fp32");
  c.loss_scaling = scaling;
  auto whole_model = freshModel();
  const auto whole = train(*whole_model, adam(), loop, 5, c);
  EXPECT_TRUE(whole.loss_scaling);
  EXPECT_GT(whole.skipped_steps, 0);
  EXPECT_LT(whole.skipped_steps, whole.steps);
  EXPECT_NE(whole.loss_scale, scaling.initial_scale);

  c.checkpoints = CheckpointStore((tmp.root / "ckpt").string());
  auto crashed = freshModel();
  crashed->fail_at_batch = 17;  // epoch 2, after the checkpoint at step 15
  EXPECT_THROW(train(*crashed, adam(), loop, 5, c), std::runtime_error);
  auto resumed_model = freshModel();
  const auto resumed = train(*resumed_model, adam(), loop, 5, c);
  EXPECT_TRUE(resumed.resumed);
  EXPECT_EQ(resumed.skipped_steps, whole.skipped_steps);
  EXPECT_EQ(resumed.loss_scale, whole.loss_scale);
  const auto pa = whole_model->net->parameters(), pb = resumed_model->net->parameters();
  for (size_t i = 0; i < pa.size(); ++i) EXPECT_TRUE(torch::equal(pa[i], pb[i])) << i;
}

TEST(TrainerExecution, ReadingLossesEveryFewStepsGivesTheTablesOfReadingEveryStep) {
  recurlab::testing::TempRoot tmp("recurlab_trainer_reads");
  Hdf5RunLog log((tmp.root / "log.h5").string(), Hdf5RunLog::Mode::Create);
  TrainerOptions loop = epochs(2);
  loop.log_every_steps = 3;
  auto every = freshModel();
  const auto a = train(*every, adam(), loop, 5, context(&log, "/every", "fp32"));
  auto deferred = freshModel();
  auto c = context(&log, "/deferred", "fp32");
  c.execution.read_every_steps = 4;  // as CUDA reads: not at a row's step, nor an epoch's end
  const auto b = train(*deferred, adam(), loop, 5, c);
  EXPECT_EQ(a.steps, b.steps);
  for (const char* table : {"/epochs", "/steps"})
    EXPECT_EQ(values(log, std::string("/every") + table), values(log, std::string("/deferred") + table))
        << table;
  EXPECT_FALSE(values(log, "/every/epochs").empty());
}

TEST(TrainerExecution, ADivergedLossIsCaughtWhenReadLaterNamingItsBatch) {
  for (const int64_t read_every : {1, 4}) {
    auto m = freshModel();
    m->loss_factor = std::numeric_limits<double>::quiet_NaN();
    auto c = context(nullptr, "/u", "fp32");
    c.execution.read_every_steps = read_every;
    const auto o = train(*m, adam(), epochs(2), 5, c);
    EXPECT_TRUE(o.diverged) << read_every;
    EXPECT_EQ(o.stop_reason, "diverged: training loss is nan at epoch 1, batch 1") << read_every;
  }
}

}  // namespace
}  // namespace recurlab::experiments
