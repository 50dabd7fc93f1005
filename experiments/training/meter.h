#pragma once
// One kind of counter for everything a training run measures: progress lines, the epochs
// table's columns and every timer. A meter keeps a sum, a count and seconds; its kind says
// what its value is:
//   average  sum / count   (a loss summed over examples / the examples)
//   rate     count / seconds  (examples per second)
//   time     seconds        (accumulated by scoped timings or added)
// reset() starts it over (at each epoch for the per-epoch meters); state()/restore() carry it
// through a checkpoint.
#include <cstdint>

namespace recurlab::experiments {

class Meter {
 public:
  enum class Kind { Average, Rate, Time };
  // Which clock a timing reads: the wall clock, or the process's CPU time (with one thread,
  // the work itself, whatever else the machine runs meanwhile).
  enum class Clock { Wall, ProcessCpu };

  struct State {
    double sum = 0, count = 0, seconds = 0;
  };

  // Adds its elapsed seconds to the meter when it ends (destroyed); movable, not copyable.
  class Timing {
   public:
    explicit Timing(Meter& meter);
    Timing(Timing&& other) noexcept;
    Timing& operator=(Timing&&) = delete;
    Timing(const Timing&) = delete;
    Timing& operator=(const Timing&) = delete;
    ~Timing();

   private:
    Meter* meter_;
    double start_;
  };

  explicit Meter(Kind kind, Clock clock = Clock::Wall) : kind_(kind), clock_(clock) {}
  static Meter average() { return Meter(Kind::Average); }
  static Meter rate() { return Meter(Kind::Rate); }
  static Meter time(Clock clock = Clock::Wall) { return Meter(Kind::Time, clock); }

  // `total` summed over `count` items: an average meter's mean is their sum / count.
  void add(double total, double count = 1) {
    state_.sum += total;
    state_.count += count;
  }
  void addCount(double count) { state_.count += count; }  // a rate meter's items
  void addSeconds(double seconds) { state_.seconds += seconds; }
  Timing measure() { return Timing(*this); }  // times the enclosing scope

  // By kind: sum / count, count / seconds (0 while either is 0), or seconds.
  double value() const;
  double sum() const { return state_.sum; }
  double count() const { return state_.count; }
  double seconds() const { return state_.seconds; }
  Kind kind() const { return kind_; }

  void reset() { state_ = {}; }
  const State& state() const { return state_; }
  void restore(const State& s) { state_ = s; }

  // Seconds on `clock` since an arbitrary origin (differences only).
  static double now(Clock clock);

 private:
  Kind kind_;
  Clock clock_;
  State state_;
};

}  // namespace recurlab::experiments
