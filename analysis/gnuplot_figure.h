#pragma once
// Figures as PNG through gnuplot (gnuplot-iostream). A Figure is a grid of panels; each panel
// a set of line series. Reports describe what to draw; this file knows gnuplot.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace recurlab::analysis {

struct Series {
  std::string title;  // empty: not in the key
  std::vector<double> x, y;
  // gnuplot's "with" clause, e.g. "linespoints pt 7 lc rgb '#1f77b4'" or "lines dt 2 lc
  // rgb 'black'". Points that are not finite (or not positive on a log axis) are dropped.
  std::string style = "linespoints pt 7 ps 0.6";
};

struct Panel {
  std::string title, xlabel, ylabel;
  bool log_y = false;
  std::optional<std::pair<double, double>> x_range, y_range;
  std::string key = "top right";  // gnuplot "set key ..." arguments; "off" hides it
  std::vector<Series> series;
};

struct Figure {
  std::string title;  // over the whole grid (multiplot)
  int rows = 1, cols = 1;
  int width = 1000, height = 650;  // pixels
  std::vector<Panel> panels;       // row-major, at most rows·cols
};

// "pngcairo" when gnuplot has it, else "png"; "" when gnuplot cannot be run. Probed once.
std::string pngTerminal();

// Writes the figure; throws std::runtime_error (naming the file) when gnuplot is missing or
// produced no image.
void renderFigure(const Figure& figure, const std::string& png_path);

// A colour per index from a fixed palette, as "rgb '#rrggbb'".
std::string paletteColor(size_t index);

}  // namespace recurlab::analysis
