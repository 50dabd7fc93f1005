// Report of `make bench`: recurlab's steps beside PyTorch's own modules, per case and thread
// count. Rates are medians over rounds; a ratio is the median of per-round ratios (the two sides
// of a round ran back to back, so they saw the same machine load); thread scaling pairs a
// round's 1-thread and 2-thread rates of our side.
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "analysis/report_registry.h"
#include "analysis/sample_statistics.h"

namespace recurlab::analysis {

namespace {

double smallest(const std::vector<double>& v) {
  return v.empty() ? std::nan("") : *std::min_element(v.begin(), v.end());
}

double largest(const std::vector<double>& v) {
  return v.empty() ? std::nan("") : *std::max_element(v.begin(), v.end());
}

struct CaseTimings {
  std::string name, title, unit, baseline, baseline_error;
  int64_t parameters = 0, baseline_parameters = 0;
  // threads -> side (0 recurlab, 1 PyTorch) -> round -> units per second
  std::map<int, std::map<int, std::map<int, double>>> rate;

  std::vector<double> rates(int threads, int side) const {
    std::vector<double> v;
    auto t = rate.find(threads);
    if (t == rate.end() || !t->second.count(side)) return v;
    for (const auto& [round, r] : t->second.at(side)) v.push_back(r);
    return v;
  }
  // Per-round a/b where both sides of a round were measured.
  std::vector<double> ratios(int threads) const {
    std::vector<double> v;
    auto t = rate.find(threads);
    if (t == rate.end() || !t->second.count(0) || !t->second.count(1)) return v;
    for (const auto& [round, ours] : t->second.at(0)) {
      auto it = t->second.at(1).find(round);
      if (it != t->second.at(1).end() && it->second > 0) v.push_back(ours / it->second);
    }
    return v;
  }
  std::vector<double> scaling(int from, int to) const {
    std::vector<double> v;
    if (!rate.count(from) || !rate.count(to) || !rate.at(from).count(0) || !rate.at(to).count(0))
      return v;
    for (const auto& [round, r_from] : rate.at(from).at(0)) {
      auto it = rate.at(to).at(0).find(round);
      if (it != rate.at(to).at(0).end() && r_from > 0) v.push_back(it->second / r_from);
    }
    return v;
  }
};

std::vector<CaseTimings> readCases(const experiments::Hdf5RunLog& log) {
  std::vector<CaseTimings> cases;
  if (!log.exists("/bench/cases")) return cases;
  auto groups = log.children("/bench/cases");
  std::sort(groups.begin(), groups.end(),
            [](const std::string& a, const std::string& b) { return std::stol(a) < std::stol(b); });
  for (const auto& g : groups) {
    const std::string group = "/bench/cases/" + g;
    if (!log.attribute(group, "status") || !log.exists(group + "/timings")) continue;
    CaseTimings c;
    c.name = log.stringAttribute(group, "case");
    c.title = log.stringAttribute(group, "title");
    c.unit = log.stringAttribute(group, "unit");
    c.baseline = log.stringAttribute(group, "baseline");
    c.baseline_error = log.stringAttribute(group, "baseline_error");
    c.parameters = log.intAttribute(group, "parameters");
    c.baseline_parameters = log.intAttribute(group, "baseline_parameters");
    const auto t = log.readTable(group + "/timings");
    const auto threads = t.column("threads"), side = t.column("side"), round = t.column("round"),
               seconds = t.column("seconds"), units = t.column("units");
    for (size_t i = 0; i < seconds.size(); ++i)
      if (seconds[i] > 0)
        c.rate[static_cast<int>(threads[i])][static_cast<int>(side[i])][static_cast<int>(round[i])] =
            units[i] / seconds[i];
    cases.push_back(c);
  }
  return cases;
}

std::string rateText(double v) { return std::isnan(v) ? "–" : formatNumber(v, 4); }

std::string ratioText(const std::vector<double>& v) {
  if (v.empty()) return "–";
  std::string text = formatNumber(median(v), 3) + "×";
  if (v.size() > 1)
    text += " (" + formatNumber(smallest(v), 3) + "–" + formatNumber(largest(v), 3) + ")";
  return text;
}

// "met by 1.52x ≥ 1.3" / "missed: 1.10x < 1.3" / "not measured".
std::string targetText(const std::vector<double>& v, double target) {
  if (v.empty()) return "not measured";
  const double m = median(v);
  return (m >= target ? "met: " : "missed: ") + formatNumber(m, 3) + "× " +
         (m >= target ? "≥ " : "< ") + formatNumber(target, 2) + " (median of " +
         std::to_string(v.size()) + " rounds, lowest " + formatNumber(smallest(v), 3) + "×)";
}

// How the rounds ran, on what machine, and whether PyTorch's side did.
void setupSection(const RunReader& run, Report& report) {
  const auto& log = run.log();
  const bool with_pytorch =
      log.exists("/bench") && log.intAttribute("/bench", "pytorch_available") != 0;
  auto benchText = [&](const char* name) {
    return log.exists("/bench") && log.attribute("/bench", name) ? log.stringAttribute("/bench", name)
                                                                  : std::string();
  };

  report.heading(2, "Bench: recurlab beside PyTorch");
  std::string machine = "Machine: " + benchText("cpu_model") + ", " + benchText("cores") +
                        " cores, load average " + benchText("load_average") +
                        " at the start; BLAS core " + run.rootText("blas_core") +
                        ", measured GEMM " +
                        run.rootText("gemm_gflops") + " GFLOP/s; LibTorch " +
                        run.rootText("libtorch_version") + ".";
  if (!benchText("thread_waits").empty())
    machine += " Idle threads (both sides): " + benchText("thread_waits") + ".";
  if (benchText("blas_threads") == "1")
    machine += " OpenBLAS ran on one thread on both sides at every thread count (--single-threaded-blas).";
  report.paragraph(
      "Each case ran in rounds: recurlab's step and PyTorch's counterpart, back to back, the "
      "same number of steps at the same thread count (LibTorch's intra-op threads and "
      "OpenBLAS's, on both sides), the order of the pair "
      "alternating between rounds (the first round after one untimed step on each side). "
      "Rates are medians over rounds; a ratio is the median of per-round ratios recurlab / "
      "PyTorch, with the lowest and highest round in brackets. " + machine);
  if (!with_pytorch)
    report.paragraph("**No PyTorch side**: " + benchText("pytorch_unavailable_reason") +
                     ". Only recurlab's rates are shown.");
  else
    report.paragraph("PyTorch " + benchText("pytorch_version") + " (Python), in its own process.");
}

// Rates of both sides and their ratio, per case and thread count: a table and a bar chart.
void ratioSection(const std::vector<CaseTimings>& cases, const std::vector<int>& thread_counts, Report& report) {
  ReportTable table({{"case", ReportTable::Align::Left},
                     {"unit", ReportTable::Align::Left},
                     {"threads"},
                     {"recurlab /s"},
                     {"PyTorch /s"},
                     {"ratio", ReportTable::Align::Right, ReportTable::Best::None},
                     {"baseline", ReportTable::Align::Left},
                     {"parameters (ours / theirs)"}});
  nlohmann::json summary_cases = nlohmann::json::object();
  Figure figure;
  Panel panel;
  panel.title = "recurlab / PyTorch, per case";
  panel.y.label = "speed ratio recurlab / PyTorch (×)";
  panel.x.label = "case";
  panel.levels.push_back({1.0, "1× = as fast as PyTorch"});
  for (int t : thread_counts) {
    BarSeries s;
    s.title = std::to_string(t) + (t == 1 ? " thread" : " threads");
    s.style = static_cast<int>(panel.bars.size());
    panel.bars.push_back(s);
  }
  for (const auto& c : cases) {
    nlohmann::json cs = {{"title", c.title}, {"unit", c.unit}, {"baseline", c.baseline},
                         {"parameters", c.parameters},
                         {"baseline_parameters", c.baseline_parameters}};
    bool any_ratio = false;
    std::vector<double> bar_values;
    for (int t : thread_counts) {
      const double ours = median(c.rates(t, 0)), theirs = median(c.rates(t, 1));
      const auto ratios = c.ratios(t);
      table.addRow({c.name, c.unit + "/s", std::to_string(t), {rateText(ours), ours},
                    {rateText(theirs), theirs},
                    {ratioText(ratios), ratios.empty() ? std::nan("") : median(ratios)},
                    c.baseline.empty() ? std::string("–") : c.baseline,
                    std::to_string(c.parameters) + " / " +
                        (c.baseline_parameters > 0 ? std::to_string(c.baseline_parameters) : "–")});
      const std::string key = std::to_string(t);
      cs["recurlab_per_second"][key] = ours;
      if (!std::isnan(theirs)) cs["pytorch_per_second"][key] = theirs;
      if (!ratios.empty()) {
        cs["ratio"][key] = median(ratios);
        any_ratio = true;
      }
      bar_values.push_back(ratios.empty() ? std::nan("") : median(ratios));
    }
    if (!c.baseline_error.empty()) cs["baseline_error"] = c.baseline_error;
    const auto scale = c.scaling(1, 2);
    if (!scale.empty()) cs["scaling_1_to_2"] = median(scale);
    summary_cases[c.name] = cs;
    if (any_ratio) {
      panel.categories.push_back(c.name);
      for (size_t i = 0; i < bar_values.size(); ++i) panel.bars[i].values.push_back(bar_values[i]);
    }
  }
  report.summary()["cases"] = summary_cases;
  report.table(table, "bench", "recurlab beside PyTorch: units per second, medians over rounds.");
  report.terminalTable("recurlab beside PyTorch (units per second)", table);
  if (!panel.categories.empty()) {
    figure.panels.push_back(panel);
    report.figure(figure, "bench_ratios",
                  "Speed of recurlab over PyTorch's counterpart per case and thread count "
                  "(median of per-round ratios; above 1: recurlab is faster).");
  }
}

void scalingSection(const std::vector<CaseTimings>& cases, Report& report) {
  ReportTable scaling({{"case", ReportTable::Align::Left}, {"recurlab 2 threads / 1 thread"}});
  for (const auto& c : cases) {
    const auto s = c.scaling(1, 2);
    if (!s.empty()) scaling.addRow({c.name, {ratioText(s), median(s)}});
  }
  if (scaling.rows() > 0) {
    report.heading(3, "Thread scaling of our side");
    report.table(scaling, "bench_scaling",
                 "recurlab's rate at 2 threads over its rate at 1, median of per-round ratios.");
  }
}

void targetSection(const std::vector<CaseTimings>& cases, const std::vector<int>& thread_counts, Report& report) {
  // The targets the bench was built to check.
  auto find = [&](const std::string& name) -> const CaseTimings* {
    for (const auto& c : cases)
      if (c.name == name) return &c;
    return nullptr;
  };
  std::vector<std::string> targets;
  nlohmann::json summary_targets = nlohmann::json::object();
  auto target = [&](const std::string& label, const std::string& key, const std::vector<double>& v,
                    double goal) {
    targets.push_back(label + ": " + targetText(v, goal));
    summary_targets[key] = {{"goal", goal}, {"met", !v.empty() && median(v) >= goal}};
    if (!v.empty()) summary_targets[key]["value"] = median(v);
  };
  if (const auto* mt = find("mt_train"))
    for (int t : thread_counts)
      target("MT training, " + std::to_string(t) + " thread" + (t > 1 ? "s" : "") +
                 ", target tokens/s over nn.Transformer ≥ 1.3×",
             "mt_train_t" + std::to_string(t), mt->ratios(t), 1.3);
  if (const auto* lm = find("lm_sru_vs_lstm"))
    for (int t : thread_counts)
      target("SRU LM over nn.LSTM LM at equal parameters, " + std::to_string(t) + " thread" +
                 (t > 1 ? "s" : "") + ", characters/s ≥ 2×",
             "lm_sru_vs_lstm_t" + std::to_string(t), lm->ratios(t), 2.0);
  for (const char* name : {"lm_sru_vs_lstm", "cls_sru"})
    if (const auto* c = find(name))
      target(std::string("SRU thread scaling (") + name + "), 2 threads / 1 ≥ 1.6×",
             std::string("scaling_") + name, c->scaling(1, 2), 1.6);
  if (!targets.empty()) {
    report.heading(3, "Targets");
    report.bullets(targets);
  }
  report.summary()["targets"] = summary_targets;
}

void buildBenchReport(const RunReader& run, Report& report) {
  const auto& log = run.log();
  const auto cases = readCases(log);
  std::vector<int> thread_counts;
  for (const auto& c : cases)
    for (const auto& [t, sides] : c.rate)
      if (std::find(thread_counts.begin(), thread_counts.end(), t) == thread_counts.end())
        thread_counts.push_back(t);
  std::sort(thread_counts.begin(), thread_counts.end());
  setupSection(run, report);
  ratioSection(cases, thread_counts, report);
  scalingSection(cases, report);
  targetSection(cases, thread_counts, report);
}

}  // namespace

void registerBenchReport() {
  registerReport("bench", "recurlab's training and decoding steps beside PyTorch's own modules",
                 buildBenchReport);
}

}  // namespace recurlab::analysis
