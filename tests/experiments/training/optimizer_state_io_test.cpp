// Optimizer state in checkpoints: each optimizer's state and learning rate come back exactly
// (the next step is bit-identical), checkpoints of torch's own layout still load, and the
// files that each LibTorch wrote (tests/fixtures/optimizer_state/, one per LibTorch version)
// load in every build with the state they were written with.
#include "experiments/training/optimizer_state_io.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "common/runtime/torch_build.h"
#include "experiments/training/adamax_optimizer.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;
using recurlab::testing::TempRoot;

// Two parameters (a matrix and a vector); a third that no step touches has no state.
struct Params {
  torch::Tensor w = torch::arange(6, torch::kFloat).reshape({2, 3}).div(7).requires_grad_();
  torch::Tensor b = torch::tensor({0.5f, -0.25f}).requires_grad_();
  torch::Tensor unused = torch::zeros({4}).requires_grad_();
  std::vector<torch::Tensor> all() const { return {w, b, unused}; }
};

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const std::string& kind,
                                                       std::vector<torch::Tensor> params) {
  namespace optim = torch::optim;
  if (kind == "adam")
    return std::make_unique<optim::Adam>(params, optim::AdamOptions(0.01).betas({0.8, 0.9}));
  if (kind == "adamw")
    return std::make_unique<optim::AdamW>(params, optim::AdamWOptions(0.01).weight_decay(0.1));
  if (kind == "sgd")
    return std::make_unique<optim::SGD>(params, optim::SGDOptions(0.1).momentum(0.9));
  return std::make_unique<Adamax>(params, AdamaxOptions(0.02));
}

// One step on a loss whose gradient depends on step k (so the state is not a constant).
void step(torch::optim::Optimizer& opt, Params& p, int k) {
  opt.zero_grad();
  const auto x = torch::tensor({1.0f, -2.0f, 0.5f}) * (1 + k);
  const auto loss = (torch::matmul(p.w, x) + p.b).pow(2).sum();
  loss.backward();
  p.unused.mutable_grad() = torch::Tensor();  // never trained: no state
  opt.step();
}

// Fresh parameters holding a's values (their own tensors, no optimizer state).
Params sameValuesAs(const Params& a) {
  Params b;
  torch::NoGradGuard no_grad;
  b.w.copy_(a.w);
  b.b.copy_(a.b);
  return b;
}

void loadOptimizerStateFrom(const std::string& file, torch::optim::Optimizer& optimizer) {
  torch::serialize::InputArchive archive;
  archive.load_from(file);
  loadOptimizerState(optimizer, archive);
}

class OptimizerStateIo : public ::testing::TestWithParam<std::string> {};

TEST_P(OptimizerStateIo, StateAndLearningRateComeBackSoTheNextStepIsBitIdentical) {
  TempRoot dir("recurlab_optimizer_state");
  const std::string file = (dir.root / "optimizer.pt").string();
  Params a;
  auto opt_a = makeOptimizer(GetParam(), a.all());
  for (int k = 0; k < 3; ++k) step(*opt_a, a, k);
  opt_a->param_groups()[0].options().set_lr(0.003);  // as a schedule does
  {
    torch::serialize::OutputArchive archive;
    saveOptimizerState(*opt_a, archive);
    archive.save_to(file);
  }
  Params b = sameValuesAs(a);
  auto opt_b = makeOptimizer(GetParam(), b.all());
  loadOptimizerStateFrom(file, *opt_b);
  EXPECT_EQ(opt_b->param_groups()[0].options().get_lr(), 0.003);
  EXPECT_EQ(opt_b->state().size(), 2u) << "the untouched parameter has no state";
  step(*opt_a, a, 3);
  step(*opt_b, b, 3);
  EXPECT_TRUE(torch::equal(a.w, b.w)) << GetParam();
  EXPECT_TRUE(torch::equal(a.b, b.b)) << GetParam();
}

// Checkpoints written before this format hold torch's Optimizer::save layout: still read.
TEST_P(OptimizerStateIo, ReadsTorchsOwnLayoutOfTheSameLibTorch) {
  TempRoot dir("recurlab_optimizer_state_torch");
  const std::string file = (dir.root / "optimizer.pt").string();
  Params a;
  auto opt_a = makeOptimizer(GetParam(), a.all());
  for (int k = 0; k < 2; ++k) step(*opt_a, a, k);
  {
    torch::serialize::OutputArchive archive;
    opt_a->save(archive);
    archive.save_to(file);
  }
  Params b = sameValuesAs(a);
  auto opt_b = makeOptimizer(GetParam(), b.all());
  loadOptimizerStateFrom(file, *opt_b);
  step(*opt_a, a, 2);
  step(*opt_b, b, 2);
  EXPECT_TRUE(torch::equal(a.w, b.w)) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(EveryOptimizer, OptimizerStateIo,
                         ::testing::Values("adam", "adamw", "sgd", "adamax"));

TEST(OptimizerStateIoErrors, AnotherOptimizersStateIsRefusedByName) {
  TempRoot dir("recurlab_optimizer_state_kind");
  const std::string file = (dir.root / "optimizer.pt").string();
  Params a;
  auto adam = makeOptimizer("adam", a.all());
  step(*adam, a, 0);
  torch::serialize::OutputArchive out;
  saveOptimizerState(*adam, out);
  out.save_to(file);
  auto sgd = makeOptimizer("sgd", a.all());
  torch::serialize::InputArchive in;
  in.load_from(file);
  try {
    loadOptimizerState(*sgd, in);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("optimizer adam, this unit trains with sgd"),
              std::string::npos)
        << e.what();
  }
}

// The fixtures: Adam's state after two steps of the same gradient g = (1, -2, 4) on
// θ = (0, 0, 0) with β = (0.8, 0.9): step 2, m = (1 - 0.8²)·g, v = (1 - 0.9²)·g².
fs::path fixtureDir() { return fs::path(RECURLAB_SOURCE_DIR) / "tests/fixtures/optimizer_state"; }

void twoAdamSteps(torch::optim::Optimizer& opt, const torch::Tensor& theta) {
  for (int k = 0; k < 2; ++k) {
    opt.zero_grad();
    theta.mutable_grad() = torch::tensor({1.0f, -2.0f, 4.0f});
    opt.step();
  }
}

// RECURLAB_WRITE_FIXTURES=1 writes this LibTorch's fixture (once per LibTorch version, then
// committed); otherwise the test checks that this LibTorch's fixture is there.
TEST(OptimizerStateFixtures, ThisLibTorchsFixtureIsCommitted) {
  const fs::path file = fixtureDir() / ("adam-libtorch-" + torchVersion() + ".pt");
  if (std::getenv("RECURLAB_WRITE_FIXTURES")) {
    auto theta = torch::zeros({3}).requires_grad_();
    torch::optim::Adam adam({theta}, torch::optim::AdamOptions(0.1).betas({0.8, 0.9}));
    twoAdamSteps(adam, theta);
    torch::serialize::OutputArchive out;
    saveOptimizerState(adam, out);
    fs::create_directories(fixtureDir());
    out.save_to(file.string());
  }
  EXPECT_TRUE(fs::exists(file)) << file << " is missing: run this test once with "
                                << "RECURLAB_WRITE_FIXTURES=1 against LibTorch " << torchVersion()
                                << " and commit the file";
}

TEST(OptimizerStateFixtures, EveryLibTorchsFileLoadsWithItsState) {
  int files = 0;
  for (const auto& entry : fs::directory_iterator(fixtureDir())) {
    if (entry.path().extension() != ".pt") continue;
    ++files;
    auto theta = torch::zeros({3}).requires_grad_();
    torch::optim::Adam adam({theta}, torch::optim::AdamOptions(0.5).betas({0.8, 0.9}));
    torch::serialize::InputArchive in;
    in.load_from(entry.path().string());
    loadOptimizerState(adam, in);
    ASSERT_EQ(adam.state().size(), 1u) << entry.path();
    const auto& s = static_cast<const torch::optim::AdamParamState&>(
        *adam.state().at(optimizerStateKey(theta.unsafeGetTensorImpl())));
    const auto g = torch::tensor({1.0f, -2.0f, 4.0f});
    EXPECT_EQ(s.step(), 2) << entry.path();
    EXPECT_TRUE(torch::allclose(s.exp_avg(), (1 - 0.8 * 0.8) * g, 1e-6, 0)) << entry.path();
    EXPECT_TRUE(torch::allclose(s.exp_avg_sq(), (1 - 0.9 * 0.9) * g * g, 1e-6, 0))
        << entry.path();
    EXPECT_EQ(adam.param_groups()[0].options().get_lr(), 0.1) << entry.path();
  }
  EXPECT_GE(files, 2) << "a file written by LibTorch 1.13 and one by 2.x";
}

}  // namespace
}  // namespace recurlab::experiments
