// The Trainer (trainer.h). What it says of its checkpoints, for the kill tests
// (tests/support/resume_trace.h): every checkpoint put in place as `last` on stderr
// ("checkpoint: <unit> at epoch E batch B step S"), every resume on stdout ("resume: <unit> from
// epoch E batch B step S", flushed), <unit> the group plus " rank r" for a data-parallel rank.
#include "experiments/training/trainer.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/cuda.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "common/runtime/kill_point.h"
#include "experiments/training/checkpoint_fields.h"
#include "experiments/training/data_parallel.h"
#include "experiments/training/learning_rate_schedule.h"
#include "experiments/training/optimizer_set.h"
#include "experiments/training/optimizer_state_io.h"
#include "experiments/training/plateau_tracker.h"
#include "experiments/training/precision.h"
#include "experiments/training/progress_bar.h"
#include "experiments/training/training_state.h"

namespace recurlab::experiments {

std::unique_ptr<TrainBatch> TrainBatch::part(int, int count) const {
  throw std::logic_error("this task's batches cannot be split for data-parallel training (" +
                         std::to_string(count) + " ranks): its TrainBatch has no part()");
}

namespace {

torch::Tensor rngState() {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get_state();
}

void setRngState(const torch::Tensor& state) {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(state.to(torch::kCPU));  // a checkpoint loaded onto a GPU maps it there
}

// The RNG of CUDA device `index` (dropout masks drawn on the GPU), through the context, so that
// this compiles against a LibTorch without CUDA (where it is never called).
at::Generator cudaGenerator(int64_t index) {
  return at::globalContext().defaultGenerator(
      c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(index)));
}

std::string cudaRngKey(int64_t index) { return "cuda_rng_" + std::to_string(index); }

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

const std::vector<std::string>& stepColumns() {
  static const std::vector<std::string> c = {"step", "epoch", "train_loss", "lr"};
  return c;
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::vector<std::string> bestNames(const TrainingModel& model) {
  std::vector<std::string> names = model.evaluationNames();
  for (const auto& t : model.tallyNames()) names.push_back("train_" + t);
  return names;
}

size_t selectionIndex(const TrainingModel& model) {
  const auto names = model.evaluationNames();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == model.selectionName()) return i;
  throw std::logic_error("train: selection metric '" + model.selectionName() +
                         "' is not among the evaluation metrics");
}

// What an epoch's end reports: its evaluation, its row and its meters before they reset.
struct EpochResult {
  int64_t epoch = 0;
  std::vector<double> evals, row;
  EpochMeters meters;
  PlateauTracker::Decision decision;
  double checkpoint_seconds = 0;
};

// The training loop, as named steps; train() below runs it.
class Trainer {
 public:
  Trainer(TrainingModel& model, const OptimizerOptions& opt, const TrainerOptions& options,
          uint64_t seed, const TrainerContext& ctx);
  TrainOutcome train();

 private:
  bool resume();
  // "<group>" or "<group> rank r", and "epoch E batch B step S" of the state now: the words of
  // the checkpoint and resume lines.
  std::string unitName() const;
  std::string position() const;
  void checkCheckpointPrecision(torch::serialize::InputArchive& archive, const std::string& file);
  void agreeWithRankZero();
  void openTables();
  bool trainEpoch();
  bool trainStep();
  struct BatchForward {
    StepOutput output;
    double loss = 0, examples = 0;  // over every rank; loss read only when `read`
    std::vector<double> tallies;
    bool read = false;  // loss and tallies read to the host (else left on the device)
  };
  BatchForward forwardBatch(const TrainBatch& batch);
  // A batch's numbers into the epoch's meters; false (the outcome says why) when the loss is
  // not finite. `batch` is 0-based.
  bool recordBatch(double loss, double examples, const std::vector<double>& tallies,
                   int64_t epoch, int64_t batch);
  // The batches whose loss is still on the device, read in one transfer and recorded in order.
  bool readPendingBatches();
  void optimizerStep();
  void scheduleStep();
  void logStepRow();
  std::vector<double> evaluate();
  std::vector<double> logEpochRow(const std::vector<double>& evals);
  PlateauTracker::Decision observeEpoch(const std::vector<double>& evals);
  bool checkDivergence(const std::vector<double>& evals);
  void finishEpoch(const PlateauTracker::Decision& decision);
  void saveCheckpoint(const std::string& name);
  void writeCheckpoint(const std::string& path);
  double saveEpochCheckpoints(bool improved, int64_t epoch);
  void copyEpochEnd(bool improved, int64_t epoch);
  void reportProgress(const EpochResult& epoch);

  TrainingModel& model_;
  const OptimizerOptions& opt_;
  const TrainerOptions& options_;
  const uint64_t seed_;
  const TrainerContext& ctx_;
  const int64_t batches_;
  const std::vector<std::string> eval_names_;
  const size_t selection_;
  const std::vector<std::string> columns_;
  const bool checkpoints_;
  const bool stepwise_;
  DataParallelGroup* const dp_;
  const torch::Device device_;
  const Precision precision_;
  LossScaler scaler_;
  OptimizerSet optimizers_;
  PlateauTracker plateau_;
  TrainingState state_;
  Meter checkpoint_seconds_ = Meter::time();  // the run's checkpoint writing
  double step_examples_ = 0;  // this rank's examples in the step being accumulated
  // Batches read from the device at most every read_every_ batches (1: each, as on the CPU):
  // a CUDA step then never waits for the device.
  int64_t read_every_ = 1;
  struct PendingBatch {
    torch::Tensor loss, tallies;  // detached, on the device (tallies: when the model gives them so)
    std::vector<double> host_tallies;  // else the model's host tallies
    double examples = 0;
    int64_t epoch = 0, batch = 0;
  };
  std::vector<PendingBatch> pending_;
};

Trainer::Trainer(TrainingModel& model, const OptimizerOptions& opt, const TrainerOptions& options,
                 uint64_t seed, const TrainerContext& ctx)
    : model_(model), opt_(opt), options_(options), seed_(seed), ctx_(ctx),
      batches_(model.batchesPerEpoch()), eval_names_(model.evaluationNames()),
      selection_(selectionIndex(model)), columns_(epochColumns(model)),
      checkpoints_(options.checkpoints && ctx.checkpoints.enabled()),
      stepwise_(stepwiseSchedule(opt)),
      dp_(ctx.data_parallel != nullptr && ctx.data_parallel->active() ? ctx.data_parallel : nullptr),
      device_(ctx.execution.device),
      precision_(parsePrecision(ctx.execution.precision, "train: precision")),
      scaler_(ctx.loss_scaling.has_value() || precision_ == Precision::Fp16,
              ctx.loss_scaling.value_or(LossScalerOptions{})),
      plateau_(options.patience, opt.lr_patience, model.higherIsBetter()),
      state_(model.tallyNames(), bestNames(model)) {
  if (batches_ <= 0) throw std::invalid_argument("train: no training batches");
  torch::manual_seed(seed_);
  // Before the optimizers exist, so that their state is created on the device too.
  if (device_.is_cuda()) model_.module().to(device_);
  optimizers_ = makeOptimizers(model_, opt_);
  if (dp_ && optimizers_.sparse)
    throw std::invalid_argument("data-parallel training needs dense gradients: this model has "
                                "sparse ones (set train.sparse_embedding=false)");
  state_.lr = opt_.lr;
  read_every_ = ctx_.execution.read_every_steps > 0 ? ctx_.execution.read_every_steps
                : device_.is_cuda()                 ? 50
                                                    : 1;
  state_.outcome.loss_scaling = scaler_.enabled();
  state_.outcome.loss_scale = scaler_.scaleValue();
}

TrainOutcome Trainer::train() {
  if (checkpoints_) state_.outcome.resumed = resume();
  // A kill between putting an epoch's `last` in place and copying it to `best` (or epoch-<k>)
  // left those copies missing or stale: a resume from that epoch's end makes them again.
  if (state_.outcome.resumed && state_.batch == 0 && state_.epoch > 1)
    copyEpochEnd(state_.outcome.best_epoch == state_.epoch - 1, state_.epoch - 1);
  if (dp_) agreeWithRankZero();
  openTables();
  if (state_.outcome.resumed) optimizers_.setLearningRate(state_.lr);
  TrainOutcome& outcome = state_.outcome;
  outcome.stop_reason =
      state_.finished == Finished::EarlyStopping ? "early_stopping" : "max_epochs";
  while (state_.finished == Finished::No && state_.epoch <= options_.max_epochs) {
    if (!trainEpoch()) break;
    EpochResult epoch{state_.epoch, evaluate(), {}, state_.meters, {}, 0};
    epoch.row = logEpochRow(epoch.evals);
    epoch.decision = observeEpoch(epoch.evals);
    if (checkDivergence(epoch.evals)) break;
    finishEpoch(epoch.decision);
    if (checkpoints_)
      epoch.checkpoint_seconds = saveEpochCheckpoints(epoch.decision.improved, epoch.epoch);
    if (ctx_.progress) reportProgress(epoch);
    killPoint("epoch-end");
  }
  return outcome;
}

// Resumes from this unit's last checkpoint, if there is one of this config; true if it did.
bool Trainer::resume() {
  if (!ctx_.checkpoints.has("last")) return false;
  const std::string file = ctx_.checkpoints.path("last");
  torch::serialize::InputArchive a;
  a.load_from(file, device_);  // whatever device wrote it: its tensors come onto this run's
  c10::IValue fp;
  a.read("fingerprint", fp);
  if (fp.toStringRef() != ctx_.fingerprint) {
    std::cerr << "checkpoint " << file << " belongs to another config; starting afresh\n";
    return false;
  }
  checkCheckpointPrecision(a, file);
  const auto fields = CheckpointFields::readFrom(a, "state", "checkpoint " + file);
  torch::serialize::InputArchive m;
  a.read("model", m);
  model_.module().load(m);
  if (optimizers_.dense) {
    torch::serialize::InputArchive o;
    a.read("optimizer", o);
    loadOptimizerState(*optimizers_.dense, o);
  }
  if (optimizers_.sparse) {
    torch::serialize::InputArchive o;
    a.read("sparse_optimizer", o);
    optimizers_.sparse->load(o);
  }
  // A fresh tensor per read: reading into a defined one keeps its dtype.
  auto read = [&](const char* key) {
    torch::Tensor t;
    a.read(key, t);
    return t;
  };
  setRngState(read("rng"));
  if (device_.is_cuda()) {
    const int64_t devices = static_cast<int64_t>(torch::cuda::device_count());
    for (int64_t i = 0; i < devices; ++i) {
      torch::Tensor t;
      if (!a.try_read(cudaRngKey(i), t)) continue;  // written on the CPU: the seed's streams
      auto gen = cudaGenerator(i);
      std::lock_guard<std::mutex> lock(gen.mutex());
      gen.set_state(t.to(torch::kCPU));
    }
  }
  state_.restore(fields);
  scaler_.restoreFrom(fields);
  state_.outcome.loss_scale = scaler_.scaleValue();
  state_.outcome.skipped_steps = scaler_.skippedSteps();
  state_.epoch_rows = tensorRows(read("epoch_rows"));
  state_.step_rows = tensorRows(read("step_rows"));
  checkpoint_seconds_.restore({0, 0, state_.outcome.times.checkpoint});
  plateau_.restore(state_.plateau);
  std::cout << "resume: " << unitName() << " from " << position() << " (of " << batches_
            << " batches)" << std::endl;  // flushed: a kill may follow
  return true;
}

std::string Trainer::unitName() const {
  return dp_ ? ctx_.group + " rank " + std::to_string(dp_->rank()) : ctx_.group;
}

std::string Trainer::position() const {
  return "epoch " + std::to_string(state_.epoch) + " batch " + std::to_string(state_.batch) +
         " step " + std::to_string(state_.step);
}

// A checkpoint trained in another precision is refused rather than converted: its weights are
// float32 either way, but its loss scale and its numbers so far belong to the other precision.
// Checkpoints written before precisions existed are fp32.
void Trainer::checkCheckpointPrecision(torch::serialize::InputArchive& archive,
                                       const std::string& file) {
  c10::IValue written;
  const std::string precision =
      archive.try_read("precision", written) ? written.toStringRef() : std::string("fp32");
  if (precision == precisionName(precision_)) return;
  throw std::runtime_error("checkpoint " + file + " was trained with --precision " + precision +
                           ", this run asks for --precision " + precisionName(precision_) +
                           ": resume with --precision " + precision +
                           ", or delete the unit's checkpoints to restart it");
}

// Data-parallel: every rank resumed from its own checkpoint, so they must stand at the same
// step; rank 0's weights are everyone's.
void Trainer::agreeWithRankZero() {
  const auto& s = state_;
  std::vector<double> where{static_cast<double>(s.epoch), static_cast<double>(s.batch),
                            static_cast<double>(s.step)};
  std::vector<double> rank_zero = where;
  dp_->broadcast(rank_zero);
  if (rank_zero != where)
    throw std::runtime_error(
        "data-parallel rank " + std::to_string(dp_->rank()) + " of " + ctx_.group +
        " stands at epoch " + std::to_string(s.epoch) + " batch " + std::to_string(s.batch) +
        " but rank 0 at epoch " + std::to_string(static_cast<int64_t>(rank_zero[0])) +
        " batch " + std::to_string(static_cast<int64_t>(rank_zero[1])) +
        ": the ranks' checkpoints differ (delete the unit's checkpoints of every rank to "
        "restart it)");
  dp_->broadcastFromRankZero(model_.module(), model_.rankLocalBuffers());
  // Rank 0 keeps the seed's stream (world size 1 = one process, bit for bit); the others
  // draw their own dropout masks.
  if (!s.outcome.resumed && dp_->rank() > 0)
    torch::manual_seed(seed_ ^ (0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(dp_->rank())));
}

// Creates the tables, with the rows a resumed run had written before, and records where the
// run went on from (the unit's resumed_from_epoch and resumed_from_step).
void Trainer::openTables() {
  if (!ctx_.log) return;
  ctx_.log->createTable(ctx_.group + "/epochs", columns_);
  if (!state_.epoch_rows.empty()) ctx_.log->appendRows(ctx_.group + "/epochs", state_.epoch_rows);
  if (options_.log_every_steps > 0) {
    ctx_.log->createTable(ctx_.group + "/steps", stepColumns());
    if (!state_.step_rows.empty()) ctx_.log->appendRows(ctx_.group + "/steps", state_.step_rows);
  }
  // Where this run went on from, as its resume line says ((0, 0): from the start): the kill
  // tests hold it against the last checkpoint written before the kill.
  const bool resumed = state_.outcome.resumed;
  ctx_.log->setAttribute(ctx_.group, "resumed_from_epoch", resumed ? state_.epoch : int64_t{0});
  ctx_.log->setAttribute(ctx_.group, "resumed_from_step", resumed ? state_.step : int64_t{0});
  ctx_.log->flush();
}

// The batches left in this epoch; false when the loss diverged.
bool Trainer::trainEpoch() {
  model_.module().train();
  // Progress inside the epoch, where the run reports its epochs (rank 0 when data-parallel).
  const auto seconds = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  std::optional<ProgressBar> bar;
  const double counted_before = state_.meters.examples_per_second.count();
  if (ctx_.progress && (!dp_ || dp_->rank() == 0)) {
    bar.emplace(std::cerr, ProgressBar::Options{ProgressBar::stderrIsTerminal()});
    bar->start("epoch " + std::to_string(state_.epoch), batches_, model_.exampleUnit(), seconds(),
               state_.batch);
  }
  while (state_.batch < batches_) {
    const int64_t step_before = state_.step;
    if (!trainStep()) {
      if (bar) bar->finish();
      return false;
    }
    if (bar)
      bar->update(state_.batch, state_.meters.examples_per_second.count() - counted_before,
                  seconds());
    if (state_.step == step_before) continue;  // inside an accumulation group
    const bool row = options_.log_every_steps > 0 && state_.step % options_.log_every_steps == 0;
    const bool checkpoint = checkpoints_ && options_.checkpoint_every_steps > 0 &&
                            state_.step % options_.checkpoint_every_steps == 0 &&
                            state_.batch < batches_;
    if ((row || checkpoint) && !readPendingBatches()) return false;
    logStepRow();
    if (checkpoint) saveCheckpoint("last");
    killPoint("train-step");
  }
  const bool read = readPendingBatches();
  if (bar) bar->finish();
  return read;
}

// One batch: forward, backward, and the optimizer step when it ends an accumulation group.
// False (and the outcome says why) when its loss is not finite.
bool Trainer::trainStep() {
  auto& s = state_;
  auto& m = s.meters;
  const int64_t group_start = s.batch - s.batch % opt_.accumulate;
  const int64_t group_size = std::min(opt_.accumulate, batches_ - group_start);
  auto batch_timing = m.examples_per_second.measure();
  std::unique_ptr<TrainBatch> batch;
  {
    auto timing = m.data_seconds.measure();
    if (s.batch == group_start) {
      optimizers_.zeroGrad();
      step_examples_ = 0;
    }
    batch = model_.batch(s.epoch, s.batch);
    if (dp_) batch = batch->part(dp_->rank(), dp_->worldSize());
  }
  const BatchForward f = forwardBatch(*batch);
  // Read now (the CPU, data-parallel): a non-finite loss stops before its backward.
  if (f.read && !recordBatch(f.loss, f.examples, f.tallies, s.epoch, s.batch)) return false;
  if (f.output.loss.defined()) {  // undefined: this rank's part of the batch is empty
    auto timing = m.backward_seconds.measure();
    scaler_.scale(group_size > 1 ? f.output.loss / static_cast<double>(group_size) : f.output.loss)
        .backward();
  }
  auto timing = m.step_seconds.measure();
  if (!f.read)
    pending_.push_back({f.output.loss.detach(), f.output.tally_values.defined()
                                                    ? f.output.tally_values.detach()
                                                    : torch::Tensor(),
                        f.output.tallies, f.examples, s.epoch, s.batch});
  m.examples_per_second.addCount(f.examples);
  ++s.batch;
  if (s.batch == group_start + group_size) optimizerStep();
  if (static_cast<int64_t>(pending_.size()) >= read_every_) return readPendingBatches();
  return true;
}

bool Trainer::recordBatch(double loss, double examples, const std::vector<double>& tallies,
                          int64_t epoch, int64_t batch) {
  auto& s = state_;
  if (!std::isfinite(loss)) {
    s.outcome.diverged = true;
    s.outcome.stop_reason = "diverged: training loss is " + std::to_string(loss) + " at epoch " +
                            std::to_string(epoch) + ", batch " + std::to_string(batch + 1);
    return false;
  }
  s.meters.train_loss.add(loss * examples, examples);
  for (size_t i = 0; i < s.meters.tallies.size() && i < tallies.size(); ++i)
    s.meters.tallies[i].add(tallies[i], examples);
  s.window_loss.add(loss);
  return true;
}

bool Trainer::readPendingBatches() {
  if (pending_.empty()) return true;
  std::vector<torch::Tensor> values;
  for (const auto& p : pending_) {
    values.push_back(p.loss.to(torch::kDouble).reshape({1}));
    if (p.tallies.defined()) values.push_back(p.tallies.to(torch::kDouble).reshape({-1}));
  }
  const auto host = torch::cat(values).to(torch::kCPU).contiguous();  // the one device read
  const double* x = host.data_ptr<double>();
  auto pending = std::move(pending_);
  pending_.clear();
  for (const auto& p : pending) {
    const double loss = *x++;
    std::vector<double> tallies;
    if (p.tallies.defined())
      for (int64_t i = 0; i < p.tallies.numel(); ++i) tallies.push_back(*x++);
    else
      tallies = p.host_tallies;
    if (!recordBatch(loss, p.examples, tallies, p.epoch, p.batch)) return false;
  }
  return true;
}

// The forward pass of a batch, its loss and tallies summed over the data-parallel ranks so
// that all ranks log, check and checkpoint the same numbers.
Trainer::BatchForward Trainer::forwardBatch(const TrainBatch& batch) {
  auto timing = state_.meters.forward_seconds.measure();
  BatchForward f;
  if (!batch.empty()) {  // empty: a rank's part of a batch smaller than the ranks, nothing to do
    AutocastScope autocast(precision_, device_);
    f.output = model_.forward(batch);
  }
  f.examples = static_cast<double>(f.output.examples);
  step_examples_ += f.examples;
  if (!dp_ && read_every_ > 1) return f;  // read later, with the next batches (readPendingBatches)
  f.read = true;
  f.loss = f.output.loss.defined() ? f.output.loss.item<double>() : 0.0;
  if (f.output.tally_values.defined()) {
    const auto t = f.output.tally_values.to(torch::kDouble).to(torch::kCPU).contiguous();
    f.tallies.assign(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
  } else {
    f.tallies.assign(f.output.tallies.begin(), f.output.tallies.end());
  }
  if (!dp_) return f;
  f.tallies.resize(state_.meters.tallies.size(), 0.0);  // the same length on every rank
  std::vector<double> stats{f.loss * f.examples, f.examples};
  stats.insert(stats.end(), f.tallies.begin(), f.tallies.end());
  dp_->sum(stats);
  f.loss = stats[1] > 0 ? stats[0] / stats[1] : 0.0;
  f.examples = stats[1];
  f.tallies.assign(stats.begin() + 2, stats.end());
  return f;
}

// The step that ends an accumulation group: schedule, all-reduce, clipping, update.
void Trainer::optimizerStep() {
  ++state_.step;
  if (stepwise_) scheduleStep();
  if (dp_)
    state_.outcome.allreduce_bytes_per_step = dp_->averageGradients(optimizers_.all, step_examples_);
  // fp16: gradients back to their true size; an overflow skips the update (loss_scaler.h).
  const bool finite = scaler_.unscale(optimizers_.all);
  if (finite) {
    if (opt_.clip > 0) clipGradientNorm(optimizers_.all, opt_.clip);
    optimizers_.step();
  }
  scaler_.update(finite);
  state_.outcome.steps = state_.step;
  state_.outcome.skipped_steps = scaler_.skippedSteps();
  state_.outcome.loss_scale = scaler_.scaleValue();
}

// The learning rate: per step for a stepwise schedule (warm-up, decay), or after an epoch
// that did not improve (the plateau schedule) or before a milestone epoch.
void Trainer::scheduleStep() {
  state_.lr = stepwise_ ? scheduledLearningRate(opt_, state_.step)
                        : std::max(opt_.min_lr, state_.lr * opt_.lr_decay);
  optimizers_.setLearningRate(state_.lr);
}

// A `steps` table row every log_every_steps steps: the window's mean batch loss.
void Trainer::logStepRow() {
  auto& s = state_;
  if (options_.log_every_steps <= 0 || s.step % options_.log_every_steps != 0) return;
  std::vector<double> row = {static_cast<double>(s.step), static_cast<double>(s.epoch),
                             s.window_loss.value(), s.lr};
  s.step_rows.push_back(row);
  if (ctx_.log) ctx_.log->appendRow(ctx_.group + "/steps", row);
  s.window_loss.reset();
}

// The held-out metrics: rank 0 evaluates (the weights are the same everywhere), the other
// ranks take its numbers.
std::vector<double> Trainer::evaluate() {
  auto timing = state_.meters.eval_seconds.measure();
  std::vector<double> evals;
  if (!dp_ || dp_->rank() == 0) {
    AutocastScope autocast(precision_, device_);
    evals = model_.evaluate();
  }
  if (dp_) {
    dp_->waitForRankZero("evaluation");
    evals.resize(eval_names_.size(), 0.0);
    dp_->broadcast(evals);
  }
  return evals;
}

// The epochs table's row of the epoch that ends (columns as epochColumns()).
std::vector<double> Trainer::logEpochRow(const std::vector<double>& evals) {
  const auto& m = state_.meters;
  std::vector<double> row = {static_cast<double>(state_.epoch), m.train_loss.value()};
  for (const auto& t : m.tallies) row.push_back(t.value());
  row.insert(row.end(), evals.begin(), evals.end());
  for (double x : {state_.lr, m.examples_per_second.seconds(), m.examples_per_second.value(),
                   m.data_seconds.value(), m.forward_seconds.value(), m.backward_seconds.value(),
                   m.step_seconds.value(), m.eval_seconds.value()})
    row.push_back(x);
  state_.epoch_rows.push_back(row);
  if (ctx_.log) {
    ctx_.log->appendRow(ctx_.group + "/epochs", row);
    killPoint("epoch-row-written");
  }
  return row;
}

// Early stopping and the best epoch on the selection metric; the outcome's totals.
PlateauTracker::Decision Trainer::observeEpoch(const std::vector<double>& evals) {
  auto& s = state_;
  const auto& m = s.meters;
  const auto decision = plateau_.observe(evals[selection_]);
  s.plateau = plateau_.state();
  TrainOutcome& outcome = s.outcome;
  outcome.epochs = s.epoch;
  outcome.train_seconds += m.examples_per_second.seconds();
  outcome.times.data += m.data_seconds.value();
  outcome.times.forward += m.forward_seconds.value();
  outcome.times.backward += m.backward_seconds.value();
  outcome.times.step += m.step_seconds.value();
  outcome.times.evaluation += m.eval_seconds.value();
  outcome.final_lr = s.lr;
  if (decision.improved) {
    outcome.best_epoch = s.epoch;
    for (size_t i = 0; i < evals.size() && i < eval_names_.size(); ++i)
      outcome.best[eval_names_[i]] = evals[i];
    const auto tally_names = model_.tallyNames();
    for (size_t i = 0; i < tally_names.size(); ++i)
      outcome.best["train_" + tally_names[i]] = m.tallies[i].value();
  }
  return decision;
}

// Divergence after an epoch: a metric that is not finite, or a parameter beyond the limit.
bool Trainer::checkDivergence(const std::vector<double>& evals) {
  std::string why;
  for (size_t i = 0; i < evals.size(); ++i)
    if (!std::isfinite(evals[i])) why = eval_names_[i] + " is " + std::to_string(evals[i]);
  if (why.empty())
    for (const auto& np : model_.module().named_parameters()) {
      const double m = np.value().detach().abs().max().item<double>();
      if (!(m <= options_.max_parameter)) {
        why = "parameter " + np.key() + " reached |x| = " + std::to_string(m);
        break;
      }
    }
  if (why.empty()) return false;
  state_.outcome.diverged = true;
  state_.outcome.stop_reason =
      "diverged: " + why + " after epoch " + std::to_string(state_.epoch);
  return true;
}

// Whether training is over, the plateau or milestone decay, and the next epoch's start.
void Trainer::finishEpoch(const PlateauTracker::Decision& decision) {
  auto& s = state_;
  if (decision.stop) {
    s.finished = Finished::EarlyStopping;
    s.outcome.stop_reason = "early_stopping";
  } else if (s.epoch == options_.max_epochs) s.finished = Finished::MaxEpochs;
  if (opt_.schedule == "plateau" ? decision.decay_lr : decaysBeforeEpoch(opt_, s.epoch + 1))
    scheduleStep();
  ++s.epoch;
  s.batch = 0;
  s.meters.reset();
}

// The checkpoint `name`: model, optimizers, RNG, the state by name and the tables so far. It
// holds the checkpoint seconds before its own writing.
void Trainer::saveCheckpoint(const std::string& name) {
  {
    auto timing = checkpoint_seconds_.measure();
    ctx_.checkpoints.commit(name, [&](const std::string& path) { writeCheckpoint(path); });
  }
  // One write of the whole line: data-parallel ranks share stderr, and a line written piece by
  // piece interleaved with another rank's ("checkpoint: checkpoint: ... rank 0 ...").
  if (ctx_.checkpoints.enabled())
    std::cerr << ("checkpoint: " + unitName() + " at " + position() + "\n");
  state_.outcome.times.checkpoint = checkpoint_seconds_.seconds();
}

void Trainer::writeCheckpoint(const std::string& path) {
  torch::serialize::OutputArchive a, m;
  model_.module().save(m);
  a.write("model", m);
  if (optimizers_.dense) {
    torch::serialize::OutputArchive o;
    saveOptimizerState(*optimizers_.dense, o);
    a.write("optimizer", o);
  }
  if (optimizers_.sparse) {
    torch::serialize::OutputArchive o;
    optimizers_.sparse->save(o);
    a.write("sparse_optimizer", o);
  }
  a.write("rng", rngState());
  if (device_.is_cuda()) {
    const int64_t devices = static_cast<int64_t>(torch::cuda::device_count());
    for (int64_t i = 0; i < devices; ++i) {
      auto gen = cudaGenerator(i);
      std::lock_guard<std::mutex> lock(gen.mutex());
      a.write(cudaRngKey(i), gen.get_state());
    }
  }
  a.write("precision", c10::IValue(precisionName(precision_)));
  auto fields = state_.fields();
  scaler_.writeTo(fields);
  fields.writeTo(a, "state");
  a.write("epoch_rows", rowsTensor(state_.epoch_rows, columns_.size()));
  a.write("step_rows", rowsTensor(state_.step_rows, stepColumns().size()));
  a.write("fingerprint", c10::IValue(ctx_.fingerprint));
  a.save_to(path);
}

// At an epoch's end: `last`, `best` when it improved, and the last k epochs' files. Returns
// the seconds spent writing `last`.
double Trainer::saveEpochCheckpoints(bool improved, int64_t epoch) {
  const double before = checkpoint_seconds_.seconds();
  saveCheckpoint("last");
  const double seconds = checkpoint_seconds_.seconds() - before;
  copyEpochEnd(improved, epoch);
  return seconds;
}

// The copies of an epoch's end `last`: `best` when the epoch improved, epoch-<epoch> when the
// last k epochs are kept (the older ones removed).
void Trainer::copyEpochEnd(bool improved, int64_t epoch) {
  if (improved) ctx_.checkpoints.copy("last", "best");
  if (options_.keep_last_epochs <= 0) return;
  ctx_.checkpoints.copy("last", "epoch-" + std::to_string(epoch));
  auto kept = ctx_.checkpoints.numbered("epoch-");
  while (static_cast<int64_t>(kept.size()) > options_.keep_last_epochs) {
    ctx_.checkpoints.remove(kept.front());
    kept.erase(kept.begin());
  }
}

// The progress line of an epoch that ended.
void Trainer::reportProgress(const EpochResult& e) {
  const auto& m = e.meters;
  std::string line = "epoch " + std::to_string(e.epoch) + "/" +
                     std::to_string(options_.max_epochs) + " loss " + fmt("%.4f", e.row[1]);
  for (size_t i = 0; i < e.evals.size(); ++i)
    line += " " + eval_names_[i] + " " + fmt("%.4f", e.evals[i]);
  line += " (best " + fmt("%.4f", plateau_.best()) + ") " +
          fmt("%.0f", m.examples_per_second.value()) + " " + model_.exampleUnit() + "/s " +
          fmt("%.1f", m.examples_per_second.seconds()) + "s [data " +
          fmt("%.2f", m.data_seconds.value()) + " fwd " + fmt("%.2f", m.forward_seconds.value()) +
          " bwd " + fmt("%.2f", m.backward_seconds.value()) + " step " +
          fmt("%.2f", m.step_seconds.value()) + " eval " + fmt("%.2f", m.eval_seconds.value()) +
          " ckpt " + fmt("%.2f", e.checkpoint_seconds) + "]";
  if (dp_)
    line += " " + std::to_string(dp_->worldSize()) + " ranks, all-reduce " +
            std::to_string(state_.outcome.allreduce_bytes_per_step) + " B/step";
  ctx_.progress(line, static_cast<double>(e.epoch) / static_cast<double>(options_.max_epochs));
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

TrainOutcome train(TrainingModel& model, const OptimizerOptions& optimizer,
                   const TrainerOptions& options, uint64_t seed, const TrainerContext& context) {
  return Trainer(model, optimizer, options, seed, context).train();
}
void clipGradientNorm(const std::vector<torch::Tensor>& params, double max_norm) {
  bool sparse = false;
  for (const auto& p : params) sparse |= p.grad().defined() && p.grad().is_sparse();
  if (!sparse && !params.empty() && params.front().is_cuda()) {
    // On the device, without reading the norm back (a host read would stall every step).
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> norms;
    for (const auto& p : params)
      if (p.grad().defined()) norms.push_back(p.grad().norm());
    if (norms.empty()) return;
    const auto coef = (max_norm / (torch::stack(norms).norm() + 1e-6)).clamp_max(1.0);
    for (auto p : params)
      if (p.grad().defined()) p.mutable_grad().mul_(coef);
    return;
  }
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
  // Onto the module's device, whichever device wrote the files.
  const auto params = module.parameters();
  const torch::Device device = params.empty() ? torch::Device(torch::kCPU) : params.front().device();
  for (const auto& f : files) {
    torch::serialize::InputArchive archive, model;
    try {
      archive.load_from(f, device);
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

}  // namespace recurlab::experiments
