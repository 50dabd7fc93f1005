#include "experiments/training/training_state.h"

#include <utility>

namespace recurlab::experiments {
namespace {

// The time columns of the epochs table, with the totals' member of each.
struct TimeField {
  const char* name;
  Meter EpochMeters::*meter;
  double EpochTimes::*total;
};

const std::vector<TimeField>& timeFields() {
  static const std::vector<TimeField> f = {
      {"data_seconds", &EpochMeters::data_seconds, &EpochTimes::data},
      {"forward_seconds", &EpochMeters::forward_seconds, &EpochTimes::forward},
      {"backward_seconds", &EpochMeters::backward_seconds, &EpochTimes::backward},
      {"step_seconds", &EpochMeters::step_seconds, &EpochTimes::step},
      {"eval_seconds", &EpochMeters::eval_seconds, &EpochTimes::evaluation}};
  return f;
}

}  // namespace

EpochMeters::EpochMeters(size_t tallies) : tallies(tallies, Meter::average()) {}

void EpochMeters::reset() {
  train_loss.reset();
  for (auto& t : tallies) t.reset();
  examples_per_second.reset();
  for (const auto& f : timeFields()) (this->*f.meter).reset();
}

TrainingState::TrainingState(std::vector<std::string> tally_names,
                             const std::vector<std::string>& best_names)
    : meters(tally_names.size()), tally_names_(std::move(tally_names)) {
  for (const auto& name : best_names) outcome.best[name] = 0.0;
}

CheckpointFields TrainingState::fields() const {
  CheckpointFields f;
  f.setInteger("epoch", epoch);
  f.setInteger("batch", batch);
  f.setInteger("step", step);
  f.setInteger("finished", static_cast<int64_t>(finished));
  f.setReal("lr", lr);
  f.setInteger("plateau.epoch", plateau.epoch);
  f.setInteger("plateau.best_epoch", plateau.best_epoch);
  f.setInteger("plateau.since_best", plateau.since_best);
  f.setInteger("plateau.since_decay", plateau.since_decay);
  f.setReal("plateau.best", plateau.best);
  f.setMeter("epoch.train_loss", meters.train_loss);
  for (size_t i = 0; i < tally_names_.size(); ++i)
    f.setMeter("epoch.train_" + tally_names_[i], meters.tallies[i]);
  f.setMeter("epoch.examples_per_second", meters.examples_per_second);
  for (const auto& t : timeFields()) {
    f.setMeter(std::string("epoch.") + t.name, meters.*t.meter);
    f.setReal(std::string("total.") + t.name, outcome.times.*t.total);
  }
  f.setMeter("window_loss", window_loss);
  f.setInteger("total.epochs", outcome.epochs);
  f.setInteger("total.steps", outcome.steps);
  f.setInteger("total.best_epoch", outcome.best_epoch);
  f.setReal("total.train_seconds", outcome.train_seconds);
  f.setReal("total.checkpoint_seconds", outcome.times.checkpoint);
  f.setReal("total.final_lr", outcome.final_lr);
  for (const auto& [name, value] : outcome.best) f.setReal("best." + name, value);
  return f;
}

void TrainingState::restore(const CheckpointFields& f) {
  epoch = f.integer("epoch");
  batch = f.integer("batch");
  step = f.integer("step");
  finished = static_cast<Finished>(f.integer("finished"));
  lr = f.real("lr");
  plateau.epoch = f.integer("plateau.epoch");
  plateau.best_epoch = f.integer("plateau.best_epoch");
  plateau.since_best = f.integer("plateau.since_best");
  plateau.since_decay = f.integer("plateau.since_decay");
  plateau.best = f.real("plateau.best");
  meters.train_loss.restore(f.meter("epoch.train_loss"));
  for (size_t i = 0; i < tally_names_.size(); ++i)
    meters.tallies[i].restore(f.meter("epoch.train_" + tally_names_[i]));
  meters.examples_per_second.restore(f.meter("epoch.examples_per_second"));
  for (const auto& t : timeFields()) {
    (meters.*t.meter).restore(f.meter(std::string("epoch.") + t.name));
    outcome.times.*t.total = f.real(std::string("total.") + t.name);
  }
  window_loss.restore(f.meter("window_loss"));
  outcome.epochs = f.integer("total.epochs");
  outcome.steps = f.integer("total.steps");
  outcome.best_epoch = f.integer("total.best_epoch");
  outcome.train_seconds = f.real("total.train_seconds");
  outcome.times.checkpoint = f.real("total.checkpoint_seconds");
  outcome.final_lr = f.real("total.final_lr");
  for (auto& [name, value] : outcome.best) value = f.real("best." + name);
}

}  // namespace recurlab::experiments
