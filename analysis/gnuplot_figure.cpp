#include "analysis/gnuplot_figure.h"

#include <gnuplot-iostream.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace recurlab::analysis {

namespace {

// gnuplot single-quoted string: no escapes inside, a quote is written twice.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

bool commandWorks(const std::string& cmd) { return std::system(cmd.c_str()) == 0; }

}  // namespace

std::string pngTerminal() {
  static const std::string terminal = [] {
    if (commandWorks("gnuplot -e \"set terminal pngcairo\" >/dev/null 2>&1")) return std::string("pngcairo");
    if (commandWorks("gnuplot -e \"set terminal png\" >/dev/null 2>&1")) return std::string("png");
    return std::string();
  }();
  return terminal;
}

std::string paletteColor(size_t index) {
  static const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                        "#9467bd", "#8c564b", "#e377c2", "#17becf"};
  return std::string("rgb '") + kColors[index % (sizeof kColors / sizeof *kColors)] + "'";
}

void renderFigure(const Figure& figure, const std::string& png_path) {
  const std::string terminal = pngTerminal();
  if (terminal.empty())
    throw std::runtime_error("figure " + png_path + ": gnuplot is not available");
  std::remove(png_path.c_str());
  {
    Gnuplot gp("gnuplot");
    gp << "set terminal " << terminal << " size " << figure.width << "," << figure.height
       << (terminal == "pngcairo" ? " font 'Sans,10'" : "") << " noenhanced\n";
    gp << "set output " << quoted(png_path) << "\n";
    const bool multi = figure.rows * figure.cols > 1 || !figure.title.empty();
    if (multi) {
      gp << "set multiplot layout " << figure.rows << "," << figure.cols;
      if (!figure.title.empty()) gp << " title " << quoted(figure.title);
      gp << "\n";
    }
    for (const auto& panel : figure.panels) {
      gp << "reset\nset grid\n";
      gp << "set title " << quoted(panel.title) << "\n";
      gp << "set xlabel " << quoted(panel.xlabel) << "\nset ylabel " << quoted(panel.ylabel)
         << "\n";
      gp << (panel.key == "off" ? std::string("unset key") : "set key " + panel.key) << "\n";
      gp << (panel.log_y ? "set logscale y\n" : "unset logscale y\n");
      if (panel.x_range)
        gp << "set xrange [" << panel.x_range->first << ":" << panel.x_range->second << "]\n";
      if (panel.y_range)
        gp << "set yrange [" << panel.y_range->first << ":" << panel.y_range->second << "]\n";
      std::vector<std::vector<std::pair<double, double>>> data;
      std::string plot;
      for (const auto& s : panel.series) {
        std::vector<std::pair<double, double>> pts;
        for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
          if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
          if (panel.log_y && s.y[i] <= 0) continue;
          pts.emplace_back(s.x[i], s.y[i]);
        }
        if (pts.empty()) continue;
        plot += std::string(plot.empty() ? "plot " : ", ") + "'-' with " + s.style +
                (s.title.empty() ? " notitle" : " title " + quoted(s.title));
        data.push_back(std::move(pts));
      }
      if (data.empty()) {
        gp << "set label 1 'no data' at graph 0.5, graph 0.5 center\nplot NaN notitle\n";
        continue;
      }
      gp << plot << "\n";
      for (const auto& pts : data) gp.send1d(pts);
    }
    if (multi) gp << "unset multiplot\n";
    gp << "unset output\n";
  }  // closing the pipe waits for gnuplot to finish
  struct stat st;
  if (::stat(png_path.c_str(), &st) != 0 || st.st_size == 0)
    throw std::runtime_error("figure " + png_path + ": gnuplot wrote no image (see its "
                             "messages above)");
}

}  // namespace recurlab::analysis
