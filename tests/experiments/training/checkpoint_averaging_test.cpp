// Checkpoint averaging (the final MT model) and the epoch checkpoints it reads: the mean over
// more than two files (not a running pairwise mean) of parameters, float buffers and integer
// buffers; the epoch-<k> files kept are the last k epochs in numeric order past epoch 9, older
// ones are pruned, and averaging them gives the mean of those epochs' weights.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>

#include "experiments/training/checkpoint_store.h"
#include "experiments/training/trainer.h"
#include "tests/support/temp_root.h"
#include "tests/support/toy_regression.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

// A parameter, a float buffer and an integer buffer (a step counter, as batch norm keeps).
struct WithBuffersImpl : torch::nn::Module {
  torch::Tensor weight = register_parameter("weight", torch::zeros({3}));
  torch::Tensor running = register_buffer("running", torch::zeros({2}));
  torch::Tensor count = register_buffer("count", torch::zeros({1}, torch::kInt64));
};
TORCH_MODULE(WithBuffers);

void save(WithBuffers& m, const fs::path& file) {
  torch::serialize::OutputArchive archive, model;
  m->save(model);
  archive.write("model", model);
  archive.save_to(file.string());
}

TEST(CheckpointAveraging, MeanOfThreeFilesWithFloatAndIntegerBuffers) {
  recurlab::testing::TempRoot tmp("recurlab_ckpt_avg");
  const std::vector<std::vector<float>> weights = {{1, 2, 3}, {2, 4, 9}, {6, 0, 0}};
  const std::vector<std::vector<float>> running = {{0.5, 1}, {1.5, 1}, {4, 7}};
  const std::vector<int64_t> counts = {3, 3, 9};
  std::vector<std::string> files;
  for (size_t k = 0; k < 3; ++k) {
    WithBuffers m;
    torch::NoGradGuard g;
    m->weight.copy_(torch::tensor(weights[k]));
    m->running.copy_(torch::tensor(running[k]));
    m->count.fill_(counts[k]);
    files.push_back((tmp.root / ("epoch-" + std::to_string(k + 1) + ".pt")).string());
    save(m, files.back());
  }
  WithBuffers avg;
  loadAveragedCheckpoints(*avg, files);
  // (1+2+6)/3 = 3, (2+4+0)/3 = 2, (3+9+0)/3 = 4; a running pairwise mean gives 4.75, 1.5, 3.
  EXPECT_TRUE(torch::allclose(avg->weight, torch::tensor({3.0f, 2.0f, 4.0f}))) << avg->weight;
  EXPECT_TRUE(torch::allclose(avg->running, torch::tensor({2.0f, 3.0f}))) << avg->running;
  // Integers: the mean 5 (a running pairwise mean gives 6), kept an integer.
  EXPECT_EQ(avg->count.scalar_type(), torch::kInt64);
  EXPECT_EQ(avg->count.item<int64_t>(), 5);
  // One file: its own values.
  WithBuffers one;
  loadAveragedCheckpoints(*one, {files[2]});
  EXPECT_TRUE(torch::equal(one->weight, torch::tensor(weights[2])));
  EXPECT_EQ(one->count.item<int64_t>(), 9);
}

TEST(CheckpointAveraging, EpochFilesAreOrderedByNumberPastNine) {
  recurlab::testing::TempRoot tmp("recurlab_ckpt_numbered");
  CheckpointStore store((tmp.root / "unit").string());
  for (int e : {10, 2, 11, 9, 1, 12})
    store.commit("epoch-" + std::to_string(e),
                 [](const std::string& p) { std::ofstream(p) << "x"; });
  store.commit("last", [](const std::string& p) { std::ofstream(p) << "x"; });
  EXPECT_EQ(store.numbered("epoch-"),
            (std::vector<std::string>{"epoch-1", "epoch-2", "epoch-9", "epoch-10", "epoch-11",
                                      "epoch-12"}));
}

// y = sum(x): a linear model whose evaluate() records the weights at each epoch's end (the
// weights its epoch checkpoint holds).
TEST(CheckpointAveraging, TrainerKeepsTheLastEpochsAndTheirMeanIsTheAverage) {
  recurlab::testing::TempRoot tmp("recurlab_ckpt_keep");
  torch::manual_seed(3);
  torch::nn::Linear linear(4, 1);
  auto x = torch::rand({16, 4});
  recurlab::testing::ToyRegression model(torch::nn::Sequential(linear), x, x);
  model.scripted.assign(12, 1.0);
  std::vector<torch::Tensor> epoch_weights;  // each epoch's end: the weights its checkpoint holds
  model.on_evaluate = [&](recurlab::testing::ToyRegression&) {
    epoch_weights.push_back(linear->weight.detach().clone());
  };
  OptimizerOptions opt;
  opt.lr = 0.05;
  TrainerOptions options;
  options.max_epochs = 12;
  options.patience = 100;
  options.keep_last_epochs = 3;
  TrainerContext ctx;
  ctx.checkpoints = CheckpointStore((tmp.root / "unit").string());
  const auto outcome = train(model, opt, options, 5, ctx);
  ASSERT_EQ(outcome.epochs, 12);
  ASSERT_EQ(epoch_weights.size(), 12u);
  // Epochs 1-9 pruned, 10-12 kept, in that order.
  EXPECT_EQ(ctx.checkpoints.numbered("epoch-"),
            (std::vector<std::string>{"epoch-10", "epoch-11", "epoch-12"}));
  for (int e = 1; e <= 9; ++e) EXPECT_FALSE(ctx.checkpoints.has("epoch-" + std::to_string(e)));
  std::vector<std::string> files;
  for (const auto& name : ctx.checkpoints.numbered("epoch-"))
    files.push_back(ctx.checkpoints.path(name));
  torch::nn::Sequential avg(torch::nn::Linear(4, 1));
  loadAveragedCheckpoints(*avg, files);
  const auto expected =
      (epoch_weights[9] + epoch_weights[10] + epoch_weights[11]) / 3;
  const torch::Tensor averaged = avg[0]->as<torch::nn::Linear>()->weight;
  EXPECT_TRUE(torch::allclose(averaged, expected, 1e-6, 1e-7)) << averaged << expected;
  // The weights moved between those epochs: the mean is not any one of them.
  EXPECT_FALSE(torch::allclose(averaged, epoch_weights[11], 1e-6, 1e-7));
}

}  // namespace
}  // namespace recurlab::experiments
