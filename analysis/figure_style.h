#pragma once
// The house style of every figure, in one place: fonts, line widths, the palette, point and dash
// types, the heat-map colour map. The palette is Okabe and Ito's (2008) colour-blind-safe set,
// ordered so that neighbours differ in lightness; point and dash types change with the index too,
// so series stay apart in grey-scale print.
#include <string>

namespace recurlab::analysis::style {

inline constexpr const char* kFont = "Sans";
inline constexpr int kFontSize = 11;       // tick labels, key
inline constexpr int kTitleFontSize = 12;  // panel titles
inline constexpr double kLineWidth = 2.0;
inline constexpr double kReferenceLineWidth = 1.5;
inline constexpr double kPointSize = 0.8;
inline constexpr double kBandOpacity = 0.22;
// PDF size = PNG pixels / this: pngcairo draws a point as 4/3 pixel (96 dpi), so the PDF keeps
// the PNG's proportions of text to plot.
inline constexpr double kPixelsPerInch = 96;
inline constexpr const char* kReferenceColour = "#444444";
inline constexpr const char* kGridColour = "#d9d9d9";

// "#rrggbb" for a style index (wraps around).
std::string colour(int index);
// gnuplot point type (filled and open shapes alternating) and dash type for a style index.
int pointType(int index);
int dashType(int index, bool dashed);
// gnuplot "set palette defined (...)" arguments: a sequential map from white to dark blue,
// monotone in lightness so that it prints in grey and reads with any colour vision.
std::string heatMapPalette();

}  // namespace recurlab::analysis::style
