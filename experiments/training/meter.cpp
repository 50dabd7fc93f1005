#include "experiments/training/meter.h"

#include <time.h>

#include <chrono>

namespace recurlab::experiments {

double Meter::value() const {
  switch (kind_) {
    case Kind::Average:
      return state_.count != 0 ? state_.sum / state_.count : 0.0;
    case Kind::Rate:
      return state_.seconds > 0 && state_.count != 0 ? state_.count / state_.seconds : 0.0;
    case Kind::Time:
      break;
  }
  return state_.seconds;
}

double Meter::now(Clock clock) {
  if (clock == Clock::ProcessCpu) {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Meter::Timing::Timing(Meter& meter) : meter_(&meter), start_(now(meter.clock_)) {}

Meter::Timing::Timing(Timing&& other) noexcept : meter_(other.meter_), start_(other.start_) {
  other.meter_ = nullptr;
}

Meter::Timing::~Timing() {
  if (meter_) meter_->addSeconds(now(meter_->clock_) - start_);
}

}  // namespace recurlab::experiments
