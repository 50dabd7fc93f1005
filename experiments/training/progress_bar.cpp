#include "experiments/training/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace recurlab::experiments {

ProgressBar::ProgressBar(std::ostream& out, Options options) : out_(out), options_(options) {}

void ProgressBar::start(const std::string& label, int64_t total, const std::string& unit,
                        double now, int64_t first) {
  label_ = label;
  first_ = first;
  unit_ = unit;
  total_ = total;
  started_ = last_shown_ = now;
  drawn_ = 0;
}

void ProgressBar::update(int64_t done, double counted, double now) {
  const double interval =
      options_.terminal ? options_.redraw_seconds : options_.plain_interval_seconds;
  if (now - last_shown_ < interval || done <= first_) return;
  last_shown_ = now;
  const std::string text =
      line(label_, done, total_, counted, unit_, now - started_, options_.width, first_);
  if (options_.terminal) {
    // Spaces over what is left of a longer previous line.
    out_ << '\r' << text << std::string(drawn_ > text.size() ? drawn_ - text.size() : 0, ' ')
         << std::flush;
    drawn_ = text.size();
  } else {
    out_ << text << '\n' << std::flush;
  }
}

void ProgressBar::finish() {
  if (options_.terminal && drawn_ > 0) out_ << '\r' << std::string(drawn_, ' ') << '\r' << std::flush;
  drawn_ = 0;
}

std::string ProgressBar::line(const std::string& label, int64_t done, int64_t total,
                              double counted, const std::string& unit, double elapsed,
                              int width, int64_t first) {
  const double fraction =
      total > 0 ? std::clamp(static_cast<double>(done) / static_cast<double>(total), 0.0, 1.0)
                : 0.0;
  const int filled = static_cast<int>(std::floor(fraction * width));
  std::string text = label + " [" + std::string(static_cast<size_t>(filled), '#') +
                     std::string(static_cast<size_t>(width - filled), '-') + "] " +
                     std::to_string(done) + "/" + std::to_string(total);
  if (elapsed > 0) text += " " + shortNumber(counted / elapsed) + " " + unit + "/s";
  if (done > first && done < total)
    text += " ETA " + duration(elapsed * static_cast<double>(total - done) /
                               static_cast<double>(done - first));
  return text;
}

std::string ProgressBar::shortNumber(double value) {
  char buffer[32];
  if (value < 1000) {
    std::snprintf(buffer, sizeof buffer, value < 10 ? "%.1f" : "%.0f", value);
  } else if (value < 1e6) {
    std::snprintf(buffer, sizeof buffer, "%.1fk", value / 1e3);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1fM", value / 1e6);
  }
  return buffer;
}

std::string ProgressBar::duration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char buffer[32];
  if (s >= 3600) {
    std::snprintf(buffer, sizeof buffer, "%ldh%02ldm", s / 3600, s / 60 % 60);
  } else if (s >= 60) {
    std::snprintf(buffer, sizeof buffer, "%ldm%02lds", s / 60, s % 60);
  } else {
    std::snprintf(buffer, sizeof buffer, "%lds", s);
  }
  return buffer;
}

bool ProgressBar::stderrIsTerminal() { return ::isatty(STDERR_FILENO) == 1; }

}  // namespace recurlab::experiments
