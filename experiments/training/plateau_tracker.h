#pragma once
// Early stopping and learning-rate halving on a dev metric that should go up (accuracy):
// the reference protocol (seed 002 E.3, rational-recurrences train_classifier.py) stops after
// `patience` epochs without a better dev score and multiplies lr by `decay` after
// `lr_patience` epochs without one (the count restarts after each decay).
#include <cstdint>

namespace recurlab::experiments {

class PlateauTracker {
 public:
  PlateauTracker(int64_t patience, int64_t lr_patience)
      : patience_(patience), lr_patience_(lr_patience) {}

  struct Decision {
    bool improved = false;   // this epoch is the new best
    bool decay_lr = false;   // multiply lr by the decay now
    bool stop = false;       // early stopping: no more epochs
  };

  Decision observe(double dev_score) {
    Decision d;
    ++epoch_;
    if (epoch_ == 1 || dev_score > best_) {
      best_ = dev_score;
      best_epoch_ = epoch_;
      since_best_ = 0;
      since_decay_ = 0;
      d.improved = true;
      return d;
    }
    ++since_best_;
    ++since_decay_;
    if (since_decay_ >= lr_patience_) {
      d.decay_lr = true;
      since_decay_ = 0;
    }
    d.stop = since_best_ >= patience_;
    return d;
  }

  double best() const { return best_; }
  int64_t bestEpoch() const { return best_epoch_; }  // 1-based; 0 before any epoch

 private:
  int64_t patience_, lr_patience_;
  int64_t epoch_ = 0, best_epoch_ = 0, since_best_ = 0, since_decay_ = 0;
  double best_ = 0.0;
};

}  // namespace recurlab::experiments
