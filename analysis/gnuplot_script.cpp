#include "analysis/gnuplot_script.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "analysis/figure_style.h"
#include "analysis/key_placement.h"

namespace recurlab::analysis {

namespace {

// Approximate text metrics of the house font at kFontSize, in PNG pixels; used to reserve room
// for labels and keys.
constexpr double kCharWidth = 8;
constexpr double kKeyLineHeight = 18;
constexpr double kKeySampleWidth = 68;
constexpr int kMaxLog2Ticks = 6;

// gnuplot single-quoted string: no escapes inside, a quote is written twice.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// Data-file string column: double-quoted, inner quotes dropped.
std::string dataString(const std::string& s) {
  std::string out = "\"";
  for (char c : s)
    if (c != '"' && c != '\n') out += c;
  return out + "\"";
}

std::string num(double v) {
  if (std::isnan(v)) return "NaN";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

size_t utf8Length(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

bool isLog(AxisScale s) { return s != AxisScale::Linear; }

bool usable(double v, AxisScale s) { return std::isfinite(v) && (!isLog(s) || v > 0); }

struct Range {
  double lo = 0, hi = 1;
};

double unit(double v, AxisScale s, const Range& r) {
  if (isLog(s)) return (std::log(v) - std::log(r.lo)) / (std::log(r.hi) - std::log(r.lo));
  return (v - r.lo) / (r.hi - r.lo);
}

// The axis range for data in [lo, hi]: log10 axes widen to whole decades (so at least two
// labelled ticks), log2 axes pad by a fifth of a doubling, integer axes by a third of a step,
// other y axes by 5% (x axes span the data exactly).
Range axisRange(const Axis& axis, double lo, double hi, bool is_y) {
  if (axis.range) return {axis.range->first, axis.range->second};
  if (!(lo <= hi)) return {0, 1};
  switch (axis.scale) {
    case AxisScale::Log10: {
      // A little air so that no point sits on the frame; at least two powers of ten inside, so
      // that two ticks are labelled 10^k.
      const double pad = std::pow(10.0, 0.06);
      Range r{lo / pad, hi * pad};
      const auto powers = [&] {
        return std::floor(std::log10(r.hi) + 1e-9) - std::ceil(std::log10(r.lo) - 1e-9) + 1;
      };
      if (powers() < 2) r.lo = std::pow(10.0, std::floor(std::log10(r.lo)));
      if (powers() < 2) r.hi = std::pow(10.0, std::ceil(std::log10(r.hi)));
      return r;
    }
    case AxisScale::Log2: {
      const double pad = std::pow(2.0, 0.2);
      return {lo / pad, hi * pad};
    }
    case AxisScale::Linear:
      break;
  }
  if (hi == lo) return {lo - 0.5, hi + 0.5};
  const double span = hi - lo;
  if (axis.integer_ticks) {
    const double pad = span <= 10 ? 0.3 : 0.02 * span;
    return {lo - pad, hi + pad};
  }
  if (is_y) return {lo - 0.05 * span, hi + 0.05 * span};
  return {lo, hi};
}

// Tick commands for one axis ("x" or "y").
std::string axisCommands(const std::string& name, const Axis& axis, const Range& r) {
  std::ostringstream s;
  s << "set " << name << "range [" << num(r.lo) << ":" << num(r.hi) << "]\n";
  switch (axis.scale) {
    case AxisScale::Log10: {
      const int decades = static_cast<int>(std::floor(std::log10(r.hi / r.lo)));
      const int every = std::max(1, (decades + 7) / 8);
      s << "set logscale " << name << " 10\n"
        << "set format " << name << " '10^{%L}'\n"
        << "set " << name << "tics " << num(std::pow(10.0, every)) << "\n"
        << "set m" << name << "tics " << (every == 1 ? 10 : every) << "\n";
      break;
    }
    case AxisScale::Log2: {
      // At most kMaxLog2Ticks labels, so that a panel a third of the figure wide spanning 128
      // to 65536 does not run them together; 1024 and above written 1k, 2k, ...
      const double first = std::ceil(std::log2(r.lo) - 1e-9), last = std::floor(std::log2(r.hi) + 1e-9);
      const int powers = static_cast<int>(last - first) + 1;
      const int every = std::max(1, (powers + kMaxLog2Ticks - 1) / kMaxLog2Ticks);
      s << "set logscale " << name << " 2\nset " << name << "tics (";
      for (int k = 0; k < powers; k += every) {
        const double t = std::pow(2.0, first + k);
        const std::string label = t >= 1024 ? num(t / 1024) + "k" : num(t);  // powers of two
        s << (k == 0 ? "" : ", ") << quoted(label) << " " << num(t);
      }
      s << ")\nunset m" << name << "tics\n";
      break;
    }
    case AxisScale::Linear:
      if (axis.integer_ticks) {
        const double span = r.hi - r.lo;
        double step = 1;
        for (double base = 1; span / step > 10; base *= 10)
          for (double m : {1.0, 2.0, 5.0, 10.0})
            if (span / step > 10) step = m * base;
        // + 0.0 turns a -0 start into 0.
        s << "set " << name << "tics " << num(std::ceil(r.lo / step) * step + 0.0) << ", " << num(step)
          << "\nset format " << name << " '%.0f'\n";
      } else {
        s << "set format " << name << " '% h'\n";
      }
      break;
  }
  return s.str();
}

// Pixel margins of a panel inside its cell.
struct Margins {
  double left = 80, right = 20, bottom = 62, top = 14;
};

struct KeyEntry {
  std::string title, style;  // style: a gnuplot "with ..." clause
  bool reference = false;    // listed after the data series
};

// Everything decided about one panel before it is written.
struct PanelPlan {
  const Panel* panel = nullptr;
  Range x, y;
  Range colour;  // heat maps
  KeyPlacement key = KeyPlacement::Off;
  double key_width = 0, key_height = 0;  // pixels
  std::vector<KeyEntry> entries;
  std::vector<std::string> plot_items;
  std::vector<std::pair<double, double>> samples;  // plot fractions, for the key search
  bool slanted_categories = false;  // bars whose labels would overlap level: at 45 degrees
};

// The stroke of reference series and level lines: thin, dark grey, dashed.
std::string referenceStroke() {
  return "lw " + num(style::kReferenceLineWidth) + " dt 2 lc rgb " + quoted(style::kReferenceColour);
}

std::string lineStyle(const LineSeries& s, int index) {
  if (s.reference) return "lines " + referenceStroke();
  std::ostringstream o;
  o << (s.points ? "linespoints" : "lines") << " lw " << style::kLineWidth << " lc rgb "
    << quoted(style::colour(index)) << " dt " << style::dashType(index, s.dashed);
  if (s.points) o << " pt " << style::pointType(index) << " ps " << style::kPointSize;
  return o.str();
}

// Bars and their key samples: filled, with a black border.
constexpr const char* kBarFill = "set style fill solid 0.85 border lc rgb '#000000'\n";

std::string barStyle(int index) {
  return "boxes lc rgb " + quoted(style::colour(index));
}

void validate(const Panel& p, const std::string& where) {
  const int kinds = !p.lines.empty() + (!p.bars.empty() || !p.categories.empty()) +
                    p.heat_map.has_value();
  if (kinds > 1)
    throw std::invalid_argument(where + ": a panel holds one kind (lines, bars or a heat map), "
                                "this one mixes them");
  if (!p.levels.empty() && p.bars.empty())
    throw std::invalid_argument(where + ": level lines go on bar panels (a line panel draws a "
                                "reference series instead)");
  for (const auto& l : p.levels)
    if (!std::isfinite(l.y))
      throw std::invalid_argument(where + ": level line '" + l.label + "' is not a finite value");
  for (const auto& s : p.lines) {
    if (s.x.size() != s.y.size())
      throw std::invalid_argument(where + ", series '" + s.title + "': " +
                                  std::to_string(s.x.size()) + " x values but " +
                                  std::to_string(s.y.size()) + " y values");
    if (!s.spread.empty() && s.spread.size() != s.y.size())
      throw std::invalid_argument(where + ", series '" + s.title + "': " +
                                  std::to_string(s.spread.size()) + " spread values for " +
                                  std::to_string(s.y.size()) + " points");
  }
  for (const auto& b : p.bars) {
    if (b.values.size() != p.categories.size())
      throw std::invalid_argument(where + ", bars '" + b.title + "': " +
                                  std::to_string(b.values.size()) + " values for " +
                                  std::to_string(p.categories.size()) + " categories");
    if (!b.errors.empty() && b.errors.size() != b.values.size())
      throw std::invalid_argument(where + ", bars '" + b.title + "': " +
                                  std::to_string(b.errors.size()) + " errors for " +
                                  std::to_string(b.values.size()) + " values");
  }
  if (p.heat_map) {
    const auto& h = *p.heat_map;
    if (h.values.size() != h.row_labels.size())
      throw std::invalid_argument(where + ": heat map has " + std::to_string(h.values.size()) +
                                  " rows of values but " + std::to_string(h.row_labels.size()) +
                                  " row labels");
    for (size_t r = 0; r < h.values.size(); ++r)
      if (h.values[r].size() != h.column_labels.size())
        throw std::invalid_argument(where + ": heat map row " + std::to_string(r) + " has " +
                                    std::to_string(h.values[r].size()) + " values but " +
                                    std::to_string(h.column_labels.size()) + " column labels");
  }
}

// Writes the data blocks of a lines panel and its plot items; collects key samples.
void planLines(PanelPlan& plan, std::ostringstream& data, int& block, bool shared_key,
               std::map<std::string, KeyEntry>& shared, std::vector<std::string>& shared_order) {
  const Panel& p = *plan.panel;
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  for (const auto& s : p.lines)
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (!usable(s.x[i], p.x.scale) || !usable(s.y[i], p.y.scale)) continue;
      xlo = std::min(xlo, s.x[i]);
      xhi = std::max(xhi, s.x[i]);
      const double e = s.spread.empty() || !std::isfinite(s.spread[i]) ? 0 : s.spread[i];
      const double lo = s.y[i] - e;
      ylo = std::min(ylo, usable(lo, p.y.scale) ? lo : s.y[i]);
      yhi = std::max(yhi, s.y[i] + e);
    }
  plan.x = axisRange(p.x, xlo, xhi, false);
  plan.y = axisRange(p.y, ylo, yhi, true);
  int auto_index = 0;
  for (const auto& s : p.lines) {
    std::ostringstream rows;
    size_t n = 0;
    std::vector<std::pair<double, double>> pts;
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (!usable(s.x[i], p.x.scale) || !usable(s.y[i], p.y.scale)) continue;
      double lo = s.y[i], hi = s.y[i];
      if (!s.spread.empty() && std::isfinite(s.spread[i])) {
        lo = s.y[i] - s.spread[i];
        hi = s.y[i] + s.spread[i];
        if (!usable(lo, p.y.scale)) lo = s.y[i];
      }
      rows << num(s.x[i]) << " " << num(s.y[i]) << " " << num(lo) << " " << num(hi) << "\n";
      ++n;
      const double ux = unit(s.x[i], p.x.scale, plan.x);
      pts.emplace_back(ux, unit(s.y[i], p.y.scale, plan.y));
      plan.samples.emplace_back(ux, unit(lo, p.y.scale, plan.y));
      plan.samples.emplace_back(ux, unit(hi, p.y.scale, plan.y));
    }
    if (n == 0) continue;
    // Points along each segment too: a key must not cover a line between two points.
    for (size_t i = 0; i < pts.size(); ++i) {
      plan.samples.push_back(pts[i]);
      if (i + 1 < pts.size())
        for (int k = 1; k < 16; ++k) {
          const double t = k / 16.0;
          plan.samples.emplace_back(pts[i].first + t * (pts[i + 1].first - pts[i].first),
                                    pts[i].second + t * (pts[i + 1].second - pts[i].second));
        }
    }
    data << "# block " << block << ": " << (s.title.empty() ? "(untitled)" : s.title)
         << "\n# x y y_low y_high\n"
         << rows.str() << "\n\n";
    const int index = s.reference ? 0 : (s.style >= 0 ? s.style : auto_index++);
    const std::string with = lineStyle(s, index);
    const bool titled = !s.title.empty() && !shared_key && plan.key != KeyPlacement::Off;
    const std::string src = "data index " + std::to_string(block);
    if (!s.spread.empty() && !s.reference && s.spread_style == SpreadStyle::Band) {
      std::ostringstream band;
      band << src << " using 1:3:4 with filledcurves fs transparent solid "
           << style::kBandOpacity << " noborder lc rgb " << quoted(style::colour(index))
           << " notitle";
      plan.plot_items.insert(plan.plot_items.begin(), band.str());  // bands under every line
    }
    const std::string using_clause = !s.spread.empty() && !s.reference &&
                                             s.spread_style == SpreadStyle::ErrorBars
                                         ? " using 1:2:3:4 with y" + std::string("errorlines") +
                                               with.substr(with.find(' '))
                                         : " using 1:2 with " + with;
    plan.plot_items.push_back(src + using_clause +
                              (titled ? " title " + quoted(s.title) : " notitle"));
    if (!s.title.empty()) {
      KeyEntry e{s.title, with, s.reference};
      if (shared_key) {
        if (!shared.count(s.title)) shared_order.push_back(s.title);
        shared.emplace(s.title, e);
      } else {
        plan.entries.push_back(e);
      }
    }
    ++block;
  }
}

// The x range of the categories and the y range of the bars, their error bars and levels.
void planBarRanges(PanelPlan& plan) {
  const Panel& p = *plan.panel;
  double ylo = 0, yhi = -INFINITY;
  for (const auto& b : p.bars)
    for (size_t i = 0; i < b.values.size(); ++i) {
      if (!std::isfinite(b.values[i])) continue;
      const double e = b.errors.empty() || !std::isfinite(b.errors[i]) ? 0 : b.errors[i];
      yhi = std::max(yhi, b.values[i] + e);
      ylo = std::min(ylo, b.values[i] - e);
    }
  for (const auto& l : p.levels) {
    yhi = std::max(yhi, l.y);
    ylo = std::min(ylo, l.y);
  }
  plan.x = {-0.6, static_cast<double>(p.categories.size()) - 0.4};
  if (p.y.range) {
    plan.y = {p.y.range->first, p.y.range->second};
  } else if (isLog(p.y.scale)) {
    double lo = INFINITY;
    for (const auto& b : p.bars)
      for (double v : b.values)
        if (usable(v, p.y.scale)) lo = std::min(lo, v);
    plan.y = axisRange(p.y, lo, yhi, true);
  } else {
    plan.y = {ylo, yhi + 0.08 * (yhi - ylo > 0 ? yhi - ylo : 1)};
  }
}

void planBars(PanelPlan& plan, std::ostringstream& data, int& block, bool shared_key,
              std::map<std::string, KeyEntry>& shared, std::vector<std::string>& shared_order) {
  const Panel& p = *plan.panel;
  const size_t m = p.bars.size();
  planBarRanges(plan);
  data << "# block " << block << ": bars\n# category_index category";
  for (const auto& b : p.bars) data << " " << dataString(b.title) << " error";
  data << "\n";
  for (size_t i = 0; i < p.categories.size(); ++i) {
    data << i << " " << dataString(p.categories[i]);
    for (const auto& b : p.bars)
      data << " " << num(b.values[i]) << " "
           << num(b.errors.empty() ? NAN : b.errors[i]);
    data << "\n";
  }
  data << "\n\n";
  const double width = 0.8 / static_cast<double>(std::max<size_t>(m, 1));
  int auto_index = 0;
  std::vector<std::string> errors;
  for (size_t j = 0; j < m; ++j) {
    const auto& b = p.bars[j];
    const int index = b.style >= 0 ? b.style : auto_index++;
    const double offset = (static_cast<double>(j) - (static_cast<double>(m) - 1) / 2) * width;
    const int value_col = 3 + 2 * static_cast<int>(j);
    const std::string x = "($1" + std::string(offset < 0 ? "" : "+") + num(offset) + ")";
    const std::string src = "data index " + std::to_string(block);
    const bool titled = !b.title.empty() && !shared_key && plan.key != KeyPlacement::Off;
    plan.plot_items.push_back(src + " using " + x + ":" + std::to_string(value_col) + " with " +
                              barStyle(index) + (titled ? " title " + quoted(b.title) : " notitle"));
    if (!b.errors.empty())
      // A capped vertical segment from value - error to value + error (gnuplot's own error bars
      // leave a blank disc around the point).
      errors.push_back(src + " using " + x + ":($" + std::to_string(value_col) + "-$" +
                       std::to_string(value_col + 1) + "):(0):(2*$" +
                       std::to_string(value_col + 1) +
                       ") with vectors heads size screen 0.008,90 lc rgb '#000000' lw 1 notitle");
    if (!b.title.empty()) {
      KeyEntry e{b.title, barStyle(index), false};
      if (shared_key) {
        if (!shared.count(b.title)) shared_order.push_back(b.title);
        shared.emplace(b.title, e);
      } else {
        plan.entries.push_back(e);
      }
    }
  }
  plan.plot_items.insert(plan.plot_items.end(), errors.begin(), errors.end());
  // Level lines are drawn as arrows (the panel's commands); their labels go in the key, clear of
  // the bars.
  for (const auto& l : p.levels) {
    if (l.label.empty()) continue;
    const std::string with = "lines " + referenceStroke();
    KeyEntry e{l.label, with, true};
    if (shared_key) {
      if (!shared.count(l.label)) shared_order.push_back(l.label);
      shared.emplace(l.label, e);
    } else if (plan.key != KeyPlacement::Off) {
      plan.plot_items.push_back("keyentry with " + with + " title " + quoted(l.label));
      plan.entries.push_back(e);
    }
  }
  ++block;
}

void planHeatMap(PanelPlan& plan, std::ostringstream& data, int& block) {
  const HeatMap& h = *plan.panel->heat_map;
  plan.x = {-0.5, static_cast<double>(h.column_labels.size()) - 0.5};
  plan.y = {static_cast<double>(h.row_labels.size()) - 0.5, -0.5};  // row 0 on top
  if (h.colour_range) {
    plan.colour = {h.colour_range->first, h.colour_range->second};
  } else {
    plan.colour = {INFINITY, -INFINITY};
    for (const auto& row : h.values)
      for (double v : row)
        if (std::isfinite(v)) {
          plan.colour.lo = std::min(plan.colour.lo, v);
          plan.colour.hi = std::max(plan.colour.hi, v);
        }
    if (!(plan.colour.lo < plan.colour.hi)) plan.colour = {plan.colour.lo - 0.5, plan.colour.lo + 0.5};
  }
  data << "# block " << block << ": heat map, one line per cell\n# column row value\n";
  for (size_t r = 0; r < h.values.size(); ++r) {
    for (size_t c = 0; c < h.values[r].size(); ++c)
      data << c << " " << r << " " << num(h.values[r][c]) << "\n";
    data << "\n";  // gnuplot's grid format: a blank line after each row
  }
  data << "\n";
  const std::string src = "data index " + std::to_string(block);
  plan.plot_items.push_back(src + " using 1:2:3 with image notitle");
  if (h.show_values) {
    // Dark text on light cells, white on dark ones.
    const std::string mid = num((plan.colour.lo + plan.colour.hi) / 2);
    const std::string font = " font '," + std::to_string(style::kFontSize - 2) + "'";
    plan.plot_items.push_back(src + " using 1:2:($3 <= " + mid +
                              " ? sprintf('%.2f', $3) : '') with labels" + font +
                              " tc rgb '#000000' notitle");
    plan.plot_items.push_back(src + " using 1:2:($3 > " + mid +
                              " ? sprintf('%.2f', $3) : '') with labels" + font +
                              " tc rgb '#ffffff' notitle");
  }
  ++block;
}

std::string tickList(const std::vector<std::string>& labels) {
  std::string s = "(";
  for (size_t i = 0; i < labels.size(); ++i)
    s += (i ? ", " : "") + quoted(labels[i]) + " " + std::to_string(i);
  return s + ")";
}

double keyWidth(const std::vector<KeyEntry>& entries) {
  size_t longest = 0;
  for (const auto& e : entries) longest = std::max(longest, utf8Length(e.title));
  return kKeySampleWidth + kCharWidth * static_cast<double>(longest) + 12;
}

std::string keyCorner(KeyPlacement k) {
  switch (k) {
    case KeyPlacement::TopLeft: return "inside left top";
    case KeyPlacement::TopRight: return "inside right top";
    case KeyPlacement::BottomLeft: return "inside left bottom";
    case KeyPlacement::BottomRight: return "inside right bottom";
    default: return "";
  }
}

// Where the panels go: the grid of cells in pixels, and the strip of a shared key.
struct Layout {
  double width = 0, height = 0;  // the figure, pixels
  int cols = 1, rows = 1, empty_cells = 0;
  double top_px = 0, bottom_px = 0, cell_w = 0, cell_h = 0;
  int key_columns = 1;  // the shared key below the grid
};

// The shared key's entries: data series first, references after, each title once.
struct SharedKey {
  std::map<std::string, KeyEntry> entries;
  std::vector<std::string> order;
  std::vector<KeyEntry> listed() const {
    std::vector<KeyEntry> out;
    for (const bool reference : {false, true})
      for (const auto& t : order)
        if (entries.at(t).reference == reference) out.push_back(entries.at(t));
    return out;
  }
};

// The grid: the figure's columns, or as many as gridColumns picks; the shared key in the empty
// cells of the last row when there are any, else in a strip below the grid.
Layout layOut(const Figure& figure, size_t panels, const std::vector<KeyEntry>& shared_entries) {
  Layout l;
  l.width = figure.width;
  l.height = figure.height;
  l.cols = figure.columns > 0 ? std::min<int>(figure.columns, static_cast<int>(panels))
                              : gridColumns(panels);
  l.rows = static_cast<int>((panels + l.cols - 1) / l.cols);
  l.empty_cells = l.rows * l.cols - static_cast<int>(panels);
  l.top_px = figure.title.empty() ? 0 : 30;
  const double entry_width = keyWidth(shared_entries);
  if (!shared_entries.empty() && l.empty_cells == 0) {
    l.key_columns = std::max(1, static_cast<int>((l.width - 40) / entry_width));
    l.key_columns = std::min<int>(l.key_columns, static_cast<int>(shared_entries.size()));
    const int key_rows =
        static_cast<int>((shared_entries.size() + l.key_columns - 1) / l.key_columns);
    l.bottom_px = kKeyLineHeight * key_rows + 14;
  }
  l.cell_w = l.width / l.cols;
  l.cell_h = (l.height - l.top_px - l.bottom_px) / l.rows;
  return l;
}

// Margins and keys first: panels of one grid column share their left and right margins, so
// that stacked panels line their axes up.
std::vector<Margins> placeMargins(std::vector<PanelPlan>& plans, const Layout& layout) {
  std::vector<Margins> margins(plans.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    PanelPlan& plan = plans[i];
    const Panel& p = *plan.panel;
    Margins& m = margins[i];
    m.top = p.title.empty() ? 14 : 38;
    if (p.heat_map) {
      size_t longest_row = 0, longest_col = 0;
      for (const auto& l : p.heat_map->row_labels) longest_row = std::max(longest_row, utf8Length(l));
      for (const auto& l : p.heat_map->column_labels) longest_col = std::max(longest_col, utf8Length(l));
      m.left = 24 + kCharWidth * static_cast<double>(longest_row) + (p.y.label.empty() ? 0 : 34);
      m.bottom = 24 + kCharWidth * static_cast<double>(longest_col) + (p.x.label.empty() ? 0 : 34);
      m.right = 120;  // colour box and its label
    }
    // Key placement: an empty inside corner, else room on the right of the plot.
    if (plan.key != KeyPlacement::Off) {
      const double box_w = layout.cell_w - m.left - m.right,
                   box_h = layout.cell_h - m.top - m.bottom;
      plan.key_width = keyWidth(plan.entries);
      plan.key_height = kKeyLineHeight * static_cast<double>(plan.entries.size()) + 8;
      if (plan.key == KeyPlacement::Auto) {
        std::optional<KeyPlacement> corner;
        if (!p.lines.empty())
          corner = emptyCorner(plan.samples, plan.key_width / box_w, plan.key_height / box_h);
        plan.key = corner ? *corner : KeyPlacement::OutsideRight;
      }
      if (plan.key == KeyPlacement::OutsideRight) m.right += plan.key_width;
    }
    // Category labels wider than their share of the plot overlap when level: slant them, and
    // make room below for the longest (its width times sin 45°). kCharWidth is a bound for
    // margins; lower-case names average about 0.8 of it.
    if (!p.categories.empty()) {
      size_t longest = 0;
      for (const auto& c : p.categories) longest = std::max(longest, utf8Length(c));
      const double share = (layout.cell_w - m.left - m.right) / static_cast<double>(p.categories.size());
      if (0.8 * kCharWidth * static_cast<double>(longest) > share) {
        plan.slanted_categories = true;
        m.bottom = 30 + 0.71 * kCharWidth * static_cast<double>(longest) + (p.x.label.empty() ? 0 : 34);
      }
    }
  }
  const int cols = layout.cols;
  for (int col = 0; col < cols; ++col) {
    double left = 0, right = 0;
    for (size_t i = static_cast<size_t>(col); i < plans.size(); i += static_cast<size_t>(cols)) {
      left = std::max(left, margins[i].left);
      right = std::max(right, margins[i].right);
    }
    for (size_t i = static_cast<size_t>(col); i < plans.size(); i += static_cast<size_t>(cols)) {
      margins[i].left = left;
      margins[i].right = right;
    }
  }
  return margins;
}

// The axes' commands of one panel: a heat map's, bars' or lines'.
std::string axesCommands(const PanelPlan& plan) {
  const Panel& p = *plan.panel;
  std::ostringstream s;
  if (p.heat_map) {
    const HeatMap& h = *p.heat_map;
    s << "set border 15\nset palette defined (" << style::heatMapPalette() << ")\n";
    s << "set cbrange [" << num(plan.colour.lo) << ":" << num(plan.colour.hi) << "]\n";
    if (!h.colour_label.empty()) s << "set cblabel " << quoted(h.colour_label) << " noenhanced\n";
    s << "set xrange [" << num(plan.x.lo) << ":" << num(plan.x.hi) << "]\n";
    s << "set yrange [" << num(plan.y.lo) << ":" << num(plan.y.hi) << "]\n";
    s << "set xtics " << tickList(h.column_labels) << " rotate by 90 right noenhanced scale 0\n";
    s << "set ytics " << tickList(h.row_labels) << " noenhanced scale 0\n";
    s << "unset key\n";
  } else if (!p.bars.empty()) {
    s << "set grid ytics lc rgb " << quoted(style::kGridColour) << " lw 1\n";
    s << kBarFill;
    s << "set boxwidth " << num(0.8 / static_cast<double>(p.bars.size())) << " absolute\n";
    s << "set xrange [" << num(plan.x.lo) << ":" << num(plan.x.hi) << "]\n";
    s << "set xtics " << tickList(p.categories)
      << (plan.slanted_categories ? " rotate by 45 right" : "") << " noenhanced scale 0\n";
    s << axisCommands("y", p.y, plan.y);
    for (const auto& l : p.levels)
      s << "set arrow from graph 0, first " << num(l.y) << " to graph 1, first " << num(l.y)
        << " nohead front " << referenceStroke() << "\n";
  } else {
    s << "set grid xtics ytics lc rgb " << quoted(style::kGridColour) << " lw 1\n";
    s << axisCommands("x", p.x, plan.x) << axisCommands("y", p.y, plan.y);
  }
  return s.str();
}

// Panel `i`'s commands and plot, in its cell of the grid.
void writePanel(const PanelPlan& plan, size_t i, const Margins& m, const Layout& layout,
                std::ostringstream& body) {
  const Panel& p = *plan.panel;
  const double W = layout.width, H = layout.height;
  const int row = static_cast<int>(i) / layout.cols, col = static_cast<int>(i) % layout.cols;
  const double cx0 = col * layout.cell_w, cy_top = layout.top_px + row * layout.cell_h;
  const double box_w = layout.cell_w - m.left - m.right, box_h = layout.cell_h - m.top - m.bottom;
  const double left = (cx0 + m.left) / W, right = (cx0 + m.left + box_w) / W;
  const double top = 1 - (cy_top + m.top) / H, bottom = 1 - (cy_top + m.top + box_h) / H;

  body << "  # panel " << i + 1 << (p.title.empty() ? "" : ": " + p.title) << "\n";
  body << "  reset\n";
  std::ostringstream s;
  s << "set lmargin at screen " << num(left) << "\nset rmargin at screen " << num(right)
    << "\nset bmargin at screen " << num(bottom) << "\nset tmargin at screen " << num(top)
    << "\n";
  s << "set border 3 lw 1\nset tics nomirror out scale 0.6\n";
  if (!p.title.empty())
    s << "set title " << quoted(p.title) << " noenhanced font '," << style::kTitleFontSize
      << "' offset 0,-0.3\n";
  if (!p.x.label.empty()) s << "set xlabel " << quoted(p.x.label) << " noenhanced\n";
  if (!p.y.label.empty()) s << "set ylabel " << quoted(p.y.label) << " noenhanced\n";
  s << axesCommands(plan);
  // The key.
  const std::vector<std::string>& items = plan.plot_items;
  if (plan.key == KeyPlacement::Off) {
    s << "unset key\n";
  } else if (plan.key == KeyPlacement::OutsideRight) {
    s << "set key at screen " << num(right + 10 / W) << ", screen " << num(top)
      << " left top vertical Left reverse samplen 4 noenhanced nobox\n";
  } else {
    s << "set key " << keyCorner(plan.key) << " vertical Left reverse samplen 4 noenhanced "
                                              "nobox\n";
  }
  std::istringstream lines(s.str());
  for (std::string line; std::getline(lines, line);) body << "  " << line << "\n";
  body << "  plot ";
  for (size_t k = 0; k < items.size(); ++k) body << (k ? ", \\\n       " : "") << items[k];
  body << "\n";
}

// The shared key: a plot of its own with no axes, over the grid's empty cells or the strip
// below the grid, so that gnuplot lays the key out in that whole area.
void writeSharedKey(const std::vector<KeyEntry>& shared_entries, const Layout& layout,
                    std::ostringstream& body) {
  if (shared_entries.empty()) return;
  const double W = layout.width, H = layout.height;
  const int cols = layout.cols, rows = layout.rows, empty_cells = layout.empty_cells;
  const double top_px = layout.top_px, bottom_px = layout.bottom_px, cell_w = layout.cell_w,
               cell_h = layout.cell_h;
  const int key_columns = layout.key_columns;
  std::ostringstream k;
  double x0, x1, y0, y1;
  int max_rows;
  if (empty_cells > 0) {
    x0 = (cols - empty_cells) * cell_w / W + 0.02;
    x1 = 0.98;
    y0 = 1 - (top_px + rows * cell_h) / H + 0.02;
    y1 = 1 - (top_px + (rows - 1) * cell_h) / H - 0.02;
    max_rows = std::max(1, static_cast<int>((cell_h - 20) / kKeyLineHeight));
  } else {
    x0 = 0.01;
    x1 = 0.99;
    y0 = 0;
    y1 = bottom_px / H;
    max_rows = static_cast<int>((shared_entries.size() + key_columns - 1) / key_columns);
  }
  k << "reset\nunset border\nunset tics\nunset grid\n"
    << kBarFill  // after reset, as in the panels: else a bar's key sample is an empty box
    << "set lmargin at screen " << num(x0) << "\nset rmargin at screen " << num(x1)
    << "\nset bmargin at screen " << num(y0) << "\nset tmargin at screen " << num(y1) << "\n"
    << "set xrange [0:1]\nset yrange [0:1]\n"
    << "set key inside center center " << (empty_cells > 0 ? "vertical" : "horizontal")
    << " maxrows " << max_rows << " Left reverse samplen 4 noenhanced nobox\n";
  body << "  # the key shared by every panel\n";
  std::istringstream lines(k.str());
  for (std::string line; std::getline(lines, line);) body << "  " << line << "\n";
  body << "  plot NaN notitle";
  for (const auto& e : shared_entries)
    body << ", \\\n       keyentry with " << e.style << " title " << quoted(e.title);
  body << "\n";
}

// The script: one run of the panels' commands per output format.
std::string scriptText(const std::string& stem, const std::vector<OutputFormat>& formats,
                       double W, double H, const std::string& panels) {
  std::ostringstream script;
  script << "# " << stem << ".gp: written by recurlab_analyze from the run's log.h5.\n"
         << "# Restyle and rerun in this folder: gnuplot " << stem << ".gp\n"
         << "# It reads " << stem << ".dat and writes";
  std::string ext_list;
  for (const auto& f : formats) {
    script << " " << stem << "." << f.extension;
    ext_list += (ext_list.empty() ? "" : " ") + f.extension;
  }
  script << ".\ndata = " << quoted(stem + ".dat") << "\n";
  script << "do for [format in " << '"' << ext_list << '"' << "] {\n";
  for (const auto& f : formats) {
    script << "  if (format eq " << quoted(f.extension) << ") { set terminal " << f.terminal;
    if (f.terminal == "pdfcairo")
      script << " size " << num(W / style::kPixelsPerInch) << "in," << num(H / style::kPixelsPerInch)
             << "in";
    else
      script << " size " << num(W) << "," << num(H);
    if (f.terminal != "png") script << " font '" << style::kFont << "," << style::kFontSize << "'";
    script << " enhanced";
    if (f.terminal == "pngcairo" || f.terminal == "pdfcairo") script << " dashlength 1.5";
    script << " }\n";
  }
  script << "  set output '" << stem << ".'.format\n" << panels << "  unset output\n}\n";
  return script.str();
}

}  // namespace

GnuplotScript gnuplotScript(const Figure& figure, const std::string& stem,
                            const std::vector<OutputFormat>& formats) {
  if (formats.empty()) throw std::invalid_argument("figure " + stem + ": no output format");
  std::vector<const Panel*> panels;
  for (size_t i = 0; i < figure.panels.size(); ++i) {
    const Panel& p = figure.panels[i];
    validate(p, "figure " + stem + ", panel " + std::to_string(i + 1) +
                    (p.title.empty() ? "" : " '" + p.title + "'"));
    if (!p.empty()) panels.push_back(&p);
  }
  if (panels.empty())
    throw std::invalid_argument("figure " + stem + ": nothing to draw (every panel is empty)");
  const bool shared_key = figure.shared_key;

  std::ostringstream data;
  data << "# " << stem << ".dat: the numbers of " << stem
       << ".png, one block per series (gnuplot 'index k'), written by recurlab_analyze\n\n";
  int block = 0;
  SharedKey shared;
  std::vector<PanelPlan> plans;
  for (const Panel* p : panels) {
    PanelPlan plan;
    plan.panel = p;
    plan.key = shared_key || p->heat_map ? KeyPlacement::Off : p->key;
    if (p->heat_map) planHeatMap(plan, data, block);
    else if (!p->bars.empty()) planBars(plan, data, block, shared_key, shared.entries, shared.order);
    else planLines(plan, data, block, shared_key, shared.entries, shared.order);
    if (plan.entries.empty() && !shared_key) plan.key = KeyPlacement::Off;
    plans.push_back(std::move(plan));
  }
  const std::vector<KeyEntry> shared_entries = shared.listed();
  const Layout layout = layOut(figure, panels.size(), shared_entries);

  std::ostringstream body;
  body << "  set multiplot";
  if (!figure.title.empty())
    body << " title " << quoted(figure.title) << " noenhanced font '," << style::kTitleFontSize + 1
         << "'";
  body << "\n";
  const std::vector<Margins> margins = placeMargins(plans, layout);
  for (size_t i = 0; i < plans.size(); ++i) writePanel(plans[i], i, margins[i], layout, body);
  writeSharedKey(shared_entries, layout, body);
  body << "  unset multiplot\n";
  return {scriptText(stem, formats, layout.width, layout.height, body.str()), data.str()};
}

}  // namespace recurlab::analysis
