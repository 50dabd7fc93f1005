#pragma once
// Progress inside an epoch: the steps done of all, the rate in the unit the task counts
// (tokens/s, sentences/s, characters/s) and the time left at that pace. On a terminal one line
// redrawn in place ('\r') a few times a second; otherwise (a log file, a pipe, a batch job's
// output) a plain line every `plain_interval_seconds`, so that logs stay readable.
// Times are passed in (seconds on any steady clock), which keeps the class testable.
#include <cstdint>
#include <ostream>
#include <string>

namespace recurlab::experiments {

class ProgressBar {
 public:
  struct Options {
    bool terminal = false;
    double redraw_seconds = 0.25;
    double plain_interval_seconds = 30;
    int width = 20;  // characters of the bar itself
  };

  ProgressBar(std::ostream& out, Options options);

  // A pass of `total` steps (batches) named `label` ("epoch 3"), counting `unit` ("tokens");
  // `first` steps were done before (a resumed epoch): the pace counts the steps from here.
  void start(const std::string& label, int64_t total, const std::string& unit, double now,
             int64_t first = 0);
  // `done` steps finished and `counted` units so far in this pass, at time `now`.
  void update(int64_t done, double counted, double now);
  // Ends the pass: a terminal's line is cleared, so the epoch's summary line takes its place.
  void finish();

  // "epoch 3 [#####---------------] 120/480 5.2k tokens/s ETA 1m05s"
  // `counted` units and done - first steps took `elapsed` seconds.
  static std::string line(const std::string& label, int64_t done, int64_t total,
                          double counted, const std::string& unit, double elapsed, int width,
                          int64_t first = 0);
  // 950 -> "950", 5234 -> "5.2k", 1.5e6 -> "1.5M"; seconds as "12s", "3m05s", "2h07m".
  static std::string shortNumber(double value);
  static std::string duration(double seconds);
  static bool stderrIsTerminal();

 private:
  std::ostream& out_;
  Options options_;
  std::string label_, unit_;
  int64_t total_ = 0, first_ = 0;
  double started_ = 0, last_shown_ = 0;
  size_t drawn_ = 0;  // characters of the line on the terminal now
};

}  // namespace recurlab::experiments
