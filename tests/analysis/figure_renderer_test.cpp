#include "analysis/figure_renderer.h"

#include <gtest/gtest.h>

#include <cmath>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <thread>

#include "tests/analysis/series_builders.h"
#include "tests/support/required.h"
#include "tests/support/temp_root.h"

namespace recurlab::analysis {
namespace {

namespace fs = std::filesystem;
using recurlab::testing::TempRoot;

using figure_test::barSeries;
using figure_test::line;

std::string head(const std::string& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string s(n, '\0');
  in.read(&s[0], static_cast<std::streamsize>(n));
  s.resize(static_cast<size_t>(in.gcount()));
  return s;
}

Figure bandFigure() {
  Figure f;
  f.shared_key = true;
  for (const char* name : {"MR", "SUBJ", "TREC"}) {
    Panel p;
    p.title = name;
    p.x.label = "epoch";
    p.x.integer_ticks = true;
    p.y.label = "dev accuracy (%)";
    LineSeries s = line("sru_2", {1, 2, 3}, {70, 75, 77});
    s.spread = {2, 1.5, 1};
    LineSeries l = line("lstm", {1, 2, 3}, {68, 74, 78});
    l.spread = {1, 1, 0.5};
    p.lines = {s, l};
    f.panels.push_back(p);
  }
  return f;
}

Figure barFigure() {
  Figure f;
  Panel p;
  p.categories = {"MR", "CR", "SST-2"};
  p.y.label = "time per epoch (s)";
  p.bars.push_back(barSeries("sru", {1.2, 0.5, 2.0}, {0.1, 0.05, 0.2}));
  p.bars.push_back(barSeries("lstm", {4.0, 1.5, 6.5}, {0.3, 0.1, 0.4}));
  f.panels.push_back(p);
  return f;
}

Figure heatMapFigure() {
  Figure f;
  f.width = 520;
  f.height = 460;
  Panel p;
  p.title = "decoder layer 1";
  p.x.label = "source";
  p.y.label = "target";
  HeatMap h;
  h.column_labels = {"a", "man", "rides", "a_bike", "</s>"};
  h.row_labels = {"ein", "Mann", "fährt", "Rad", "</s>"};
  for (size_t r = 0; r < 5; ++r) {
    std::vector<double> row(5, 0.05);
    row[r] = 0.8;
    h.values.push_back(row);
  }
  h.colour_label = "attention weight";
  h.colour_range = std::make_pair(0.0, 1.0);
  h.show_values = true;
  p.heat_map = h;
  f.panels.push_back(p);
  return f;
}

Figure logFigure() {
  Panel p;
  p.x.label = "sequence length l";
  p.x.scale = AxisScale::Log2;
  p.y.label = "time (ms)";
  p.y.scale = AxisScale::Log10;
  p.lines.push_back(line("sru", {16, 32, 64, 128}, {0.02, 0.04, 0.09, 0.2}));
  p.lines.push_back(line("lstm", {16, 32, 64, 128}, {0.5, 1.1, 2.0, 4.5}));
  Figure f;
  f.panels.push_back(p);
  return f;
}

class FigureRendering : public ::testing::Test {
 protected:
  void SetUp() override {
    RECURLAB_REQUIRE_OR_SKIP(figureFormats().empty() ? "gnuplot is not installed" : "");
  }
};

TEST_F(FigureRendering, EveryKindWritesPngVectorScriptAndData) {
  TempRoot dir;
  const std::pair<const char*, Figure> figures[] = {
      {"band", bandFigure()}, {"bars", barFigure()}, {"heat", heatMapFigure()}, {"log", logFigure()}};
  const std::string vector_ext = figureFormats().back().extension;
  for (const auto& [stem, figure] : figures) {
    const auto drawn = renderFigure(figure, dir.path().string(), stem);
    EXPECT_EQ(drawn.messages, "") << stem << ": gnuplot complained";
    ASSERT_EQ(drawn.files.size(), 4u) << stem;
    for (const auto& f : drawn.files) EXPECT_GT(fs::file_size(f), 0u) << f;
    const std::string png = dir.file(std::string(stem) + ".png");
    EXPECT_EQ(head(png, 8), "\x89PNG\r\n\x1a\n") << png;
    const std::string vec = dir.file(std::string(stem) + "." + vector_ext);
    EXPECT_EQ(head(vec, vector_ext == "pdf" ? 4 : 5), vector_ext == "pdf" ? "%PDF" : "<?xml") << vec;
    EXPECT_TRUE(fs::exists(dir.file(std::string(stem) + ".gp")));
    EXPECT_TRUE(fs::exists(dir.file(std::string(stem) + ".dat")));
  }
  // The script beside the figure redraws it on its own, in its folder.
  fs::remove(dir.file("band.png"));
  const std::string cmd = "cd '" + dir.path().string() + "' && " + gnuplotCommand() + " band.gp";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_GT(fs::file_size(dir.file("band.png")), 0u);
}

std::string fileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST_F(FigureRendering, DrawnAgainWithTheRunsDateTheFilesAreTheSameBytes) {
  RECURLAB_REQUIRE_OR_SKIP(figureFormats().back().extension != "pdf" ? "gnuplot has no pdfcairo terminal" : "");
  // Two folders by name: two default TempRoots of one test are the same folder, and the
  // comparison below would read each file against itself.
  TempRoot first("recurlab_figure_first"), second("recurlab_figure_second");
  ASSERT_NE(first.path(), second.path());
  renderFigure(logFigure(), first.path().string(), "curve", "2026-11-24T19:59:37Z");
  // A wait on the wall clock is what is tested here: cairo stamps the wall clock, to the
  // second, into the PDF, and the run's date must replace it. So the second copy is drawn in a
  // later second than any stamp of the first: the wait lasts until the next whole second
  // (under 1 s), not a fixed time.
  const auto first_drawn = std::chrono::system_clock::now();
  std::this_thread::sleep_until(std::chrono::floor<std::chrono::seconds>(first_drawn) +
                                std::chrono::seconds(1));
  renderFigure(logFigure(), second.path().string(), "curve", "2026-11-24T19:59:37Z");
  for (const char* file : {"curve.pdf", "curve.png", "curve.gp", "curve.dat"})
    EXPECT_EQ(fileBytes(first.file(file)), fileBytes(second.file(file))) << file;
  EXPECT_NE(fileBytes(first.file("curve.pdf")).find("/CreationDate (D:20261124195937"),
            std::string::npos);
}

TEST(PdfCreationDate, TheFourteenDigitsAreReplacedInPlaceOrNothingChanges) {
  TempRoot dir;
  const std::string pdf = dir.file("a.pdf");
  std::ofstream(pdf, std::ios::binary) << "%PDF-1.5\n<< /CreationDate (D:20200101000000Z) >>\n";
  EXPECT_TRUE(stampPdfCreationDate(pdf, "2026-11-24T19:59:37Z"));
  EXPECT_EQ(fileBytes(pdf), "%PDF-1.5\n<< /CreationDate (D:20261124195937Z) >>\n");
  EXPECT_FALSE(stampPdfCreationDate(pdf, "yesterday"));
  EXPECT_FALSE(stampPdfCreationDate(pdf, ""));
  EXPECT_EQ(fileBytes(pdf), "%PDF-1.5\n<< /CreationDate (D:20261124195937Z) >>\n");
  const std::string plain = dir.file("b.pdf");
  std::ofstream(plain, std::ios::binary) << "%PDF-1.5\n<< /Producer (x) >>\n";
  EXPECT_FALSE(stampPdfCreationDate(plain, "2026-11-24T19:59:37Z"));
  EXPECT_FALSE(stampPdfCreationDate(dir.file("missing.pdf"), "2026-11-24T19:59:37Z"));
}

TEST(FigureRenderingWithoutGnuplot, ErrorNamesTheFigureFile) {
  TempRoot dir;
  ::setenv("RECURLAB_GNUPLOT", "/nonexistent/gnuplot", 1);
  try {
    renderFigure(barFigure(), dir.path().string(), "time_per_epoch");
    ::unsetenv("RECURLAB_GNUPLOT");
    FAIL() << "rendering without gnuplot must fail";
  } catch (const std::runtime_error& e) {
    ::unsetenv("RECURLAB_GNUPLOT");
    const std::string what = e.what();
    EXPECT_NE(what.find(dir.file("time_per_epoch.png")), std::string::npos) << what;
    EXPECT_NE(what.find("cannot be run"), std::string::npos) << what;
    EXPECT_TRUE(fs::exists(dir.file("time_per_epoch.gp"))) << "the script is written all the same";
    EXPECT_TRUE(fs::exists(dir.file("time_per_epoch.dat")));
    EXPECT_FALSE(fs::exists(dir.file("time_per_epoch.png")));
  }
}

}  // namespace
}  // namespace recurlab::analysis
