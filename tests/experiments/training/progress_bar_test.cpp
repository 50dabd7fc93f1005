// The progress bar inside an epoch: its line (bar, steps, rate in the task's unit, time left),
// redrawn in place on a terminal, a plain line at most every interval elsewhere.
#include "experiments/training/progress_bar.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace recurlab::experiments {
namespace {

TEST(ProgressBarTest, LineShowsBarStepsRateAndTimeLeft) {
  // A quarter done after 65/3 s at 5200 tokens/s: 3 quarters left take 65 s.
  const double elapsed = 65.0 / 3;
  EXPECT_EQ(ProgressBar::line("epoch 3", 120, 480, 5200 * elapsed, "tokens", elapsed, 20),
            "epoch 3 [#####---------------] 120/480 5.2k tokens/s ETA 1m05s");
  EXPECT_EQ(ProgressBar::line("epoch 1", 10, 10, 30, "sentences", 2, 4),
            "epoch 1 [####] 10/10 15 sentences/s");
  // Resumed at step 100 of 400: 20 steps in 10 s, so 280 more take 140 s.
  EXPECT_EQ(ProgressBar::line("epoch 2", 120, 400, 1000, "tokens", 10, 4, 100),
            "epoch 2 [#---] 120/400 100 tokens/s ETA 2m20s");
}

TEST(ProgressBarTest, NumbersAndDurationsAreShort) {
  EXPECT_EQ(ProgressBar::shortNumber(3.25), "3.2");
  EXPECT_EQ(ProgressBar::shortNumber(950), "950");
  EXPECT_EQ(ProgressBar::shortNumber(5234), "5.2k");
  EXPECT_EQ(ProgressBar::shortNumber(1.5e6), "1.5M");
  EXPECT_EQ(ProgressBar::duration(12.4), "12s");
  EXPECT_EQ(ProgressBar::duration(185), "3m05s");
  EXPECT_EQ(ProgressBar::duration(7620), "2h07m");
}

TEST(ProgressBarTest, NotATerminalGetsAPlainLineEveryInterval) {
  std::ostringstream out;
  ProgressBar bar(out, {false, 0.25, 30, 10});
  bar.start("epoch 2", 100, "characters", 0);
  for (double t : {1.0, 10.0, 31.0, 45.0, 62.0}) bar.update(static_cast<int64_t>(t), t * 100, t);
  bar.finish();
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_NE(text.find("epoch 2 [###-------] 31/100 100 characters/s ETA 1m09s\n"),
            std::string::npos)
      << text;
}

TEST(ProgressBarTest, ATerminalLineIsRedrawnInPlaceAndClearedAtTheEnd) {
  std::ostringstream out;
  ProgressBar bar(out, {true, 0.25, 30, 10});
  bar.start("epoch 1", 4, "tokens", 0);
  bar.update(1, 10, 0.1);  // too soon after the start: not drawn
  bar.update(2, 20, 1.0);
  bar.update(3, 30, 2.0);
  bar.finish();
  const std::string text = out.str();
  EXPECT_EQ(text.find('\n'), std::string::npos) << "no new lines on a terminal";
  EXPECT_EQ(std::count(text.begin(), text.end(), '\r'), 4) << "two redraws, then the clearing";
  EXPECT_NE(text.find("\repoch 1 [#######---] 3/4 15 tokens/s ETA 1s"), std::string::npos)
      << text;
  EXPECT_EQ(text.back(), '\r');
}

}  // namespace
}  // namespace recurlab::experiments
