// Same seed and config => bit-identical training on the CPU, at 1 and at 2 intra-op threads:
// every row the Trainer logs (the loss of every step, every epoch's metrics) and every final
// parameter, compared bit for bit. The model is a float SRU regression (the fused CPU kernel
// splits its work across threads) with dropout, so the RNG, the kernel and the optimizer all
// take part. Runs at different thread counts are not compared with each other: summation
// order may legitimately differ between them.
#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "experiments/search/seed_sequence.h"
#include "experiments/training/trainer.h"
#include "models/registry.h"
#include "tests/support/temp_root.h"
#include "tests/support/toy_regression.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kLength = 12, kExamples = 48, kInput = 8, kBatch = 8;

// Regress the mean of each sequence's first feature from an SRU's mean-pooled features.
struct SruNet : torch::nn::Module {
  std::shared_ptr<models::SequenceEncoder> encoder;
  torch::nn::Dropout dropout{0.3};
  torch::nn::Linear out{nullptr};
  SruNet() {
    encoder = register_module(
        "encoder", models::makeEncoder("sru", {{"layers", 2}, {"hidden", 32}, {"rnn_dropout", 0.2}}, kInput));
    register_module("dropout", dropout);
    out = register_module("out", torch::nn::Linear(encoder->outputSize(), 1));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return out->forward(dropout->forward(encoder->encode(x, {}).mean(0))).squeeze(1);
  }
};

// Sequences (L, B, in) batched along dim 1, in a seeded order per epoch.
std::unique_ptr<recurlab::testing::ToyRegression> sruRegression() {
  torch::nn::Sequential net(std::make_shared<SruNet>());
  auto x = torch::randn({kLength, kExamples, kInput});
  auto dev = torch::randn({kLength, 16, kInput});
  auto model = std::make_unique<recurlab::testing::ToyRegression>(net, x, dev);
  model->target = [](const torch::Tensor& t) { return t.select(2, 0).mean(0); };
  model->batch_dim = 1;
  model->batch_size = kBatch;
  model->shuffle = true;
  return model;
}

struct TrainingRun {
  std::vector<Table> tables;                  // epochs, steps
  std::vector<torch::Tensor> parameters;      // final, in the module's order
  std::vector<std::string> parameter_names;
};

TrainingRun trainOnce(int threads, const std::string& log_path) {
  at::set_num_threads(threads);
  torch::manual_seed(17);  // the data and the initial weights
  const auto model = sruRegression();
  OptimizerOptions optimizer;
  optimizer.lr = 0.01;
  TrainerOptions loop;
  loop.max_epochs = 3;
  loop.log_every_steps = 1;  // a steps row (with its loss) after every optimizer step
  loop.checkpoints = false;
  TrainingRun run;
  {
    Hdf5RunLog log(log_path, Hdf5RunLog::Mode::Create);
    train(*model, optimizer, loop, /*seed=*/29, {&log, "/unit", {}, "determinism", {}});
    for (const char* table : {"/unit/epochs", "/unit/steps"}) run.tables.push_back(log.readTable(table));
  }
  for (const auto& p : model->net->named_parameters()) {
    run.parameter_names.push_back(p.key());
    run.parameters.push_back(p.value().detach().clone());
  }
  return run;
}

bool bitwiseEqual(const torch::Tensor& a, const torch::Tensor& b) {
  if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type()) return false;
  const torch::Tensor ca = a.contiguous(), cb = b.contiguous();
  return std::memcmp(ca.data_ptr(), cb.data_ptr(), ca.numel() * ca.element_size()) == 0;
}

// Every logged value but the wall-clock timings, and every parameter, bit for bit.
void expectIdentical(const TrainingRun& a, const TrainingRun& b) {
  ASSERT_EQ(a.tables.size(), b.tables.size());
  for (size_t t = 0; t < a.tables.size(); ++t) {
    const Table &ta = a.tables[t], &tb = b.tables[t];
    ASSERT_EQ(ta.columns, tb.columns);
    ASSERT_EQ(ta.rows.size(), tb.rows.size());
    ASSERT_GT(ta.rows.size(), 0u);
    for (size_t j = 0; j < ta.columns.size(); ++j) {
      if (ta.columns[j].find("second") != std::string::npos) continue;
      for (size_t i = 0; i < ta.rows.size(); ++i) {
        const double x = ta.rows[i][j], y = tb.rows[i][j];
        if (std::memcmp(&x, &y, sizeof x) != 0) {  // the first difference of the column
          ADD_FAILURE() << "table " << t << " row " << i << " column " << ta.columns[j] << ": "
                        << x << " vs " << y;
          break;
        }
      }
    }
  }
  ASSERT_EQ(a.parameters.size(), b.parameters.size());
  for (size_t i = 0; i < a.parameters.size(); ++i)
    EXPECT_TRUE(bitwiseEqual(a.parameters[i], b.parameters[i])) << a.parameter_names[i];
}

struct ThreadCountGuard {
  int saved = at::get_num_threads();
  ~ThreadCountGuard() { at::set_num_threads(saved); }
};

TEST(TrainerDeterminism, SameSeedGivesBitIdenticalLossesAndWeightsAtOneAndTwoThreads) {
  ThreadCountGuard restore;
  const fs::path dir = recurlab::testing::perProcessTempPath("recurlab_determinism_");
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (int threads : {1, 2}) {
    SCOPED_TRACE(std::to_string(threads) + " thread(s)");
    const std::string prefix = (dir / ("t" + std::to_string(threads))).string();
    const TrainingRun a = trainOnce(threads, prefix + "-a.h5");
    const TrainingRun b = trainOnce(threads, prefix + "-b.h5");
    // The steps table holds one loss per optimizer step: 3 epochs of 6 batches.
    const auto& steps = a.tables[1];
    ASSERT_EQ(steps.rows.size(), 18u);
    EXPECT_NE(std::find(steps.columns.begin(), steps.columns.end(), "train_loss"), steps.columns.end());
    expectIdentical(a, b);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace recurlab::experiments
