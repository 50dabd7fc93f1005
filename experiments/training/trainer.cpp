#include "experiments/training/trainer.h"

#include <ATen/CPUGeneratorImpl.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <stdexcept>

#include "experiments/harness/kill_point.h"
#include "experiments/training/data_parallel.h"
#include "experiments/training/learning_rate_schedule.h"
#include "experiments/training/plateau_tracker.h"
#include "experiments/training/adamax_optimizer.h"
#include "experiments/training/sparse_row_optimizer.h"

namespace recurlab::experiments {

std::unique_ptr<TrainBatch> TrainBatch::part(int, int count) const {
  throw std::logic_error("this task's batches cannot be split for data-parallel training (" +
                         std::to_string(count) + " ranks): its TrainBatch has no part()");
}

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Optimizers {
  std::unique_ptr<torch::optim::Optimizer> dense;
  std::unique_ptr<SparseRowOptimizer> sparse;
  std::vector<torch::Tensor> all;  // every trainable parameter, in module order (clipping)

  void zeroGrad() {
    if (dense) dense->zero_grad();
    if (sparse) sparse->zeroGrad();
  }
  void setLearningRate(double lr) {
    if (dense)
      for (auto& group : dense->param_groups()) group.options().set_lr(lr);
    if (sparse) sparse->setLearningRate(lr);
  }
  void step() {
    if (dense) dense->step();
    if (sparse) sparse->step();
  }
};

Optimizers makeOptimizers(TrainingModel& model, const OptimizerOptions& o) {
  Optimizers opt;
  const auto sparse = model.sparseParameters();
  auto isSparse = [&](const torch::Tensor& p) {
    for (const auto& s : sparse)
      if (s.unsafeGetTensorImpl() == p.unsafeGetTensorImpl()) return true;
    return false;
  };
  std::vector<torch::Tensor> dense;
  for (const auto& p : model.module().parameters()) {
    if (!p.requires_grad()) continue;
    opt.all.push_back(p);
    if (!isSparse(p)) dense.push_back(p);
  }
  if (!dense.empty()) {
    if (o.optimizer == "sgd")
      opt.dense = std::make_unique<torch::optim::SGD>(
          dense, torch::optim::SGDOptions(o.lr).momentum(o.momentum).weight_decay(o.weight_decay));
    else if (o.optimizer == "adamax")
      opt.dense = std::make_unique<Adamax>(
          dense, AdamaxOptions(o.lr).weight_decay(o.weight_decay).betas({o.beta1, o.beta2}).eps(o.eps));
    else if (o.optimizer == "adamw")
      opt.dense = std::make_unique<torch::optim::AdamW>(
          dense, torch::optim::AdamWOptions(o.lr).weight_decay(o.weight_decay).betas({o.beta1, o.beta2}).eps(o.eps));
    else
      opt.dense = std::make_unique<torch::optim::Adam>(
          dense, torch::optim::AdamOptions(o.lr).weight_decay(o.weight_decay).betas({o.beta1, o.beta2}).eps(o.eps));
  }
  std::vector<torch::Tensor> trained_sparse;
  for (const auto& s : sparse)
    if (s.requires_grad()) trained_sparse.push_back(s);
  if (!trained_sparse.empty()) {
    if (o.optimizer == "sgd" && o.momentum != 0)
      throw std::invalid_argument(
          "train.momentum: SGD with momentum cannot update sparse embedding gradients; set "
          "train.sparse_embedding=false or train.momentum=0");
    if (o.optimizer == "adamax")
      throw std::invalid_argument(
          "train.optimizer: adamax has no lazy sparse-row update; set "
          "train.sparse_embedding=false or use adam/adamw/sgd");
    SparseRowOptimizerOptions so;
    so.kind = o.optimizer;
    so.lr = o.lr;
    so.weight_decay = o.weight_decay;
    opt.sparse = std::make_unique<SparseRowOptimizer>(trained_sparse, so);
  }
  return opt;
}

torch::Tensor rngState() {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get_state();
}

void setRngState(const torch::Tensor& state) {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(state);
}

torch::Tensor rowsTensor(const std::vector<std::vector<double>>& rows, size_t columns) {
  auto t = torch::zeros({static_cast<int64_t>(rows.size()), static_cast<int64_t>(columns)},
                        torch::kDouble);
  auto a = t.accessor<double, 2>();
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t j = 0; j < columns && j < rows[i].size(); ++j) a[i][j] = rows[i][j];
  return t;
}

std::vector<std::vector<double>> tensorRows(const torch::Tensor& t) {
  std::vector<std::vector<double>> rows(static_cast<size_t>(t.size(0)));
  auto a = t.accessor<double, 2>();
  for (int64_t i = 0; i < t.size(0); ++i)
    for (int64_t j = 0; j < t.size(1); ++j) rows[i].push_back(a[i][j]);
  return rows;
}

enum class Finished : int64_t { No = 0, MaxEpochs = 1, EarlyStopping = 2 };

// Everything besides tensors that a checkpoint holds: where training stands.
struct Position {
  int64_t epoch = 1;  // the epoch in progress (1-based)
  int64_t batch = 0;  // its next batch
  int64_t step = 0;   // optimizer steps so far
  Finished finished = Finished::No;
  double lr = 0;
  PlateauTracker::State plateau;
  // The epoch in progress so far.
  double loss_sum = 0;
  int64_t seen = 0;
  std::vector<double> tallies;
  EpochTimes times;
  // The steps table's current window.
  double window_loss = 0;
  int64_t window_batches = 0;
  TrainOutcome outcome;
  std::vector<double> best;  // outcome.best in the order of bestNames
  std::vector<std::vector<double>> epoch_rows, step_rows;
};

std::vector<double> timesVector(const EpochTimes& t) {
  return {t.data, t.forward, t.backward, t.step, t.evaluation, t.checkpoint};
}
EpochTimes timesFrom(const double* v) { return {v[0], v[1], v[2], v[3], v[4], v[5]}; }

const std::vector<std::string>& stepColumns() {
  static const std::vector<std::string> c = {"step", "epoch", "train_loss", "lr"};
  return c;
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

std::vector<std::string> epochColumns(const TrainingModel& model) {
  std::vector<std::string> c = {"epoch", "train_loss"};
  for (const auto& t : model.tallyNames()) c.push_back("train_" + t);
  for (const auto& e : model.evaluationNames()) c.push_back(e);
  for (const char* x : {"lr", "seconds", "examples_per_second", "data_seconds", "forward_seconds",
                        "backward_seconds", "step_seconds", "eval_seconds"})
    c.push_back(x);
  return c;
}

void clipGradientNorm(const std::vector<torch::Tensor>& params, double max_norm) {
  bool sparse = false;
  for (const auto& p : params) sparse |= p.grad().defined() && p.grad().is_sparse();
  if (!sparse) {
    torch::nn::utils::clip_grad_norm_(params, max_norm);
    return;
  }
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> norms;
  for (auto p : params) {
    if (!p.grad().defined()) continue;
    if (p.grad().is_sparse()) {
      p.mutable_grad() = p.grad().coalesce();
      norms.push_back(p.grad().values().norm());
    } else {
      norms.push_back(p.grad().norm());
    }
  }
  if (norms.empty()) return;
  const double total = torch::stack(norms).norm().item<double>();
  const double coef = max_norm / (total + 1e-6);
  if (coef >= 1.0) return;
  for (auto p : params)
    if (p.grad().defined()) p.mutable_grad() = p.grad().mul(coef);
}

void loadAveragedCheckpoints(torch::nn::Module& module, const std::vector<std::string>& files) {
  if (files.empty()) throw std::invalid_argument("loadAveragedCheckpoints: no checkpoint files");
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> sums;
  for (const auto& f : files) {
    torch::serialize::InputArchive archive, model;
    try {
      archive.load_from(f);
      archive.read("model", model);
      module.load(model);
    } catch (const c10::Error& e) {
      throw std::runtime_error("checkpoint " + f + ": cannot read its model: " + e.what_without_backtrace());
    }
    size_t i = 0;
    for (const auto& t : module.parameters()) {
      if (sums.size() <= i) sums.push_back(torch::zeros_like(t, torch::kDouble));
      sums[i++].add_(t.to(torch::kDouble));
    }
    for (const auto& t : module.buffers()) {
      if (sums.size() <= i) sums.push_back(torch::zeros_like(t, torch::kDouble));
      sums[i++].add_(t.to(torch::kDouble));
    }
  }
  size_t i = 0;
  const double k = static_cast<double>(files.size());
  for (auto t : module.parameters()) t.copy_(sums[i++] / k);
  for (auto t : module.buffers()) t.copy_(sums[i++] / k);
}

TrainOutcome train(TrainingModel& model, const OptimizerOptions& opt, const TrainerOptions& options,
                   uint64_t seed, const TrainerContext& ctx) {
  const int64_t n = model.batchesPerEpoch();
  if (n <= 0) throw std::invalid_argument("train: no training batches");
  torch::manual_seed(seed);
  Optimizers optimizers = makeOptimizers(model, opt);
  const auto tally_names = model.tallyNames();
  const auto eval_names = model.evaluationNames();
  std::vector<std::string> best_names = eval_names;
  for (const auto& t : tally_names) best_names.push_back("train_" + t);
  size_t selection = eval_names.size();
  for (size_t i = 0; i < eval_names.size(); ++i)
    if (eval_names[i] == model.selectionName()) selection = i;
  if (selection == eval_names.size())
    throw std::logic_error("train: selection metric '" + model.selectionName() +
                           "' is not among the evaluation metrics");
  const auto columns = epochColumns(model);
  PlateauTracker plateau(options.patience, opt.lr_patience, model.higherIsBetter());
  const bool checkpoints = options.checkpoints && ctx.checkpoints.enabled();
  DataParallelGroup* dp =
      ctx.data_parallel != nullptr && ctx.data_parallel->active() ? ctx.data_parallel : nullptr;
  if (dp && optimizers.sparse)
    throw std::invalid_argument("data-parallel training needs dense gradients: this model has "
                                "sparse ones (set train.sparse_embedding=false)");

  Position p;
  p.lr = opt.lr;
  p.tallies.assign(tally_names.size(), 0.0);
  p.best.assign(best_names.size(), 0.0);

  auto save = [&](const std::string& name) {
    const auto t0 = Clock::now();
    ctx.checkpoints.commit(name, [&](const std::string& path) {
      torch::serialize::OutputArchive a, m;
      model.module().save(m);
      a.write("model", m);
      if (optimizers.dense) {
        torch::serialize::OutputArchive o;
        optimizers.dense->save(o);
        a.write("optimizer", o);
      }
      if (optimizers.sparse) {
        torch::serialize::OutputArchive o;
        optimizers.sparse->save(o);
        a.write("sparse_optimizer", o);
      }
      a.write("rng", rngState());
      const auto& s = p.plateau;
      a.write("ints", torch::tensor(std::vector<int64_t>{
                          p.epoch, p.batch, p.step, static_cast<int64_t>(p.finished), s.epoch,
                          s.best_epoch, s.since_best, s.since_decay, p.seen, p.window_batches,
                          p.outcome.epochs, p.outcome.best_epoch, p.outcome.steps}));
      std::vector<double> d = {p.lr, s.best, p.loss_sum, p.window_loss, p.outcome.train_seconds,
                               p.outcome.final_lr};
      for (double x : timesVector(p.times)) d.push_back(x);
      for (double x : timesVector(p.outcome.times)) d.push_back(x);
      for (double x : p.tallies) d.push_back(x);
      for (double x : p.best) d.push_back(x);
      a.write("doubles", torch::tensor(d, torch::kDouble));
      a.write("epoch_rows", rowsTensor(p.epoch_rows, columns.size()));
      a.write("step_rows", rowsTensor(p.step_rows, stepColumns().size()));
      a.write("fingerprint", c10::IValue(ctx.fingerprint));
      a.save_to(path);
    });
    p.outcome.times.checkpoint += since(t0);
  };

  // Resume from the last checkpoint of this unit, if any.
  if (checkpoints && ctx.checkpoints.has("last")) {
    const std::string file = ctx.checkpoints.path("last");
    torch::serialize::InputArchive a;
    a.load_from(file);
    c10::IValue fp;
    a.read("fingerprint", fp);
    if (fp.toStringRef() != ctx.fingerprint) {
      std::cerr << "checkpoint " << file << " belongs to another config; starting afresh\n";
    } else {
      torch::serialize::InputArchive m;
      a.read("model", m);
      model.module().load(m);
      if (optimizers.dense) {
        torch::serialize::InputArchive o;
        a.read("optimizer", o);
        optimizers.dense->load(o);
      }
      if (optimizers.sparse) {
        torch::serialize::InputArchive o;
        a.read("sparse_optimizer", o);
        optimizers.sparse->load(o);
      }
      // A fresh tensor per read: reading into a defined one keeps its dtype.
      auto read = [&](const char* key) {
        torch::Tensor t;
        a.read(key, t);
        return t;
      };
      setRngState(read("rng"));
      const auto ints = read("ints");
      const auto* i = ints.data_ptr<int64_t>();
      p.epoch = i[0];
      p.batch = i[1];
      p.step = i[2];
      p.finished = static_cast<Finished>(i[3]);
      p.plateau = {i[4], i[5], i[6], i[7], 0.0};
      p.seen = i[8];
      p.window_batches = i[9];
      p.outcome.epochs = i[10];
      p.outcome.best_epoch = i[11];
      p.outcome.steps = i[12];
      const auto doubles = read("doubles");
      const auto* d = doubles.data_ptr<double>();
      p.lr = d[0];
      p.plateau.best = d[1];
      p.loss_sum = d[2];
      p.window_loss = d[3];
      p.outcome.train_seconds = d[4];
      p.outcome.final_lr = d[5];
      p.times = timesFrom(d + 6);
      p.outcome.times = timesFrom(d + 12);
      size_t k = 18;
      for (auto& x : p.tallies) x = d[k++];
      for (auto& x : p.best) x = d[k++];
      p.epoch_rows = tensorRows(read("epoch_rows"));
      p.step_rows = tensorRows(read("step_rows"));
      plateau.restore(p.plateau);
      p.outcome.resumed = true;
      std::cerr << "resume: " << ctx.group << " from its checkpoint at epoch " << p.epoch
                << " batch " << p.batch << " of " << n << "\n";
    }
  }
  if (dp) {
    // Every rank resumes from its own checkpoint: they must stand at the same step.
    std::vector<double> where{static_cast<double>(p.epoch), static_cast<double>(p.batch),
                              static_cast<double>(p.step)};
    std::vector<double> rank_zero = where;
    dp->broadcast(rank_zero);
    if (rank_zero != where)
      throw std::runtime_error(
          "data-parallel rank " + std::to_string(dp->rank()) + " of " + ctx.group +
          " stands at epoch " + std::to_string(p.epoch) + " batch " + std::to_string(p.batch) +
          " but rank 0 at epoch " + std::to_string(static_cast<int64_t>(rank_zero[0])) +
          " batch " + std::to_string(static_cast<int64_t>(rank_zero[1])) +
          ": the ranks' checkpoints differ (delete the unit's checkpoints of every rank to "
          "restart it)");
    dp->broadcastFromRankZero(model.module());
    // Rank 0 keeps the seed's stream (world size 1 = one process, bit for bit); the others
    // draw their own dropout masks.
    if (!p.outcome.resumed && dp->rank() > 0)
      torch::manual_seed(seed ^ (0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(dp->rank())));
  }
  if (ctx.log) {
    ctx.log->createTable(ctx.group + "/epochs", columns);
    if (!p.epoch_rows.empty()) ctx.log->appendRows(ctx.group + "/epochs", p.epoch_rows);
    if (options.log_every_steps > 0) {
      ctx.log->createTable(ctx.group + "/steps", stepColumns());
      if (!p.step_rows.empty()) ctx.log->appendRows(ctx.group + "/steps", p.step_rows);
    }
    ctx.log->flush();
  }
  if (p.outcome.resumed) optimizers.setLearningRate(p.lr);

  TrainOutcome& outcome = p.outcome;
  outcome.stop_reason = p.finished == Finished::EarlyStopping ? "early_stopping" : "max_epochs";
  const bool stepwise = stepwiseSchedule(opt);
  double step_examples = 0;  // this rank's examples in the step being accumulated
  while (p.finished == Finished::No && p.epoch <= options.max_epochs) {
    model.module().train();
    for (; p.batch < n;) {
      const int64_t group_start = p.batch - p.batch % opt.accumulate;
      const int64_t group_size = std::min(opt.accumulate, n - group_start);
      const auto t0 = Clock::now();
      if (p.batch == group_start) {
        optimizers.zeroGrad();
        step_examples = 0;
      }
      auto batch = model.batch(p.epoch, p.batch);
      if (dp) batch = batch->part(dp->rank(), dp->worldSize());
      const auto t1 = Clock::now();
      const StepOutput out = model.forward(*batch);
      double value = out.loss.item<double>();
      double examples = static_cast<double>(out.examples);
      std::vector<double> tallies(out.tallies.begin(), out.tallies.end());
      if (dp) {
        // The batch's loss and tallies over every rank, so that all ranks log, check and
        // checkpoint the same numbers.
        std::vector<double> stats{value * examples, examples};
        stats.insert(stats.end(), tallies.begin(), tallies.end());
        dp->sum(stats);
        value = stats[1] > 0 ? stats[0] / stats[1] : 0.0;
        examples = stats[1];
        tallies.assign(stats.begin() + 2, stats.end());
      }
      step_examples += static_cast<double>(out.examples);
      const auto t2 = Clock::now();
      if (!std::isfinite(value)) {
        outcome.diverged = true;
        outcome.stop_reason = "diverged: training loss is " + std::to_string(value) +
                              " at epoch " + std::to_string(p.epoch) + ", batch " +
                              std::to_string(p.batch + 1);
        break;
      }
      (group_size > 1 ? out.loss / static_cast<double>(group_size) : out.loss).backward();
      const auto t3 = Clock::now();
      p.loss_sum += value * examples;
      p.seen += static_cast<int64_t>(examples);
      for (size_t i = 0; i < p.tallies.size() && i < tallies.size(); ++i)
        p.tallies[i] += tallies[i];
      p.window_loss += value;
      ++p.window_batches;
      ++p.batch;
      const bool step_now = p.batch == group_start + group_size;
      if (step_now) {
        ++p.step;
        if (stepwise) {
          p.lr = scheduledLearningRate(opt, p.step);
          optimizers.setLearningRate(p.lr);
        }
        if (dp) outcome.allreduce_bytes_per_step = dp->averageGradients(optimizers.all, step_examples);
        if (opt.clip > 0) clipGradientNorm(optimizers.all, opt.clip);
        optimizers.step();
        outcome.steps = p.step;
      }
      const auto t4 = Clock::now();
      p.times.data += std::chrono::duration<double>(t1 - t0).count();
      p.times.forward += std::chrono::duration<double>(t2 - t1).count();
      p.times.backward += std::chrono::duration<double>(t3 - t2).count();
      p.times.step += std::chrono::duration<double>(t4 - t3).count();
      if (!step_now) continue;
      if (options.log_every_steps > 0 && p.step % options.log_every_steps == 0) {
        std::vector<double> row = {static_cast<double>(p.step), static_cast<double>(p.epoch),
                                   p.window_loss / static_cast<double>(p.window_batches), p.lr};
        p.step_rows.push_back(row);
        if (ctx.log) ctx.log->appendRow(ctx.group + "/steps", row);
        p.window_loss = 0;
        p.window_batches = 0;
      }
      if (checkpoints && options.checkpoint_every_steps > 0 &&
          p.step % options.checkpoint_every_steps == 0 && p.batch < n)
        save("last");
      killPoint("train-step");
    }
    if (outcome.diverged) break;

    const auto e0 = Clock::now();
    std::vector<double> evals;
    if (!dp || dp->rank() == 0) evals = model.evaluate();
    if (dp) {
      // Rank 0 evaluates (the weights are the same everywhere); the others take its numbers.
      evals.resize(eval_names.size(), 0.0);
      dp->broadcast(evals);
    }
    p.times.evaluation = since(e0);
    const double seconds = p.times.data + p.times.forward + p.times.backward + p.times.step;
    std::vector<double> row = {static_cast<double>(p.epoch),
                               p.loss_sum / static_cast<double>(std::max<int64_t>(p.seen, 1))};
    std::vector<double> train_tallies;
    for (double t : p.tallies) train_tallies.push_back(t / static_cast<double>(std::max<int64_t>(p.seen, 1)));
    row.insert(row.end(), train_tallies.begin(), train_tallies.end());
    row.insert(row.end(), evals.begin(), evals.end());
    for (double x : {p.lr, seconds, static_cast<double>(p.seen) / std::max(seconds, 1e-9),
                     p.times.data, p.times.forward, p.times.backward, p.times.step,
                     p.times.evaluation})
      row.push_back(x);
    p.epoch_rows.push_back(row);
    if (ctx.log) {
      ctx.log->appendRow(ctx.group + "/epochs", row);
      killPoint("epoch-row-written");
    }

    const auto decision = plateau.observe(evals[selection]);
    p.plateau = plateau.state();
    outcome.epochs = p.epoch;
    outcome.train_seconds += seconds;
    outcome.times.data += p.times.data;
    outcome.times.forward += p.times.forward;
    outcome.times.backward += p.times.backward;
    outcome.times.step += p.times.step;
    outcome.times.evaluation += p.times.evaluation;
    outcome.final_lr = p.lr;
    if (decision.improved) {
      outcome.best_epoch = p.epoch;
      for (size_t i = 0; i < evals.size(); ++i) p.best[i] = evals[i];
      for (size_t i = 0; i < train_tallies.size(); ++i) p.best[evals.size() + i] = train_tallies[i];
    }
    std::string why;
    for (size_t i = 0; i < evals.size(); ++i)
      if (!std::isfinite(evals[i]))
        why = eval_names[i] + " is " + std::to_string(evals[i]);
    if (why.empty())
      for (const auto& np : model.module().named_parameters()) {
        const double m = np.value().detach().abs().max().item<double>();
        if (!(m <= options.max_parameter)) {
          why = "parameter " + np.key() + " reached |x| = " + std::to_string(m);
          break;
        }
      }
    if (!why.empty()) {
      outcome.diverged = true;
      outcome.stop_reason = "diverged: " + why + " after epoch " + std::to_string(p.epoch);
      break;
    }
    if (decision.stop) p.finished = Finished::EarlyStopping;
    else if (p.epoch == options.max_epochs) p.finished = Finished::MaxEpochs;
    if (decision.decay_lr && opt.schedule == "plateau") {
      p.lr = std::max(opt.min_lr, p.lr * opt.lr_decay);
      optimizers.setLearningRate(p.lr);
    }
    const EpochTimes epoch_times = p.times;
    const int64_t epoch = p.epoch;
    const double examples = static_cast<double>(p.seen);
    ++p.epoch;
    p.batch = 0;
    p.loss_sum = 0;
    p.seen = 0;
    p.times = {};
    std::fill(p.tallies.begin(), p.tallies.end(), 0.0);
    const double checkpoint_before = outcome.times.checkpoint;
    if (checkpoints) {
      save("last");
      if (decision.improved) ctx.checkpoints.copy("last", "best");
      if (options.keep_last_epochs > 0) {
        ctx.checkpoints.copy("last", "epoch-" + std::to_string(epoch));
        auto kept = ctx.checkpoints.numbered("epoch-");
        while (static_cast<int64_t>(kept.size()) > options.keep_last_epochs) {
          ctx.checkpoints.remove(kept.front());
          kept.erase(kept.begin());
        }
      }
    }
    if (decision.stop) outcome.stop_reason = "early_stopping";
    if (ctx.progress) {
      std::string line = "epoch " + std::to_string(epoch) + "/" + std::to_string(options.max_epochs) +
                         " loss " + fmt("%.4f", row[1]);
      for (size_t i = 0; i < evals.size(); ++i) line += " " + eval_names[i] + " " + fmt("%.4f", evals[i]);
      line += " (best " + fmt("%.4f", plateau.best()) + ") " + fmt("%.0f", examples / std::max(seconds, 1e-9)) +
              " ex/s " + fmt("%.1f", seconds) + "s [data " + fmt("%.2f", epoch_times.data) + " fwd " +
              fmt("%.2f", epoch_times.forward) + " bwd " + fmt("%.2f", epoch_times.backward) + " step " +
              fmt("%.2f", epoch_times.step) + " eval " + fmt("%.2f", epoch_times.evaluation) + " ckpt " +
              fmt("%.2f", outcome.times.checkpoint - checkpoint_before) + "]";
      if (dp)
        line += " " + std::to_string(dp->worldSize()) + " ranks, all-reduce " +
                std::to_string(outcome.allreduce_bytes_per_step) + " B/step";
      ctx.progress(line, static_cast<double>(epoch) / static_cast<double>(options.max_epochs));
    }
    killPoint("epoch-end");
  }
  for (size_t i = 0; i < best_names.size(); ++i) outcome.best[best_names[i]] = p.best[i];
  return outcome;
}

}  // namespace recurlab::experiments
