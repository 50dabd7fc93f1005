#include "analysis/gnuplot_script.h"

#include <gtest/gtest.h>

#include <cmath>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/key_placement.h"
#include "tests/analysis/series_builders.h"
#include "tests/support/figure_data.h"

namespace recurlab::analysis {
namespace {

using figure_test::barSeries;
using figure_test::line;
using recurlab::testing::dataBlock;

const std::vector<OutputFormat> kFormats = {{"png", "pngcairo"}, {"pdf", "pdfcairo"}};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

Figure oneLinePanel(LineSeries s, Axis x = {}, Axis y = {}) {
  Figure f;
  Panel p;
  p.x = x;
  p.y = y;
  p.lines.push_back(std::move(s));
  f.panels.push_back(p);
  return f;
}

TEST(GnuplotScript, CategoryFigureDrawsBarsWithTheCategoryNamesAsTickLabels) {
  Figure f;
  Panel p;
  p.categories = {"MR", "SST-2", "TREC"};
  p.bars.push_back(barSeries("sru", {1.0, 2.0, 3.0}, {0.1, 0.2, 0.3}));
  p.bars.push_back(barSeries("lstm", {4.0, NAN, 6.0}, {}));
  f.panels.push_back(p);
  const auto g = gnuplotScript(f, "bars", kFormats);
  EXPECT_TRUE(contains(g.script, "set xtics ('MR' 0, 'SST-2' 1, 'TREC' 2)")) << g.script;
  EXPECT_EQ(count(g.script, "with boxes"), 2u) << g.script;
  EXPECT_EQ(count(g.script, "with vectors heads"), 1u) << g.script;  // only sru has errors
  EXPECT_TRUE(contains(g.script, "using ($1-0.2):($3-$4):(0):(2*$4) with vectors")) << g.script;
  // Bars sit side by side around each category: offsets ±0.2 for two series.
  EXPECT_TRUE(contains(g.script, "using ($1-0.2):3 with boxes")) << g.script;
  EXPECT_TRUE(contains(g.script, "using ($1+0.2):5 with boxes")) << g.script;
  const auto rows = dataBlock(g.data, 0);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], "0 \"MR\" 1 0.1 4 NaN");
  EXPECT_EQ(rows[1], "1 \"SST-2\" 2 0.2 NaN NaN");
  // A bar chart's key goes outside, on the right of the plot.
  EXPECT_TRUE(contains(g.script, "left top vertical")) << g.script;
}

TEST(GnuplotScript, LogAxisUsesExponentNotationOverWholeDecades) {
  LineSeries s = line("ratio", {1, 2, 3}, {3e-8, 1e-3, 0.5});
  Axis y;
  y.scale = AxisScale::Log10;
  const auto g = gnuplotScript(oneLinePanel(s, {}, y), "log", kFormats);
  EXPECT_TRUE(contains(g.script, "set logscale y 10")) << g.script;
  EXPECT_TRUE(contains(g.script, "set format y '10^{%L}'")) << g.script;
  EXPECT_TRUE(contains(g.script, "set ytics 10\n")) << g.script;
  EXPECT_FALSE(contains(g.script, "0.00000001"));
  // Data within one decade: the range widens to two powers of ten, so two ticks carry labels.
  const auto g1 = gnuplotScript(oneLinePanel(line("narrow", {1, 2}, {0.3, 0.5}), {}, y), "narrow",
                                kFormats);
  EXPECT_TRUE(contains(g1.script, "set yrange [0.1:1]")) << g1.script;
  // Points that cannot sit on a log axis are dropped from the data, not drawn at 0.
  LineSeries with_zero = line("z", {1, 2}, {0.0, 2.0});
  const auto g2 = gnuplotScript(oneLinePanel(with_zero, {}, y), "log0", kFormats);
  EXPECT_EQ(dataBlock(g2.data, 0).size(), 1u);
}

TEST(GnuplotScript, Log2AxisTicksEveryDoubling) {
  LineSeries s = line("sru", {16, 32, 64, 128, 256}, {1, 2, 4, 8, 16});
  Axis x;
  x.scale = AxisScale::Log2;
  const auto g = gnuplotScript(oneLinePanel(s, x), "log2", kFormats);
  EXPECT_TRUE(contains(g.script, "set logscale x 2")) << g.script;
  EXPECT_TRUE(contains(g.script, "set xtics ('16' 16, '32' 32, '64' 64, '128' 128, '256' 256)"))
      << g.script;
}

TEST(GnuplotScript, Log2AxisOverManyDoublingsLabelsEveryOtherPowerInKilo) {
  // State sizes from 128 to 65536: ten powers, at most six labels, those from 1024 up as 1k, 2k, ...
  LineSeries s = line("gla", {128, 1024, 65536}, {10, 20, 30});
  Axis x;
  x.scale = AxisScale::Log2;
  const auto g = gnuplotScript(oneLinePanel(s, x), "log2wide", kFormats);
  EXPECT_TRUE(contains(g.script, "set xtics ('128' 128, '512' 512, '2k' 2048, '8k' 8192, '32k' 32768)"))
      << g.script;
}

TEST(GnuplotScript, EpochAxisHasIntegerTicksOnly) {
  Axis x;
  x.integer_ticks = true;
  const auto g = gnuplotScript(oneLinePanel(line("a", {1, 2, 3}, {0.5, 0.6, 0.7}), x), "epochs", kFormats);
  EXPECT_TRUE(contains(g.script, "set xtics 1, 1\n")) << g.script;
  EXPECT_TRUE(contains(g.script, "set format x '%.0f'")) << g.script;
  std::vector<double> xs, ys;
  for (int e = 1; e <= 60; ++e) {
    xs.push_back(e);
    ys.push_back(e);
  }
  const auto g2 = gnuplotScript(oneLinePanel(line("a", xs, ys), x), "epochs60", kFormats);
  EXPECT_TRUE(contains(g2.script, "set xtics 0, 10\n")) << g2.script;
}

TEST(GnuplotScript, KeyGoesToACornerWithoutData) {
  // A rising line leaves the top-left corner empty.
  const auto g = gnuplotScript(oneLinePanel(line("rising", {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4})), "k",
                               kFormats);
  EXPECT_TRUE(contains(g.script, "set key inside left top")) << g.script;
  // A falling line: top-left is taken, top right is empty.
  const auto g2 = gnuplotScript(oneLinePanel(line("falling", {0, 1, 2, 3, 4}, {4, 3, 2, 1, 0})), "k",
                                kFormats);
  EXPECT_TRUE(contains(g2.script, "set key inside right top")) << g2.script;
}

TEST(GnuplotScript, KeyGoesOutsideWhenEveryCornerHoldsData) {
  Figure f;
  Panel p;
  // Two diagonals cross every corner.
  p.lines.push_back(line("up", {0, 4}, {0, 4}));
  p.lines.push_back(line("down", {0, 4}, {4, 0}));
  f.panels.push_back(p);
  const auto g = gnuplotScript(f, "outside", kFormats);
  EXPECT_FALSE(contains(g.script, "set key inside")) << g.script;
  EXPECT_TRUE(contains(g.script, "left top vertical")) << g.script;  // at screen, right of the plot
}

TEST(KeyPlacement, FindsTheFirstEmptyCorner) {
  EXPECT_EQ(emptyCorner({}, 0.2, 0.2), KeyPlacement::TopLeft);
  EXPECT_EQ(emptyCorner({{0.1, 0.9}}, 0.2, 0.2), KeyPlacement::TopRight);
  EXPECT_EQ(emptyCorner({{0.1, 0.9}, {0.9, 0.9}}, 0.2, 0.2), KeyPlacement::BottomRight);
  EXPECT_EQ(emptyCorner({{0.1, 0.9}, {0.9, 0.9}, {0.9, 0.1}}, 0.2, 0.2), KeyPlacement::BottomLeft);
  EXPECT_EQ(emptyCorner({{0.1, 0.9}, {0.9, 0.9}, {0.9, 0.1}, {0.1, 0.1}}, 0.2, 0.2), std::nullopt);
  EXPECT_EQ(emptyCorner({}, 0.7, 0.2), std::nullopt);  // wider than half the plot
}

TEST(GnuplotScript, BandDrawsMeanAndSpreadFromTheGivenNumbers) {
  LineSeries s = line("sru", {1, 2}, {80, 85});
  s.spread = {1.5, 0.25};
  const auto g = gnuplotScript(oneLinePanel(s), "band", kFormats);
  const auto rows = dataBlock(g.data, 0);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], "1 80 78.5 81.5");
  EXPECT_EQ(rows[1], "2 85 84.75 85.25");
  EXPECT_TRUE(contains(g.script, "data index 0 using 1:3:4 with filledcurves")) << g.script;
  EXPECT_TRUE(contains(g.script, "data index 0 using 1:2 with linespoints")) << g.script;
  // The band is drawn first, under the line.
  EXPECT_LT(g.script.find("filledcurves"), g.script.find("using 1:2 with linespoints"));
  s.spread_style = SpreadStyle::ErrorBars;
  const auto g2 = gnuplotScript(oneLinePanel(s), "bars", kFormats);
  EXPECT_TRUE(contains(g2.script, "using 1:2:3:4 with yerrorlines")) << g2.script;
  EXPECT_FALSE(contains(g2.script, "filledcurves"));
}

TEST(GnuplotScript, HeatMapHasOneCellPerRowAndColumnWithTheTokensAsLabels) {
  Figure f;
  Panel p;
  HeatMap h;
  h.row_labels = {"Das", "ist", "gut"};
  h.column_labels = {"this", "is", "good", "</s>"};
  h.values = {{0.7, 0.1, 0.1, 0.1}, {0.1, 0.8, 0.05, 0.05}, {0.0, 0.1, 0.85, 0.05}};
  h.colour_label = "attention weight";
  h.colour_range = std::make_pair(0.0, 1.0);
  p.heat_map = h;
  f.panels.push_back(p);
  const auto g = gnuplotScript(f, "attention", kFormats);
  const auto cells = dataBlock(g.data, 0);
  ASSERT_EQ(cells.size(), 12u);
  EXPECT_EQ(cells[0], "0 0 0.7");
  EXPECT_EQ(cells[6], "2 1 0.05");  // column 2, row 1
  EXPECT_EQ(cells[11], "3 2 0.05");
  EXPECT_TRUE(contains(g.script, "set xtics ('this' 0, 'is' 1, 'good' 2, '</s>' 3)")) << g.script;
  EXPECT_TRUE(contains(g.script, "set ytics ('Das' 0, 'ist' 1, 'gut' 2)")) << g.script;
  EXPECT_TRUE(contains(g.script, "with image")) << g.script;
  EXPECT_TRUE(contains(g.script, "set cblabel 'attention weight'")) << g.script;
  EXPECT_TRUE(contains(g.script, "set cbrange [0:1]")) << g.script;
  EXPECT_TRUE(contains(g.script, "set yrange [2.5:-0.5]")) << g.script;  // first row on top
  h.values[1].pop_back();
  f.panels[0].heat_map = h;
  try {
    gnuplotScript(f, "attention", kFormats);
    FAIL() << "a ragged heat map must be rejected";
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(contains(e.what(), "figure attention")) << e.what();
    EXPECT_TRUE(contains(e.what(), "row 1 has 3 values but 4 column labels")) << e.what();
  }
}

TEST(GnuplotScript, SharedKeySitsInTheEmptyCellOrBelowTheGrid) {
  Figure f;
  f.shared_key = true;
  for (int i = 0; i < 5; ++i) {
    Panel p;
    p.title = "panel " + std::to_string(i);
    p.lines.push_back(line("sru", {1, 2}, {1, 2}, 0));
    p.lines.push_back(line("lstm", {1, 2}, {2, 1}, 1));
    f.panels.push_back(p);
  }
  const auto g = gnuplotScript(f, "five", kFormats);  // 2 x 3 grid, one cell empty
  EXPECT_EQ(count(g.script, "keyentry"), 2u) << g.script;
  EXPECT_EQ(count(g.script, "unset key"), 5u) << g.script;  // the key is a plot of its own
  EXPECT_TRUE(contains(g.script, "center center vertical")) << g.script;
  EXPECT_FALSE(contains(g.script, " title 'sru'\n")) << "series are drawn untitled";
  f.panels.pop_back();
  f.panels.pop_back();  // 3 panels: one full row, so the key goes below
  const auto g2 = gnuplotScript(f, "three", kFormats);
  EXPECT_TRUE(contains(g2.script, "center center horizontal")) << g2.script;
}

// The key is a plot of its own after a reset: its bar samples need the panels' fill again.
TEST(GnuplotScript, ASharedKeyFillsItsBarSamplesAsTheBars) {
  Figure f;
  f.shared_key = true;
  Panel p;
  p.categories = {"lm", "mt"};
  BarSeries a, b;
  a.title = "config 1";
  a.values = {1, 2};
  b.title = "config 2";
  b.values = {2, 1};
  p.bars = {a, b};
  f.panels = {p, p};
  const auto g = gnuplotScript(f, "bars", kFormats);
  const auto key = g.script.find("# the key shared by every panel");
  ASSERT_NE(key, std::string::npos) << g.script;
  const auto fill = g.script.find("set style fill solid", key);
  const auto entry = g.script.find("keyentry with boxes", key);
  ASSERT_NE(entry, std::string::npos) << g.script;
  EXPECT_LT(fill, entry) << g.script;
}

TEST(GnuplotScript, EmptyPanelsAreNotDrawn) {
  Figure f;
  Panel full, empty;
  full.title = "has data";
  full.lines.push_back(line("a", {1, 2}, {1, 2}));
  empty.title = "no data";
  empty.lines.push_back(line("b", {1}, {NAN}));
  f.panels = {full, empty};
  const auto g = gnuplotScript(f, "one", kFormats);
  EXPECT_EQ(count(g.script, "# panel "), 1u);
  EXPECT_FALSE(contains(g.script, "no data"));
  f.panels = {empty};
  try {
    gnuplotScript(f, "nothing", kFormats);
    FAIL() << "a figure with nothing to draw must be rejected";
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(contains(e.what(), "figure nothing")) << e.what();
  }
}

TEST(GnuplotScript, ScriptWritesEveryFormatFromItsDataFile) {
  const auto g = gnuplotScript(oneLinePanel(line("a", {1, 2}, {1, 2})), "fig", kFormats);
  EXPECT_TRUE(contains(g.script, "data = 'fig.dat'")) << g.script;
  EXPECT_TRUE(contains(g.script, "do for [format in \"png pdf\"]")) << g.script;
  EXPECT_TRUE(contains(g.script, "set terminal pngcairo size 900,560")) << g.script;
  EXPECT_TRUE(contains(g.script, "set terminal pdfcairo size 9.375in,5.833333333in")) << g.script;
  EXPECT_TRUE(contains(g.script, "set output 'fig.'.format")) << g.script;
}

TEST(GnuplotScript, ALevelLineCrossesABarPanelAndTheRangeReachesIt) {
  Figure f;
  Panel p;
  p.categories = {"lm", "mt"};
  p.bars.push_back(barSeries("1 thread", {0.5, 0.8}, {}));
  p.levels.push_back({1.0, "1× = parity"});
  f.panels.push_back(p);
  const auto g = gnuplotScript(f, "ratios", kFormats);
  EXPECT_TRUE(contains(g.script, "set arrow from graph 0, first 1 to graph 1, first 1 nohead"))
      << g.script;
  EXPECT_TRUE(contains(g.script, "keyentry with lines lw 1.5 dt 2 lc rgb '#444444' title '1× = parity'"))
      << g.script;
  // Every bar is below 1, yet the y range goes above the line.
  const auto at = g.script.find("set yrange [");
  ASSERT_NE(at, std::string::npos) << g.script;
  const double top = std::stod(g.script.substr(g.script.find(':', at) + 1));
  EXPECT_GT(top, 1.0) << g.script;
  // Only bar panels take level lines.
  Figure lines = oneLinePanel(line("a", {1, 2}, {1, 2}));
  lines.panels[0].levels.push_back({1.0, "x"});
  EXPECT_THROW(gnuplotScript(lines, "bad", kFormats), std::invalid_argument);
}

TEST(GnuplotScript, MismatchedSeriesNameTheFigureAndSeries) {
  try {
    gnuplotScript(oneLinePanel(line("short", {1, 2, 3}, {1, 2})), "bad", kFormats);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(contains(e.what(), "figure bad, panel 1, series 'short': 3 x values but 2 y values"))
        << e.what();
  }
}

TEST(Figure, GridColumnsLeaveFewEmptyCells) {
  EXPECT_EQ(gridColumns(1), 1);
  EXPECT_EQ(gridColumns(3), 3);
  EXPECT_EQ(gridColumns(4), 2);
  EXPECT_EQ(gridColumns(5), 3);
  EXPECT_EQ(gridColumns(6), 3);
  EXPECT_EQ(gridColumns(7), 4);
  EXPECT_EQ(gridColumns(8), 4);
}

// One row of panels (1-3, or none) keeps the default height; each further row adds 300 pixels.
TEST(Figure, SharedKeyGridGrowsByARowOfPanels) {
  EXPECT_EQ(sharedKeyGridHeight(0), 560);
  EXPECT_EQ(sharedKeyGridHeight(3), 560);
  EXPECT_EQ(sharedKeyGridHeight(4), 860);   // 2 x 2
  EXPECT_EQ(sharedKeyGridHeight(9), 1160);  // 3 x 3
}

}  // namespace
}  // namespace recurlab::analysis
