#pragma once
// Early stopping and learning-rate halving on a selection metric, in either direction: the
// reference protocol (Lei et al. 2018 §B.1; Peng et al. 2018 App. E.3, the rational
// recurrences' train_classifier.py) stops after `patience` epochs without a better dev score
// and multiplies lr by `decay` after `lr_patience` epochs without one (the count restarts
// after each decay).
#include <cstdint>

namespace recurlab::experiments {

class PlateauTracker {
 public:
  PlateauTracker(int64_t patience, int64_t lr_patience, bool higher_is_better = true)
      : patience_(patience), lr_patience_(lr_patience), higher_(higher_is_better) {}

  struct Decision {
    bool improved = false;   // this epoch is the new best
    bool decay_lr = false;   // multiply lr by the decay now
    bool stop = false;       // early stopping: no more epochs
  };

  // Everything it remembers, for checkpoints.
  struct State {
    int64_t epoch = 0, best_epoch = 0, since_best = 0, since_decay = 0;
    double best = 0.0;
  };

  Decision observe(double score) {
    Decision d;
    ++s_.epoch;
    if (s_.epoch == 1 || (higher_ ? score > s_.best : score < s_.best)) {
      s_.best = score;
      s_.best_epoch = s_.epoch;
      s_.since_best = 0;
      s_.since_decay = 0;
      d.improved = true;
      return d;
    }
    ++s_.since_best;
    ++s_.since_decay;
    if (s_.since_decay >= lr_patience_) {
      d.decay_lr = true;
      s_.since_decay = 0;
    }
    d.stop = s_.since_best >= patience_;
    return d;
  }

  double best() const { return s_.best; }
  int64_t bestEpoch() const { return s_.best_epoch; }  // 1-based; 0 before any epoch
  const State& state() const { return s_; }
  void restore(const State& s) { s_ = s; }

 private:
  int64_t patience_, lr_patience_;
  bool higher_;
  State s_;
};

}  // namespace recurlab::experiments
