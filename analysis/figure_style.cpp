#include "analysis/figure_style.h"

namespace recurlab::analysis::style {

namespace {
// Okabe-Ito without yellow (too light on white paper), blue first; the lightness alternates.
constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                    "#56B4E9", "#CC79A7", "#000000"};
constexpr int kPaletteSize = sizeof kPalette / sizeof *kPalette;
// gnuplot point types: 7 filled circle, 5 filled square, 9 filled triangle, 13 filled diamond,
// 11 filled inverted triangle, then the open shapes 6, 4, 8, 12, 10.
constexpr int kPointTypes[] = {7, 5, 9, 13, 11, 6, 4, 8, 12, 10};
constexpr int kPointTypeCount = sizeof kPointTypes / sizeof *kPointTypes;

int wrap(int index, int n) { return ((index % n) + n) % n; }
}  // namespace

std::string colour(int index) { return kPalette[wrap(index, kPaletteSize)]; }

int pointType(int index) { return kPointTypes[wrap(index, kPointTypeCount)]; }

int dashType(int index, bool dashed) {
  // Past the palette the colours repeat; a dash pattern tells the repeats apart.
  const int cycle = wrap(index, 1000) / kPaletteSize;
  return 1 + (dashed ? 1 : 0) + 2 * cycle;
}

std::string heatMapPalette() {
  // White to dark blue ("Blues"): high attention reads as ink, on paper and in grey.
  return "0 '#f7fbff', 0.25 '#c6dbef', 0.5 '#6baed6', 0.75 '#2171b5', 1 '#08306b'";
}

}  // namespace recurlab::analysis::style
