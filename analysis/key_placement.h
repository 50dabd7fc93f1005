#pragma once
// Where a key fits without covering data: the first inside corner of the plot area whose key-sized
// box holds no sample of what the panel draws.
#include <optional>
#include <utility>
#include <vector>

#include "analysis/figure.h"

namespace recurlab::analysis {

// samples: points on everything drawn (line points, points along segments, band edges), in plot
// fractions ([0,1]² = the plot area, y up). key_width, key_height: the key's size in the same
// fractions. Tries top left, top right, bottom right, bottom left, in that order; nullopt when no
// corner is free (or the key is larger than half the plot in either direction).
std::optional<KeyPlacement> emptyCorner(const std::vector<std::pair<double, double>>& samples,
                                        double key_width, double key_height);

}  // namespace recurlab::analysis
