#include "analysis/figure.h"

#include <algorithm>
#include <cmath>

namespace recurlab::analysis {

namespace {
bool drawable(double v, AxisScale scale) {
  return std::isfinite(v) && (scale == AxisScale::Linear || v > 0);
}
}  // namespace

bool Panel::empty() const {
  for (const auto& s : lines)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      if (drawable(s.x[i], x.scale) && drawable(s.y[i], y.scale)) return false;
  for (const auto& b : bars)
    for (double v : b.values)
      if (drawable(v, y.scale)) return false;
  if (heat_map)
    for (const auto& row : heat_map->values)
      if (!row.empty()) return false;
  return true;
}

int gridColumns(size_t panels) {
  if (panels <= 3) return static_cast<int>(panels == 0 ? 1 : panels);
  if (panels == 4) return 2;
  // The fewest empty cells; ties go to the wider grid.
  const size_t empty3 = (3 - panels % 3) % 3, empty4 = (4 - panels % 4) % 4;
  return empty4 <= empty3 ? 4 : 3;
}

int sharedKeyGridHeight(size_t panels) {
  const size_t columns = static_cast<size_t>(gridColumns(panels));
  const int rows = static_cast<int>(std::max<size_t>(1, (panels + columns - 1) / columns));
  return 560 + 300 * (rows - 1);
}

}  // namespace recurlab::analysis
