// Report of `make exp-variance`: Lei et al. (2018) App. A / Figure 6 for a deep SRU and
// Gehring et al. (2017) App. A for a gated-conv stack, from the tables under /variance in log.h5.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "analysis/report_registry.h"

namespace recurlab::analysis {

namespace {

using experiments::Table;

// Rows of one configuration, ordered by layer, as column -> values.
struct Curve {
  std::map<std::string, std::vector<double>> col;
  const std::vector<double>& operator[](const std::string& c) const { return col.at(c); }
  size_t size() const { return col.empty() ? 0 : col.begin()->second.size(); }
};

Curve select(const Table& t, const std::string& k1, double v1, const std::string& k2, double v2) {
  const auto idx = [&](const std::string& name) {
    return static_cast<size_t>(std::find(t.columns.begin(), t.columns.end(), name) -
                               t.columns.begin());
  };
  const size_t i1 = idx(k1), i2 = idx(k2), il = idx("layer");
  std::vector<const std::vector<double>*> rows;
  for (const auto& r : t.rows)
    if (r[i1] == v1 && r[i2] == v2) rows.push_back(&r);
  std::sort(rows.begin(), rows.end(), [&](auto a, auto b) { return (*a)[il] < (*b)[il]; });
  Curve c;
  for (size_t j = 0; j < t.columns.size(); ++j)
    for (const auto* r : rows) c.col[t.columns[j]].push_back((*r)[j]);
  return c;
}

std::vector<double> distinct(const Table& t, const std::string& column, bool descending) {
  std::set<double> s;
  for (double v : t.column(column)) s.insert(v);
  std::vector<double> out(s.begin(), s.end());
  if (descending) std::reverse(out.begin(), out.end());
  return out;
}

std::string bLabel(double b) {
  std::ostringstream s;
  s << "b=" << b;
  return s.str();
}

// A horizontal line over the layers: a derived bound. style < 0: the house reference style.
LineSeries constantLine(double y, double x0, double x1, const std::string& title, int style = -1) {
  LineSeries s;
  s.title = title;
  s.x = {x0, x1};
  s.y = {y, y};
  s.points = false;
  if (style < 0) {
    s.reference = true;
  } else {
    s.style = style;
    s.dashed = true;
  }
  return s;
}

// "one initialization per curve (seed 1), moments over 2 batches of sequences at each layer"
std::string samplesText(const RunReader& run, const std::string& group) {
  std::string seed = run.rootText("seed");
  std::string text = "one random initialization per curve" + (seed.empty() ? "" : " (seed " + seed + ")");
  if (const auto b = run.log().attribute(group, "batches"))
    if (const auto* n = std::get_if<int64_t>(&*b))
      text += ", moments over " + std::to_string(*n) + " batch" + (*n == 1 ? "" : "es") +
              " of sequences per point";
  return text;
}

std::string inputTitle(const std::string& name) {
  if (name == "iid") return "i.i.d. Gaussian input";
  if (name == "correlated") return "perfectly correlated input (x_t = x)";
  if (name == "sentences") return "MR sentences, random embeddings";
  if (name == "pretrained") return "MR sentences, pretrained vectors";
  return name;
}

// Fraction of layers whose measured ratio lies within [low, high] up to 3 standard errors.
double fractionInside(const std::vector<double>& v, const std::vector<double>& se, double low,
                      double high) {
  if (v.empty()) return 0;
  size_t inside = 0;
  for (size_t i = 0; i < v.size(); ++i)
    inside += v[i] >= low - 3 * se[i] && v[i] <= high + 3 * se[i];
  return static_cast<double>(inside) / static_cast<double>(v.size());
}

// One input's per-layer table of the SRU study, as its figure and tables read it.
struct SruInputTable {
  std::string input, group;        // "iid", "/variance/sru/iid"
  Table table;                     // its layers table
  std::vector<double> biases, alphas;
  double layers = 0;               // the deepest layer
};

// Var[c]/Var[x] and Var[h]/Var[x] per layer, one column per highway bias b, with the bounds.
void sruInputFigure(const RunReader& run, const SruInputTable& study, Report& report) {
  const Table& t = study.table;
  const auto& biases = study.biases;
  const auto& alphas = study.alphas;
  const double layers = study.layers;
  const std::string& input = study.input;
  const std::string& group = study.group;
  // Figure: one column per b; top Var[c]/Var[x], bottom Var[h]/Var[x].
  Figure fig;
  fig.columns = static_cast<int>(biases.size());
  fig.shared_key = true;
  fig.width = 250 * fig.columns + 60;
  fig.height = 620;
  std::vector<Panel> top, bottom;
  for (double b : biases) {
    Panel pc, ph;
    pc.title = "Var[c]/Var[x], " + bLabel(b);
    ph.title = "Var[h]/Var[x], " + bLabel(b);
    pc.x.label = ph.x.label = "layer";
    pc.x.integer_ticks = ph.x.integer_ticks = true;
    pc.y.label = ph.y.label = "variance ratio";
    pc.y.range = ph.y.range = std::make_pair(0.0, 1.2);
    for (double a : alphas) {
      const Curve c = select(t, "alpha", a, "highway_bias", b);
      if (c.size() == 0) continue;
      const int style = a > 0 ? 1 : 0;
      LineSeries sc;
      sc.title = a > 0 ? "alpha on" : "alpha off";
      sc.x = c["layer"];
      sc.y = c["c_over_x"];
      sc.style = style;
      LineSeries sh = sc;
      sh.y = c["h_over_x"];
      pc.lines.push_back(sc);
      ph.lines.push_back(sh);
    }
    pc.lines.push_back(constantLine(1.0 / 3.0, 1, layers, "derived bounds (1/3 and 1 for c)"));
    pc.lines.push_back(constantLine(1.0, 1, layers, ""));
    for (double a : alphas) {
      const Curve c = select(t, "alpha", a, "highway_bias", b);
      if (c.size() == 0) continue;
      const int style = a > 0 ? 1 : 0;
      const std::string title = a > 0 ? "derived h bounds, alpha on" : "derived h bounds, alpha off";
      ph.lines.push_back(constantLine(c["derived_h_low"][0], 1, layers, title, style));
      ph.lines.push_back(constantLine(c["derived_h_high"][0], 1, layers, "", style));
    }
    top.push_back(pc);
    bottom.push_back(ph);
  }
  fig.panels = top;
  fig.panels.insert(fig.panels.end(), bottom.begin(), bottom.end());
  report.figure(fig, "variance_" + input,
                "Per-layer Var[c]/Var[x] (top) and Var[h]/Var[x] (bottom) of a " +
                    std::to_string(static_cast<int>(layers)) + "-layer SRU at initialization for " +
                    inputTitle(input) + ", one column per highway bias b; dashed: the bounds "
                    "derived by Lei et al. (2018), App. A; " + samplesText(run, group) + ".");
}

// Measured against derived, per layer, at b = 0 (or the first b).
void sruLayerTable(const SruInputTable& study, Report& report) {
  const Table& t = study.table;
  const auto& biases = study.biases;
  const auto& alphas = study.alphas;
  const std::string& input = study.input;
  // Per-layer table at b = 0 (or the first b): measured vs derived.
  const double b0 = std::find(biases.begin(), biases.end(), 0.0) != biases.end() ? 0.0 : biases[0];
  report.paragraph("Measured (± standard error over sequences) vs derived, per layer, at " +
                   bLabel(b0) + ". Derived Var[c]/Var[x] lies in [1/3, 1] (eq. 5); eq. 6 gives "
                   "Var[h]/Var[x] from the measured Var[c]/Var[x] and its bounds from eq. 5.");
  std::vector<std::string> head{"layer", "Var[c]/Var[x]"};
  std::vector<Curve> curves;
  for (double a : alphas) {
    curves.push_back(select(t, "alpha", a, "highway_bias", b0));
    const std::string tag = a > 0 ? " (α on)" : " (α off)";
    head.push_back("Var[h]/Var[x]" + tag);
    head.push_back("eq. 6" + tag);
    head.push_back("bounds" + tag);
    head.push_back("Var[h_l]/Var[x_1]" + tag);
  }
  ReportTable md = ReportTable::withHeaders(head);
  for (size_t i = 0; i < curves.front().size(); ++i) {
    std::vector<ReportTable::Cell> row{
        {std::to_string(static_cast<int>(curves.front()["layer"][i])), curves.front()["layer"][i]},
        {formatWithError(curves.front()["c_over_x"][i], curves.front()["c_over_x_se"][i]),
         curves.front()["c_over_x"][i], curves.front()["c_over_x_se"][i]}};
    for (const auto& c : curves) {
      row.push_back({formatWithError(c["h_over_x"][i], c["h_over_x_se"][i]), c["h_over_x"][i],
                     c["h_over_x_se"][i]});
      row.push_back({formatNumber(c["derived_h_eq6"][i], 3), c["derived_h_eq6"][i]});
      row.push_back("[" + formatNumber(c["derived_h_low"][i], 3) + ", " +
                    formatNumber(c["derived_h_high"][i], 3) + "]");
      row.push_back({formatNumber(c["h_over_input"][i], 3), c["h_over_input"][i]});
    }
    md.addRow(row);
  }
  report.table(md, "variance_" + input + "_layers",
               "SRU at initialization, " + inputTitle(input) + ", " + bLabel(b0) +
                   ": measured (± standard error) and derived variance ratios per layer.");
}

// Every configuration (alpha, b) in one row: first and last layer, layers within bounds.
void sruConfigurationTable(const SruInputTable& study, Report& report, nlohmann::json& summary) {
  const Table& t = study.table;
  const auto& biases = study.biases;
  const auto& alphas = study.alphas;
  const std::string& input = study.input;
  // Every configuration in one line each.
  report.paragraph("All configurations: first and last layer, and the share of layers whose "
                   "Var[h]/Var[x] lies within the derived bounds (up to 3 standard errors).");
  ReportTable all = ReportTable::withHeaders(
      {"α", "b", "c/x layer 1", "c/x last", "h/x layer 1", "h/x last", "derived h/x",
       "layers in bounds", "Var[h_L]/Var[x_1]", "E[r²] layer 1", "derived E[r²]",
       "Var[f] layer 1"});
  nlohmann::json js = nlohmann::json::array();
  for (double a : alphas) {
    for (double b : biases) {
      const Curve c = select(t, "alpha", a, "highway_bias", b);
      if (c.size() == 0) continue;
      const size_t last = c.size() - 1;
      const double inside = fractionInside(c["h_over_x"], c["h_over_x_se"],
                                           c["derived_h_low"][0], c["derived_h_high"][0]);
      const auto withError = [&](const std::string& col, size_t i) {
        return ReportTable::Cell(formatWithError(c[col][i], c[col + "_se"][i]), c[col][i],
                                 c[col + "_se"][i]);
      };
      const auto number = [&](double v) { return ReportTable::Cell(formatNumber(v, 3), v); };
      all.addRow({a > 0 ? "on" : "off", {bLabel(b).substr(2), b}, withError("c_over_x", 0),
                  withError("c_over_x", last), withError("h_over_x", 0), withError("h_over_x", last),
                  "[" + formatNumber(c["derived_h_low"][0], 3) + ", " +
                      formatNumber(c["derived_h_high"][0], 3) + "]",
                  {formatNumber(100 * inside, 3) + "%", 100 * inside},
                  number(c["h_over_input"][last]), number(c["r_sq_mean"][0]),
                  number(c["derived_r_sq"][0]), number(c["f_var"][0])});
      js.push_back({{"alpha", a > 0},
                    {"highway_bias", b},
                    {"c_over_x_layer1", c["c_over_x"][0]},
                    {"c_over_x_last", c["c_over_x"][last]},
                    {"h_over_x_layer1", c["h_over_x"][0]},
                    {"h_over_x_last", c["h_over_x"][last]},
                    {"h_over_input_last", c["h_over_input"][last]},
                    {"derived_h_low", c["derived_h_low"][0]},
                    {"derived_h_high", c["derived_h_high"][0]},
                    {"layers_within_bounds", inside}});
    }
  }
  report.table(all, "variance_" + input + "_configurations",
               "SRU at initialization, " + inputTitle(input) +
                   ": every configuration, first and last layer, share of layers within the derived bounds.");
  summary[input] = js;
}

void sruInputSection(const RunReader& run, Report& report, const std::string& input,
                     nlohmann::json& summary) {
  const auto& log = run.log();
  SruInputTable study;
  study.input = input;
  study.group = "/variance/sru/" + input;
  study.table = log.readTable(study.group + "/layers");
  if (study.table.rows.empty()) return;
  report.heading(3, inputTitle(input));
  if (const auto d = log.attribute(study.group, "description"))
    if (const auto* s = std::get_if<std::string>(&*d)) report.paragraph("Input: " + *s + ".");
  study.biases = distinct(study.table, "highway_bias", true);
  study.alphas = distinct(study.table, "alpha", false);
  const std::vector<double> layer_column = study.table.column("layer");
  study.layers = *std::max_element(layer_column.begin(), layer_column.end());
  sruInputFigure(run, study, report);
  sruLayerTable(study, report);
  sruConfigurationTable(study, report, summary);
}

void sruDepthFigure(const RunReader& run, Report& report, const std::vector<std::string>& inputs) {
  Figure fig;
  fig.shared_key = true;
  const int columns = gridColumns(inputs.size());
  const int rows = static_cast<int>((inputs.size() + columns - 1) / columns);
  fig.width = std::max(560, 380 * columns);
  fig.height = 300 * rows + 70;
  for (const auto& input : inputs) {
    const Table t = run.log().readTable("/variance/sru/" + input + "/layers");
    Panel p;
    p.title = inputTitle(input);
    p.x.label = "layer l";
    p.x.integer_ticks = true;
    p.y.label = "Var[h_l]/Var[x_1]";
    p.y.scale = AxisScale::Log10;
    const auto biases = distinct(t, "highway_bias", true);
    for (double a : distinct(t, "alpha", false)) {
      for (size_t i = 0; i < biases.size(); ++i) {
        const Curve c = select(t, "alpha", a, "highway_bias", biases[i]);
        if (c.size() == 0) continue;
        LineSeries s;
        s.title = bLabel(biases[i]) + (a > 0 ? ", alpha on" : ", alpha off");
        s.x = c["layer"];
        s.y = c["h_over_input"];
        s.style = static_cast<int>(i);
        s.dashed = a > 0;
        p.lines.push_back(s);
      }
    }
    fig.panels.push_back(p);
  }
  report.figure(fig, "variance_depth",
                "Var[h_l]/Var[x_1] through depth (log scale), one panel per input, with (dashed) "
                "and without (solid) the scaling correction alpha, one colour per highway bias b; " +
                    samplesText(run, "/variance/sru/" + inputs.front()) + ".");
}

void assumptionsParagraph(const RunReader& run, Report& report, const std::vector<std::string>& inputs) {
  // Numbers for the sentence: the iid input at b = 0 without alpha if present.
  const std::string input =
      std::find(inputs.begin(), inputs.end(), "iid") != inputs.end() ? "iid" : inputs.front();
  const Table t = run.log().readTable("/variance/sru/" + input + "/layers");
  const Curve c0 = select(t, "alpha", 0.0, "highway_bias", 0.0);
  std::ostringstream s;
  s << "**Where the derivation's assumptions break.** Appendix A replaces the gates by their "
       "means (f = 1/2, r = σ(b)) and drops the peephole term v⊙c_{t-1} and the correlation "
       "between r, c and x. ";
  if (c0.size() > 0) {
    const size_t last = c0.size() - 1;
    s << "Here (" << inputTitle(input) << ", b = 0, α off) the forget gate has Var[f] = "
      << formatNumber(c0["f_var"][0], 2) << " at layer 1, so E[f²] exceeds E[f]² = 1/4 and the "
      << "geometric weights 1/2, 1/4, ... of eq. 5 spread; Var[c]/Var[x] goes from "
      << formatNumber(c0["c_over_x"][0], 3) << " at layer 1 to " << formatNumber(c0["c_over_x"][last], 3)
      << " at layer " << c0["layer"][last]
      << " because each layer's output is a running average of its input, which correlates "
         "the next layer's input over time (the bound 1 is the perfectly correlated limit). ";
  }
  s << "With a negative highway bias the skip term dominates and the ratio hugs its derived "
       "value; the bounds are looser where Var[x] is no longer small relative to 1 (the "
       "linearisation σ(u + b) ≈ σ(b) + σ'(b)u) and where the input is not zero-mean per unit "
       "(real sentences repeat frequent words, so positions are correlated already at layer 1).";
  report.paragraph(s.str());
}

void gluSection(const RunReader& run, Report& report) {
  const auto& log = run.log();
  if (!log.exists("/variance/glu/layers")) return;
  const Table t = log.readTable("/variance/glu/layers");
  if (t.rows.empty()) return;
  report.heading(2, "Gated convolutions: GLU initialization (Gehring et al. 2017, App. A)");
  if (const auto d = log.attribute("/variance/glu", "description"))
    if (const auto* s = std::get_if<std::string>(&*d)) report.paragraph("Setup: " + *s + ".");
  const auto retains = distinct(t, "retain", true);
  Figure fig;
  fig.shared_key = true;
  fig.width = 900;
  fig.height = 440;
  Panel fwd, bwd;
  fwd.title = "forward: Var[x_l]/Var[x_1]";
  bwd.title = "backward: Var[dL/dx_l]/Var[dL/dx_out]";
  fwd.x.label = bwd.x.label = "layer l (input of block l; last = output)";
  fwd.x.integer_ticks = bwd.x.integer_ticks = true;
  fwd.y.label = bwd.y.label = "variance ratio";
  fwd.y.scale = bwd.y.scale = AxisScale::Log10;
  ReportTable md = ReportTable::withHeaders(
      {"init", "p (retain)", "Var[out]/Var[in]", "derived", "Var[grad in]/Var[grad out]", "derived"});
  nlohmann::json js = nlohmann::json::array();
  for (double naive : {0.0, 1.0}) {
    for (size_t i = 0; i < retains.size(); ++i) {
      const Curve c = select(t, "naive_init", naive, "retain", retains[i]);
      if (c.size() == 0) continue;
      LineSeries measured;
      measured.title = std::string(naive > 0 ? "naive N(0, 1/n)" : "N(0, 4p/n)") + ", p=" +
                       formatNumber(retains[i], 2);
      measured.x = c["layer"];
      measured.style = static_cast<int>(i);
      measured.dashed = naive > 0;
      LineSeries derived;
      derived.title = "derived";
      derived.x = c["layer"];
      derived.reference = true;
      derived.points = false;
      measured.y = c["act_ratio"];
      derived.y = c["derived_act_ratio"];
      fwd.lines.push_back(measured);
      fwd.lines.push_back(derived);
      measured.y = c["grad_ratio"];
      derived.y = c["derived_grad_ratio"];
      bwd.lines.push_back(measured);
      bwd.lines.push_back(derived);
      const size_t last = c.size() - 1;
      const auto number = [](double v) { return ReportTable::Cell(formatNumber(v, 3), v); };
      md.addRow({naive > 0 ? "naive N(0, sqrt(1/n))" : "N(0, sqrt(4p/n))", number(retains[i]),
                 number(c["act_ratio"][last]), number(c["derived_act_ratio"][last]),
                 number(c["grad_ratio"][0]), number(c["derived_grad_ratio"][0])});
      js.push_back({{"init", naive > 0 ? "naive" : "glu"},
                    {"retain", retains[i]},
                    {"forward_ratio", c["act_ratio"][last]},
                    {"derived_forward_ratio", c["derived_act_ratio"][last]},
                    {"backward_ratio", c["grad_ratio"][0]},
                    {"derived_backward_ratio", c["derived_grad_ratio"][0]}});
    }
  }
  fig.panels = {fwd, bwd};
  report.figure(fig, "variance_glu",
                "Activation (left) and gradient (right) variance through a gated-conv stack at "
                "initialization (log scale): the dropout-aware N(0, 4p/n) initialization of "
                "Gehring et al. (2017), App. A (solid) against naive N(0, 1/n) (dashed), one colour "
                "per retain probability p, dark grey dashed: derived; " +
                    samplesText(run, "/variance/glu") + ".");
  report.paragraph("Whole-stack ratios, measured vs derived (eq. 32-33: a factor n·Var[w]/(4p) "
                   "per block).");
  report.table(md, "variance_glu_stack", "Gated-conv stack at initialization: whole-stack variance ratios, measured and derived.");
  report.summary()["glu"] = js;
}

void buildVarianceReport(const RunReader& run, Report& report) {
  const auto& log = run.log();
  std::vector<std::string> inputs;
  if (log.exists("/variance/sru"))
    for (const auto& name : log.children("/variance/sru"))
      if (log.exists("/variance/sru/" + name + "/layers")) inputs.push_back(name);
  // Fixed order: synthetic first, then real data.
  const std::vector<std::string> order{"iid", "correlated", "sentences", "pretrained"};
  std::stable_sort(inputs.begin(), inputs.end(), [&](const auto& a, const auto& b) {
    return std::find(order.begin(), order.end(), a) < std::find(order.begin(), order.end(), b);
  });
  if (!inputs.empty()) {
    report.heading(2, "SRU: variance through depth at initialization (Lei et al. 2018, App. A, Figure 6)");
    report.paragraph(
        "For each layer, x is that layer's input (the previous layer's h). Var is the second "
        "moment over steps, sequences and units (every quantity has mean 0 over the random "
        "weights); ± is the standard error over independent sequences. Derived: 1/3 ≤ "
        "Var[c]/Var[x] ≤ 1 (eq. 5) and, from eq. 6, Var[h]/Var[x] in [(e^{2b}+3)/(3(e^b+1)^2), "
        "(e^{2b}+1)/(e^b+1)^2] without α; with α² = 1 + 2e^b added to the skip term the upper "
        "bound becomes 1.");
    nlohmann::json sru = nlohmann::json::object();
    for (const auto& input : inputs) sruInputSection(run, report, input, sru);
    report.heading(3, "Signal through depth");
    sruDepthFigure(run, report, inputs);
    assumptionsParagraph(run, report, inputs);
    report.summary()["sru"] = sru;
  }
  gluSection(run, report);
}

}  // namespace

void registerVarianceReport() {
  registerReport("variance",
                 "variance of SRU states and gated-conv activations/gradients at initialization",
                 buildVarianceReport);
}

}  // namespace recurlab::analysis
