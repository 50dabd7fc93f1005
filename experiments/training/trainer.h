#pragma once
// The one training loop of every task. A task supplies a TrainingModel (training_model.h: its
// batches, its loss, its held-out metrics); the Trainer owns the rest: optimizer (Adam, AdamW,
// SGD, plus SparseRowOptimizer for parameters with sparse gradients), weight decay, clipping,
// gradient accumulation, lr schedule, early stopping on a selection metric with a direction,
// divergence detection (loss, parameters, metrics), the `epochs` table (and a `steps` table
// every N steps) under the unit's group, a time breakdown per epoch (data, forward, backward,
// optimizer step, evaluation, checkpoint) kept in meters (meter.h), and checkpoints: at every
// epoch end (and every N steps) the model, optimizer, schedule, torch's RNG state, the state of
// training by name (training_state.h) and the tables so far, from which a killed unit resumes
// to the same result bit for bit on CPU. Checkpoints of the older positional format are not
// resumed: the unit stops with an error that says to delete them.
#include <torch/torch.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/log/hdf5_run_log.h"
#include "experiments/training/checkpoint_store.h"
#include "experiments/training/execution_options.h"
#include "experiments/training/loss_scaler.h"
#include "experiments/training/optimizer_options.h"
#include "experiments/training/trainer_options.h"
#include "experiments/training/training_model.h"

namespace recurlab::experiments {

class DataParallelGroup;

struct EpochTimes {
  double data = 0, forward = 0, backward = 0, step = 0, evaluation = 0, checkpoint = 0;
};

struct TrainOutcome {
  bool diverged = false;
  bool resumed = false;      // started from a checkpoint
  std::string stop_reason;   // "max_epochs", "early_stopping" or why it diverged
  int64_t epochs = 0;        // epochs completed
  int64_t steps = 0;         // optimizer steps
  int64_t best_epoch = 0;
  std::map<std::string, double> best;  // evaluation metrics and train_<tally> at best_epoch
  double train_seconds = 0;  // sum of the epochs' training time (evaluation excluded)
  EpochTimes times;          // summed over the epochs
  double final_lr = 0;
  int64_t allreduce_bytes_per_step = 0;  // data-parallel: gradient bytes all-reduced per step
  bool loss_scaling = false;  // fp16: the loss scaler ran
  int64_t skipped_steps = 0;  // steps it skipped (gradient overflow)
  double loss_scale = 1;      // its scale at the end
};

struct TrainerContext {
  Hdf5RunLog* log = nullptr;   // tables go under `group`; null = no tables
  std::string group;
  CheckpointStore checkpoints;  // disabled = no checkpoints
  std::string fingerprint;     // e.g. the unit's config: a checkpoint with another is ignored
  // After every epoch: a line for the progress output and the fraction of epochs done.
  std::function<void(const std::string& line, double done)> progress;
  // Data-parallel ranks (null or world size 1: this process alone). Every rank runs train()
  // with its own context (rank 0's log and checkpoints are the run's); batches are split with
  // TrainBatch::part, gradients averaged by examples, evaluation done by rank 0 and broadcast
  // (the other ranks wait for it without the collective timeout).
  DataParallelGroup* data_parallel = nullptr;
  // Device and precision (experiments/training/execution_options.h): the model is moved to the
  // device, forward and evaluation run under autocast for bf16/fp16, and a checkpoint records
  // the precision (resuming one of another precision is an error), the loss scaler and, on
  // CUDA, every device's RNG state; it loads onto this run's device whatever device wrote it.
  ExecutionOptions execution = {};
  // Dynamic loss scaling: nullopt = on for fp16 with LossScalerOptions' defaults, off
  // otherwise; a value turns it on in any precision (exact with power-of-two scales).
  std::optional<LossScalerOptions> loss_scaling = std::nullopt;
};

// Columns of the epochs table for a model.
std::vector<std::string> epochColumns(const TrainingModel& model);

// Trains `model` from `seed` (torch's generator is seeded with it; on resume its state comes
// from the checkpoint).
TrainOutcome train(TrainingModel& model, const OptimizerOptions& optimizer,
                   const TrainerOptions& options, uint64_t seed, const TrainerContext& context);

// Global norm clipping that also handles sparse gradients (coalesced first); with only dense
// gradients it is torch::nn::utils::clip_grad_norm_.
void clipGradientNorm(const std::vector<torch::Tensor>& params, double max_norm);

// Loads into `module` the element-wise mean of the model parameters and buffers saved in the
// given checkpoint files (e.g. the last k epochs' epoch-<k>.pt, for MT).
void loadAveragedCheckpoints(torch::nn::Module& module, const std::vector<std::string>& files);

}  // namespace recurlab::experiments
