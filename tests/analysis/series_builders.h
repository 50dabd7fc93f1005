#pragma once
// One-line builders of figure series for the analysis tests.
#include <string>
#include <utility>
#include <vector>

#include "analysis/figure.h"

namespace recurlab::analysis::figure_test {

inline LineSeries line(std::string title, std::vector<double> x, std::vector<double> y,
                       int style = -1) {
  LineSeries s;
  s.title = std::move(title);
  s.x = std::move(x);
  s.y = std::move(y);
  s.style = style;
  return s;
}

inline BarSeries barSeries(std::string title, std::vector<double> values,
                           std::vector<double> errors) {
  BarSeries b;
  b.title = std::move(title);
  b.values = std::move(values);
  b.errors = std::move(errors);
  return b;
}

}  // namespace recurlab::analysis::figure_test
