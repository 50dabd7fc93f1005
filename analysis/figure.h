#pragma once
// What a figure shows, independent of how it is drawn: a grid of panels, each one of three
// kinds (lines with optional seed bands or error bars, grouped bars over categories, a heat map
// with labelled rows and columns). Reports fill these; gnuplot_script.h turns them into a
// gnuplot script and its data file, figure_style.h holds the house style.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace recurlab::analysis {

enum class AxisScale {
  Linear,
  Log10,  // ticks at powers of ten, labelled 10^k
  Log2,   // for sizes that double: ticks at each power of two, labelled 16, 32, 64, ...
};

struct Axis {
  std::string label;  // with its unit, e.g. "time per step (ms)"
  AxisScale scale = AxisScale::Linear;
  bool integer_ticks = false;  // epochs, layers: no tick at 1.5
  std::optional<std::pair<double, double>> range;
};

// Where the key goes. Auto: a single panel puts it in an inside corner that holds no data, else
// outside on the right; a figure with several panels and shared_key draws one key for all of
// them in an empty grid cell or below the grid.
enum class KeyPlacement { Auto, OutsideRight, TopLeft, TopRight, BottomLeft, BottomRight, Off };

// How a series' spread (LineSeries::spread) is drawn.
enum class SpreadStyle { Band, ErrorBars };

struct LineSeries {
  std::string title;  // empty: not in the key
  std::vector<double> x, y;
  std::vector<double> spread;  // empty, or one ± value per point (e.g. standard deviation)
  SpreadStyle spread_style = SpreadStyle::Band;
  // Index into the house palette, point types and dash types; -1: the series' position among
  // the panel's styled series. Series with the same index look the same in every panel.
  int style = -1;
  bool dashed = false;     // a second family beside the solid one (e.g. "alpha on")
  bool reference = false;  // a derived bound or baseline: thin, dark grey, dashed, no points
  bool points = true;
};

// Bars grouped by category: one group of bars per category, one bar per BarSeries.
struct BarSeries {
  std::string title;
  std::vector<double> values;  // one per category; NaN: no bar
  std::vector<double> errors;  // empty, or one ± value per category (error bar)
  int style = -1;
};

struct HeatMap {
  std::vector<std::string> row_labels, column_labels;  // e.g. target and source tokens
  std::vector<std::vector<double>> values;             // [row][column]
  std::string colour_label;                            // colour bar label, e.g. "attention weight"
  std::optional<std::pair<double, double>> colour_range;
  bool show_values = false;  // write each cell's value in it (small maps only)
};

// A horizontal line across a bar panel at a value that reads as a bar's yardstick (e.g. 1× for
// speed ratios: parity), thin, dark grey, dashed, its label in the key.
struct LevelLine {
  double y = 0;
  std::string label;
};

struct Panel {
  std::string title;
  Axis x, y;
  KeyPlacement key = KeyPlacement::Auto;
  // Exactly one kind per panel: lines, bars (with categories) or a heat map.
  std::vector<LineSeries> lines;
  std::vector<std::string> categories;
  std::vector<BarSeries> bars;
  std::vector<LevelLine> levels;  // bar panels only
  std::optional<HeatMap> heat_map;

  bool empty() const;  // nothing drawable (no finite point, no bar, no cell)
};

struct Figure {
  std::string title;   // over the whole figure; papers usually leave it to the caption
  int width = 900;     // PNG pixels; the PDF is the same size at 100 pixels per inch
  int height = 560;
  int columns = 0;     // grid columns; 0: chosen from the panel count (gridColumns)
  bool shared_key = false;  // one key for every panel (series matched by title)
  std::vector<Panel> panels;  // row-major; empty panels are dropped, never drawn blank
};

// Columns for n panels: 1, 2, 3 in one row; 4 as 2×2; more in rows of 3 or 4 with the fewest
// empty cells.
int gridColumns(size_t panels);

// Height in pixels of a figure of n panels in gridColumns(n) columns above one shared key: the
// default 560 for one row of panels, 300 more for each further row.
int sharedKeyGridHeight(size_t panels);

}  // namespace recurlab::analysis
