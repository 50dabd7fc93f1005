// Dynamic loss scaling: the loss scaled, the gradients unscaled exactly, an overflow skips the
// step and backs off, the scale grows after growth_interval finite steps, and the state goes
// through checkpoint fields.
#include "experiments/training/loss_scaler.h"

#include <gtest/gtest.h>

#include <limits>

#include "experiments/training/checkpoint_fields.h"

namespace recurlab::experiments {
namespace {

torch::Tensor parameterWithGrad(std::vector<float> grad) {
  auto p = torch::zeros({static_cast<int64_t>(grad.size())}).requires_grad_();
  p.mutable_grad() = torch::tensor(grad);
  return p;
}

LossScalerOptions smallOptions() {
  LossScalerOptions o;
  o.initial_scale = 1024;
  o.growth_interval = 3;
  return o;
}

TEST(LossScaler, ScalesTheLossAndUnscalesTheGradientsExactly) {
  LossScaler s(true, smallOptions());
  EXPECT_EQ(s.scale(torch::tensor(0.75)).item<double>(), 768.0);
  auto p = parameterWithGrad({1024.0f * 0.3f, -2048.0f});
  EXPECT_TRUE(s.unscale({p}));
  EXPECT_FLOAT_EQ(p.grad()[0].item<float>(), 0.3f);
  EXPECT_EQ(p.grad()[1].item<float>(), -2.0f);
}

TEST(LossScaler, AnOverflowSkipsTheStepAndBacksOff) {
  LossScaler s(true, smallOptions());
  s.update(true);  // one finite step counted towards growth
  auto p = parameterWithGrad({1.0f, std::numeric_limits<float>::infinity()});
  auto q = parameterWithGrad({2.0f});
  EXPECT_FALSE(s.unscale({q, p}));
  s.update(false);
  EXPECT_EQ(s.skippedSteps(), 1);
  EXPECT_EQ(s.scaleValue(), 512.0);
  EXPECT_EQ(s.finiteStepsInARow(), 0);  // the growth count starts over
  auto n = parameterWithGrad({std::numeric_limits<float>::quiet_NaN()});
  EXPECT_FALSE(s.unscale({n}));
}

TEST(LossScaler, GrowsAfterTheIntervalOfFiniteSteps) {
  LossScaler s(true, smallOptions());
  s.update(true);
  s.update(true);
  EXPECT_EQ(s.scaleValue(), 1024.0);
  s.update(true);
  EXPECT_EQ(s.scaleValue(), 2048.0);
  EXPECT_EQ(s.finiteStepsInARow(), 0);
  EXPECT_EQ(s.skippedSteps(), 0);
}

TEST(LossScaler, ADisabledScalerChangesNothing) {
  LossScaler s;
  EXPECT_FALSE(s.enabled());
  EXPECT_EQ(s.scale(torch::tensor(0.75)).item<double>(), 0.75);
  auto p = parameterWithGrad({std::numeric_limits<float>::infinity()});
  EXPECT_TRUE(s.unscale({p}));
  s.update(false);
  EXPECT_EQ(s.skippedSteps(), 0);
  EXPECT_EQ(s.scaleValue(), 1.0);
}

TEST(LossScaler, StateGoesThroughCheckpointFields) {
  LossScaler s(true, smallOptions());
  s.update(false);
  s.update(true);
  CheckpointFields fields;
  s.writeTo(fields);
  LossScaler restored(true, smallOptions());
  restored.restoreFrom(fields);
  EXPECT_EQ(restored.scaleValue(), 512.0);
  EXPECT_EQ(restored.finiteStepsInARow(), 1);
  EXPECT_EQ(restored.skippedSteps(), 1);
  // A checkpoint without a scaler (fp32, or older) leaves a fresh one as it is.
  LossScaler fresh(true, smallOptions());
  fresh.restoreFrom(CheckpointFields());
  EXPECT_EQ(fresh.scaleValue(), 1024.0);
}

TEST(LossScaler, BadOptionsAreRefused) {
  LossScalerOptions o;
  o.backoff_factor = 1.5;
  EXPECT_THROW(LossScaler(true, o), std::invalid_argument);
}

}  // namespace
}  // namespace recurlab::experiments
