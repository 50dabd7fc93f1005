// The meter's three kinds (average, rate, time), its scoped timings on both clocks, and reset
// and restore.
#include "experiments/training/meter.h"

#include <gtest/gtest.h>

#include <utility>

namespace recurlab::experiments {
namespace {

// Waits until `clock` has moved on, so a timing around it is above zero.
void waitForClock(Meter::Clock clock) {
  const double start = Meter::now(clock);
  volatile double sink = 0;
  while (Meter::now(clock) <= start) sink = sink + 1;
}

TEST(Meter, AverageIsTheSumOverTheCount) {
  Meter loss = Meter::average();
  EXPECT_EQ(loss.value(), 0.0);  // nothing yet
  loss.add(3.0, 2);              // e.g. a batch's mean loss 1.5 times its 2 examples
  loss.add(5.0, 2);
  EXPECT_EQ(loss.sum(), 8.0);
  EXPECT_EQ(loss.count(), 4.0);
  EXPECT_EQ(loss.value(), 2.0);
  loss.add(1.0);  // one item
  EXPECT_EQ(loss.value(), 9.0 / 5.0);
}

TEST(Meter, RateIsTheCountPerSecond) {
  Meter speed = Meter::rate();
  speed.addCount(10);
  EXPECT_EQ(speed.value(), 0.0);  // no time yet: no rate
  speed.addSeconds(4);
  EXPECT_EQ(speed.value(), 2.5);
  speed.addCount(2);
  speed.addSeconds(2);
  EXPECT_EQ(speed.value(), 2.0);
}

TEST(Meter, TimeAccumulatesScopedTimingsAndAddedSeconds) {
  Meter wall = Meter::time();
  {
    auto timing = wall.measure();
    waitForClock(Meter::Clock::Wall);
  }
  const double first = wall.seconds();
  EXPECT_GT(first, 0.0);
  wall.addSeconds(1.5);
  EXPECT_EQ(wall.value(), first + 1.5);
  {
    auto timing = wall.measure();
    auto moved = std::move(timing);  // ends once, with `moved`
    waitForClock(Meter::Clock::Wall);
  }
  EXPECT_GT(wall.value(), first + 1.5);

  Meter cpu = Meter::time(Meter::Clock::ProcessCpu);
  {
    auto timing = cpu.measure();
    waitForClock(Meter::Clock::ProcessCpu);
  }
  EXPECT_GT(cpu.value(), 0.0);
}

TEST(Meter, ResetStartsOverAndRestoreTakesAStateBack) {
  Meter loss = Meter::average();
  loss.add(6.0, 3);
  loss.addSeconds(2);
  const Meter::State saved = loss.state();
  loss.reset();
  EXPECT_EQ(loss.sum(), 0.0);
  EXPECT_EQ(loss.count(), 0.0);
  EXPECT_EQ(loss.seconds(), 0.0);
  EXPECT_EQ(loss.value(), 0.0);
  loss.restore(saved);
  EXPECT_EQ(loss.value(), 2.0);
  EXPECT_EQ(loss.seconds(), 2.0);

  Meter epoch_time = Meter::time();
  epoch_time.addSeconds(3);
  epoch_time.reset();
  EXPECT_EQ(epoch_time.value(), 0.0);
}

}  // namespace
}  // namespace recurlab::experiments
