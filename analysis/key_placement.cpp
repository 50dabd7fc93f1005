#include "analysis/key_placement.h"

namespace recurlab::analysis {

std::optional<KeyPlacement> emptyCorner(const std::vector<std::pair<double, double>>& samples,
                                        double key_width, double key_height) {
  if (key_width > 0.5 || key_height > 0.6) return std::nullopt;
  // A little air around the key so that it does not touch a curve.
  const double w = key_width + 0.03, h = key_height + 0.04;
  struct Corner {
    KeyPlacement where;
    double x0, x1, y0, y1;
  };
  const Corner corners[] = {{KeyPlacement::TopLeft, 0, w, 1 - h, 1},
                            {KeyPlacement::TopRight, 1 - w, 1, 1 - h, 1},
                            {KeyPlacement::BottomRight, 1 - w, 1, 0, h},
                            {KeyPlacement::BottomLeft, 0, w, 0, h}};
  for (const auto& c : corners) {
    bool free = true;
    for (const auto& [x, y] : samples)
      if (x >= c.x0 && x <= c.x1 && y >= c.y0 && y <= c.y1) {
        free = false;
        break;
      }
    if (free) return c.where;
  }
  return std::nullopt;
}

}  // namespace recurlab::analysis
