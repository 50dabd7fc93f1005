// The Trainer on a tiny regression: resume from a mid-epoch checkpoint equals an
// uninterrupted run bit for bit, early stopping follows the metric's direction, divergence is
// caught on the loss, the parameters and the metrics, schedules (milestones across a resume),
// gradient accumulation, the lazy Adam of sparse rows, and checkpoint averaging.
#include "experiments/training/trainer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "common/json_options.h"
#include "experiments/search/seed_sequence.h"
#include "experiments/training/learning_rate_schedule.h"
#include "experiments/training/optimizer_state_io.h"
#include "experiments/training/sparse_row_optimizer.h"
#include "tests/support/temp_root.h"
#include "tests/support/toy_regression.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

using recurlab::testing::ToyRegression;

// y = sum(x) on random data, shuffled per epoch by a seeded permutation; the dropout draws
// from torch's generator (so a resume must restore its state).
std::unique_ptr<ToyRegression> freshModel() {
  torch::manual_seed(11);
  torch::nn::Sequential net{torch::nn::Dropout(0.2), torch::nn::Linear(6, 1)};
  auto x = torch::rand({40, 6});
  auto dev = torch::rand({8, 6});
  auto model = std::make_unique<ToyRegression>(net, x, dev);
  model->shuffle = true;
  return model;
}

TEST(Trainer, ResumesFromAMidEpochCheckpointBitIdentically) {
  recurlab::testing::TempRoot f("recurlab_trainer");
  OptimizerOptions opt;
  opt.lr = 0.01;
  TrainerOptions loop;
  loop.max_epochs = 3;
  loop.checkpoint_every_steps = 3;
  loop.log_every_steps = 2;
  Hdf5RunLog log(f.file("a.h5"), Hdf5RunLog::Mode::Create);
  auto whole_model = freshModel();
  const auto whole = train(*whole_model, opt, loop, 5, {&log, "/a", {}, "cfg", {}});

  auto crashed = freshModel();
  crashed->fail_at_batch = 17;  // epoch 2, after the checkpoint at step 15
  const CheckpointStore store((f.root / "ckpt").string());
  EXPECT_THROW(train(*crashed, opt, loop, 5, {&log, "/b", store, "cfg", {}}), std::runtime_error);
  ASSERT_TRUE(store.has("last"));
  auto resumed_model = freshModel();
  const auto resumed = train(*resumed_model, opt, loop, 5, {&log, "/c", store, "cfg", {}});
  EXPECT_TRUE(resumed.resumed);
  EXPECT_EQ(resumed.epochs, whole.epochs);
  EXPECT_EQ(resumed.steps, whole.steps);
  EXPECT_EQ(resumed.best_epoch, whole.best_epoch);
  EXPECT_EQ(resumed.best.at("dev_mse"), whole.best.at("dev_mse"));
  for (const char* table : {"epochs", "steps"}) {
    const auto a = log.readTable(std::string("/a/") + table), c = log.readTable(std::string("/c/") + table);
    ASSERT_EQ(a.rows.size(), c.rows.size()) << table;
    for (size_t i = 0; i < a.rows.size(); ++i)
      for (size_t j = 0; j < a.columns.size(); ++j)
        if (a.columns[j].find("second") == std::string::npos) {
          EXPECT_EQ(a.rows[i][j], c.rows[i][j]) << table << " row " << i << " " << a.columns[j];
        }
  }
  const auto pa = whole_model->net->parameters(), pc = resumed_model->net->parameters();
  for (size_t i = 0; i < pa.size(); ++i) EXPECT_TRUE(torch::equal(pa[i], pc[i]));
  // A checkpoint of another config is not resumed from.
  auto other = freshModel();
  EXPECT_FALSE(train(*other, opt, loop, 5, {nullptr, "/d", store, "other", {}}).resumed);
}

TEST(Trainer, EarlyStoppingFollowsTheMetricsDirection) {
  OptimizerOptions opt;
  opt.lr_patience = 1;
  opt.lr_decay = 0.5;
  TrainerOptions loop;
  loop.max_epochs = 10;
  loop.patience = 2;
  auto m = freshModel();
  m->scripted = {5, 4, 4.5, 3, 3.5, 3.2, 1};  // lower is better: best 3 at epoch 4
  const auto o = train(*m, opt, loop, 1, {});
  EXPECT_EQ(o.stop_reason, "early_stopping");
  EXPECT_EQ(o.epochs, 6);
  EXPECT_EQ(o.best_epoch, 4);
  EXPECT_EQ(o.best.at("dev_mse"), 3);
  EXPECT_DOUBLE_EQ(o.final_lr, opt.lr * 0.25);  // halved after epochs 3 and 5
}

TEST(Trainer, DivergenceOnLossParametersAndMetrics) {
  OptimizerOptions opt;
  TrainerOptions loop;
  loop.max_epochs = 3;
  auto nan_loss = freshModel();
  nan_loss->loss_factor = NAN;
  auto o = train(*nan_loss, opt, loop, 1, {});
  EXPECT_TRUE(o.diverged);
  EXPECT_NE(o.stop_reason.find("at epoch 1, batch 1"), std::string::npos) << o.stop_reason;

  auto big = freshModel();
  loop.max_parameter = 1e-3;  // any trained weight is beyond it
  o = train(*big, opt, loop, 1, {});
  EXPECT_TRUE(o.diverged);
  EXPECT_NE(o.stop_reason.find("parameter"), std::string::npos) << o.stop_reason;

  loop.max_parameter = 1e6;
  auto bad_metric = freshModel();
  bad_metric->scripted = {1, INFINITY};
  o = train(*bad_metric, opt, loop, 1, {});
  EXPECT_TRUE(o.diverged);
  EXPECT_NE(o.stop_reason.find("dev_mse is inf after epoch 2"), std::string::npos) << o.stop_reason;
}

TEST(Trainer, GradientAccumulationEqualsOneLargerBatch) {
  OptimizerOptions opt;
  opt.optimizer = "sgd";
  opt.lr = 0.05;
  opt.schedule = "constant";
  TrainerOptions loop;
  loop.max_epochs = 1;
  auto small = freshModel();
  small->net[0]->as<torch::nn::Dropout>()->options.p(0.0);
  opt.accumulate = 2;
  train(*small, opt, loop, 1, {});
  auto large = freshModel();
  large->net[0]->as<torch::nn::Dropout>()->options.p(0.0);
  large->batch_size = 8;
  opt.accumulate = 1;
  // 5 batches of 8 = the same examples in the same order as 10 batches of 4 in pairs.
  train(*large, opt, loop, 1, {});
  const auto a = small->net->parameters(), b = large->net->parameters();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::allclose(a[i], b[i], 1e-5, 1e-6));
}

TEST(LearningRateSchedule, NoamAndInverseSqrtWarmUpThenDecay) {
  OptimizerOptions o;
  o.lr = 2.0;
  o.warmup_steps = 100;
  o.model_dim = 64;
  o.schedule = "inverse_sqrt";
  EXPECT_DOUBLE_EQ(scheduledLearningRate(o, 50), 1.0);
  EXPECT_DOUBLE_EQ(scheduledLearningRate(o, 100), 2.0);
  EXPECT_DOUBLE_EQ(scheduledLearningRate(o, 400), 1.0);
  o.schedule = "noam";  // 2 * 64^-0.5 * min(s^-0.5, s * 100^-1.5)
  EXPECT_DOUBLE_EQ(scheduledLearningRate(o, 100), 2.0 / 8.0 / 10.0);
  EXPECT_DOUBLE_EQ(scheduledLearningRate(o, 10), 2.0 / 8.0 * 10.0 / 1000.0);
  EXPECT_TRUE(stepwiseSchedule(o));
  o.schedule = "plateau";
  EXPECT_FALSE(stepwiseSchedule(o));
}

// A kill after an improved epoch's `last` is in place and before its copy to `best` (or to
// epoch-<k>) leaves the copy missing; the run that resumes from that epoch's end makes it again
// (else a unit whose later epochs do not improve has no best model to keep).
TEST(Trainer, AResumeFromAnEpochEndMakesItsMissingCopiesAgain) {
  recurlab::testing::TempRoot f("recurlab_trainer");
  OptimizerOptions opt;
  opt.lr = 0.01;
  TrainerOptions loop;
  loop.max_epochs = 1;
  loop.keep_last_epochs = 2;
  Hdf5RunLog log(f.file("copies.h5"), Hdf5RunLog::Mode::Create);
  const CheckpointStore store((f.root / "ckpt").string());
  auto first = freshModel();
  const auto trained = train(*first, opt, loop, 5, {&log, "/a", store, "cfg", {}});
  ASSERT_EQ(trained.best_epoch, 1);
  ASSERT_TRUE(store.has("best") && store.has("epoch-1"));
  store.remove("best");  // as if killed before the copies
  store.remove("epoch-1");
  auto again = freshModel();
  const auto resumed = train(*again, opt, loop, 5, {&log, "/b", store, "cfg", {}});
  EXPECT_TRUE(resumed.resumed);
  EXPECT_EQ(resumed.epochs, 1);
  EXPECT_TRUE(store.has("best")) << "the resumed run left the best epoch without its copy";
  EXPECT_TRUE(store.has("epoch-1")) << "the resumed run left epoch 1 without its copy";
}

// The milestones schedule decays before its fixed epochs whatever the metric does, and a run
// killed after a decay resumes at the decayed lr.
TEST(Trainer, MilestonesDecayBeforeTheirEpochsAndSurviveAResume) {
  recurlab::testing::TempRoot f("recurlab_trainer");
  OptimizerOptions opt;
  opt.lr = 0.01;
  opt.schedule = "milestones";
  opt.lr_decay_epochs = {3, 5};
  opt.lr_decay = 0.1;
  TrainerOptions loop;
  loop.max_epochs = 6;
  loop.checkpoint_every_steps = 3;
  Hdf5RunLog log(f.file("m.h5"), Hdf5RunLog::Mode::Create);
  auto whole_model = freshModel();
  const auto whole = train(*whole_model, opt, loop, 5, {&log, "/a", {}, "cfg", {}});
  const auto lr = log.readTable("/a/epochs").column("lr");
  ASSERT_EQ(lr.size(), 6u);
  const std::vector<double> expected = {0.01, 0.01, 0.01 * 0.1, 0.01 * 0.1, 0.01 * 0.1 * 0.1,
                                        0.01 * 0.1 * 0.1};
  for (size_t e = 0; e < lr.size(); ++e) EXPECT_DOUBLE_EQ(lr[e], expected[e]) << "epoch " << e + 1;
  EXPECT_DOUBLE_EQ(whole.final_lr, expected.back());

  auto crashed = freshModel();
  crashed->fail_at_batch = 37;  // epoch 4, after the decay before epoch 3
  const CheckpointStore store((f.root / "ckpt").string());
  EXPECT_THROW(train(*crashed, opt, loop, 5, {&log, "/b", store, "cfg", {}}), std::runtime_error);
  auto resumed_model = freshModel();
  const auto resumed = train(*resumed_model, opt, loop, 5, {&log, "/c", store, "cfg", {}});
  EXPECT_TRUE(resumed.resumed);
  EXPECT_EQ(log.readTable("/c/epochs").column("lr"), lr);
  const auto pa = whole_model->net->parameters(), pc = resumed_model->net->parameters();
  for (size_t i = 0; i < pa.size(); ++i) EXPECT_TRUE(torch::equal(pa[i], pc[i]));
  // The optimizer's own learning rate, not the Trainer's logged copy: the Adam of the last
  // checkpoint (written after epoch 6) steps at the twice-decayed rate.
  torch::serialize::InputArchive checkpoint, optimizer_state;
  checkpoint.load_from(store.path("last"));
  checkpoint.read("optimizer", optimizer_state);
  torch::optim::Adam adam(resumed_model->net->parameters(), torch::optim::AdamOptions(1.0));
  loadOptimizerState(adam, optimizer_state);
  ASSERT_FALSE(adam.param_groups().empty());
  for (const auto& group : adam.param_groups())
    EXPECT_DOUBLE_EQ(group.options().get_lr(), expected.back());
}

OptimizerOptions readOptimizer(const nlohmann::json& train) {
  JsonOptions j(train, "train");
  return OptimizerOptions::read(j);
}

void expectOptimizerRefused(const nlohmann::json& train, const std::string& expected) {
  try {
    readOptimizer(train);
    FAIL() << train.dump() << " was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

TEST(LearningRateSchedule, MilestonesNeedIncreasingEpochsAndNoOtherScheduleTakesThem) {
  const auto o = readOptimizer({{"schedule", "milestones"}, {"lr_decay_epochs", {11, 13}}});
  EXPECT_EQ(o.lr_decay_epochs, (std::vector<int64_t>{11, 13}));
  EXPECT_FALSE(decaysBeforeEpoch(o, 10));
  EXPECT_TRUE(decaysBeforeEpoch(o, 11));
  EXPECT_FALSE(decaysBeforeEpoch(o, 12));
  EXPECT_TRUE(decaysBeforeEpoch(o, 13));
  EXPECT_FALSE(stepwiseSchedule(o));
  expectOptimizerRefused({{"schedule", "milestones"}}, "train: key 'lr_decay_epochs' is missing; the milestones schedule needs");
  expectOptimizerRefused({{"schedule", "milestones"}, {"lr_decay_epochs", {5, 3}}},
                         "train: key 'lr_decay_epochs' is invalid; expected increasing epochs, 3 follows 5");
  expectOptimizerRefused({{"schedule", "milestones"}, {"lr_decay_epochs", {1}}},
                         "train: key 'lr_decay_epochs' = [1] is invalid");
  expectOptimizerRefused({{"schedule", "plateau"}, {"lr_decay_epochs", {3}}},
                         "train: key 'lr_decay_epochs' is read by the milestones schedule only; this schedule is plateau");
  OptimizerOptions plateau;
  plateau.lr_decay_epochs = {3};
  EXPECT_FALSE(decaysBeforeEpoch(plateau, 3));
}

TEST(SparseRowOptimizer, LazyAdamEqualsAdamOnTouchedRowsAndLeavesOthers) {
  torch::manual_seed(3);
  auto table = torch::randn({5, 3}).requires_grad_(true);
  auto dense = table.detach().clone().requires_grad_(true);
  const auto before = table.detach().clone();
  SparseRowOptimizer lazy({table}, {"adam", 0.01});
  torch::optim::Adam adam({dense}, torch::optim::AdamOptions(0.01));
  const auto rows = torch::tensor({0, 2, 2}, torch::kLong);
  for (int step = 0; step < 3; ++step) {
    auto sparse_out = torch::embedding(table, rows, -1, false, /*sparse=*/true);
    (sparse_out * sparse_out).sum().backward();
    ASSERT_TRUE(table.grad().is_sparse());
    lazy.step();
    adam.zero_grad();
    auto dense_out = torch::embedding(dense, rows);
    (dense_out * dense_out).sum().backward();
    adam.step();
  }
  // Rows touched at every step move as with Adam; the others do not move at all.
  for (int r : {0, 2}) EXPECT_TRUE(torch::allclose(table[r], dense[r], 1e-6, 1e-7)) << r;
  for (int r : {1, 3, 4}) EXPECT_TRUE(torch::equal(table[r], before[r])) << r;
}

TEST(Trainer, AveragesCheckpoints) {
  recurlab::testing::TempRoot f("recurlab_trainer");
  torch::nn::Linear a(2, 1), b(2, 1);
  for (auto [m, file] : {std::pair{&a, "a.pt"}, std::pair{&b, "b.pt"}}) {
    torch::serialize::OutputArchive archive, model;
    (*m)->save(model);
    archive.write("model", model);
    archive.save_to((f.root / file).string());
  }
  torch::nn::Linear avg(2, 1);
  loadAveragedCheckpoints(*avg, {(f.root / "a.pt").string(), (f.root / "b.pt").string()});
  EXPECT_TRUE(torch::allclose(avg->weight, (a->weight + b->weight) / 2));
  EXPECT_TRUE(torch::allclose(avg->bias, (a->bias + b->bias) / 2));
  EXPECT_THROW(loadAveragedCheckpoints(*avg, {(f.root / "none.pt").string()}), std::runtime_error);
}

}  // namespace
}  // namespace recurlab::experiments
