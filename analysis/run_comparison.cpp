#include "analysis/run_comparison.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "analysis/number_format.h"
#include "analysis/report.h"
#include "analysis/report_registry.h"
#include "analysis/run_reader.h"
#include "analysis/sample_statistics.h"

namespace recurlab::analysis {
namespace {

namespace fs = std::filesystem;

void addIfNumber(std::vector<MetricValue>& out, const std::string& model,
                 const std::string& metric, const nlohmann::json& value) {
  if (value.is_number() && std::isfinite(value.get<double>()))
    out.push_back({model, metric, value.get<double>()});
}

double sampleStd(const std::vector<double>& xs, double mean) {
  if (xs.size() < 2) return NAN;
  double ss = 0;
  for (double x : xs) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / static_cast<double>(xs.size() - 1));
}

std::string meanStdText(const ComparisonRow& row) {
  return std::isfinite(row.std) ? formatWithError(row.mean, row.std) : formatNumber(row.mean, 4);
}

}  // namespace

std::vector<MetricValue> headlineMetrics(const std::string& experiment,
                                         const nlohmann::json& summary) {
  std::vector<MetricValue> out;
  if (experiment == "classification" && summary.contains("accuracy")) {
    for (const auto& [dataset, models] : summary["accuracy"].items())
      for (const auto& [model, stats] : models.items())
        // A cell of a run still training (fewer folds and seeds than planned) is no result.
        if (stats.is_object() && stats.contains("mean") &&
            stats.value("n", 0) >= stats.value("planned", 0))
          addIfNumber(out, model, "test accuracy % (" + dataset + ")", stats["mean"]);
  }
  if (experiment == "synthetic" && summary.contains("synthetic") && summary["synthetic"].is_array()) {
    for (const auto& cell : summary["synthetic"]) {
      // A cell with fewer finished units (rates × seeds) than planned is no result yet.
      if (!cell.is_object() || cell.value("units", 0) < cell.value("planned", 0)) continue;
      const std::string where = cell.value("task", std::string("?")) + ", width " +
                                std::to_string(cell.value("width", int64_t{0}));
      if (cell.contains("test_acc") && cell["test_acc"].is_number())
        addIfNumber(out, cell.value("model", std::string("?")), "test accuracy % (" + where + ")",
                    100.0 * cell["test_acc"].get<double>());
    }
  }
  if (!summary.contains("models") || !summary["models"].is_object()) return out;
  for (const auto& [model, s] : summary["models"].items()) {
    // A model still training (a snapshot of a running run) is no result to compare.
    if (!s.is_object() || s.value("status", std::string()) == "running") continue;
    if (experiment == "lm") {
      const std::string unit = s.value("metric", std::string("loss"));
      if (s.contains("test")) addIfNumber(out, model, "test " + unit, s["test"]);
      if (s.contains("valid")) addIfNumber(out, model, "valid " + unit, s["valid"]);
    } else if (experiment == "mt") {
      for (const auto& [key, metric] :
           std::vector<std::pair<std::string, std::string>>{
               {"test_bleu", "test BLEU"},
               {"test_bleu_tok_lc", "test BLEU (tokenized, lowercased)"},
               {"best_valid_bleu", "best valid BLEU"}})
        if (s.contains(key)) addIfNumber(out, model, metric, s[key]);
    } else if (experiment == "qa") {
      if (s.contains("dev_em")) addIfNumber(out, model, "dev EM (%)", s["dev_em"]);
      if (s.contains("dev_f1")) addIfNumber(out, model, "dev F1 (%)", s["dev_f1"]);
    }
  }
  return out;
}

RunMetrics readRunMetrics(const std::string& run_dir) {
  const RunReader reader(run_dir);
  RunMetrics r;
  r.run = run_dir;
  r.experiment = reader.experiment();
  r.seed = reader.rootText("seed");
  r.start_time = reader.rootText("start_time");
  nlohmann::json config = reader.config();
  if (config.is_object()) config.erase("seed");
  r.config = config.dump();
  const std::string summary_path = (fs::path(reader.runDirectory()) / "summary.json").string();
  if (!fs::exists(summary_path)) analyzeRun(run_dir);
  std::ifstream in(summary_path);
  if (!in) throw std::runtime_error(summary_path + ": cannot open (recurlab_analyze writes it)");
  nlohmann::json summary;
  try {
    summary = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(summary_path + ": not valid JSON: " + e.what());
  }
  r.values = headlineMetrics(r.experiment, summary);
  return r;
}

double signFlipPValue(const std::vector<double>& differences) {
  const size_t n = differences.size();
  if (n > 20)
    throw std::invalid_argument("signFlipPValue: " + std::to_string(n) +
                                " pairs; the exact test enumerates 2^n signs, n <= 20");
  double observed = 0, scale = 0;
  for (double d : differences) {
    observed += d;
    scale += std::abs(d);
  }
  const double threshold = std::abs(observed) - 1e-12 * scale;  // ties count as extreme
  const uint64_t assignments = uint64_t{1} << n;
  uint64_t extreme = 0;
  for (uint64_t signs = 0; signs < assignments; ++signs) {
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum += (signs >> i & 1) ? -differences[i] : differences[i];
    if (std::abs(sum) >= threshold) ++extreme;
  }
  return static_cast<double>(extreme) / static_cast<double>(assignments);
}

Comparison compareRuns(const std::vector<RunMetrics>& runs) {
  Comparison c;
  // A model trained under several configs gets one row per config, labelled by its index.
  std::map<std::string, std::set<std::string>> configs_of_model;
  for (const auto& r : runs)
    for (const auto& v : r.values) configs_of_model[v.model].insert(r.config);
  std::map<std::string, size_t> config_index;
  for (const auto& r : runs) {
    if (config_index.count(r.config)) continue;
    config_index[r.config] = c.configs.size();
    c.configs.push_back(r.config);
  }
  // Metrics in the order the runs give them (a synthetic run's widths rise: 64 before 128),
  // each metric's rows by label.
  std::map<std::string, size_t> metric_order;
  for (const auto& r : runs)
    for (const auto& v : r.values) metric_order.emplace(v.metric, metric_order.size());
  std::map<std::pair<size_t, std::string>, ComparisonRow> rows;
  for (const auto& r : runs)
    for (const auto& v : r.values) {
      std::string config_name;
      if (configs_of_model[v.model].size() > 1)
        config_name = "config " + std::to_string(config_index[r.config] + 1);
      const std::string label = config_name.empty() ? v.model : v.model + " [" + config_name + "]";
      auto& row = rows[{metric_order.at(v.metric), label}];
      row.metric = v.metric;
      row.label = label;
      row.model = v.model;
      row.config_name = config_name;
      row.config_index = config_index[r.config];
      row.values.push_back(v.value);
      row.seeds.push_back(r.seed);
      row.runs.push_back(r.run);
    }
  for (auto& [key, row] : rows) {
    row.mean = mean(row.values);
    row.std = sampleStd(row.values, row.mean);
    c.rows.push_back(row);
  }
  if (std::all_of(configs_of_model.begin(), configs_of_model.end(),
                  [](const auto& m) { return m.second.size() < 2; }))
    c.configs.clear();
  // Pairs: rows of one metric with the same seeds (each seed once per row).
  for (size_t i = 0; i < c.rows.size(); ++i)
    for (size_t j = i + 1; j < c.rows.size(); ++j) {
      const auto& a = c.rows[i];
      const auto& b = c.rows[j];
      if (a.metric != b.metric) continue;
      std::map<std::string, double> by_seed_a, by_seed_b;
      bool unique = true;
      for (size_t k = 0; k < a.seeds.size(); ++k)
        unique &= !a.seeds[k].empty() && by_seed_a.emplace(a.seeds[k], a.values[k]).second;
      for (size_t k = 0; k < b.seeds.size(); ++k)
        unique &= !b.seeds[k].empty() && by_seed_b.emplace(b.seeds[k], b.values[k]).second;
      if (!unique) continue;
      std::vector<double> differences;
      for (const auto& [seed, x] : by_seed_a)
        if (by_seed_b.count(seed)) differences.push_back(x - by_seed_b[seed]);
      if (differences.size() < 2 || differences.size() > 20) continue;
      PairedComparison p;
      p.metric = a.metric;
      p.first = a.label;
      p.second = b.label;
      p.pairs = differences.size();
      for (double d : differences) p.mean_difference += d / static_cast<double>(p.pairs);
      p.p_value = signFlipPValue(differences);
      c.paired.push_back(p);
    }
  return c;
}

namespace {

// Mean ± std of each headline metric per model and config.
void headlineTable(const Comparison& comparison, Report& report) {
  ReportTable table({{"metric", ReportTable::Align::Left},
                     {"model", ReportTable::Align::Left},
                     {"mean ± std"},
                     {"n"},
                     {"seeds", ReportTable::Align::Left}});
  for (const auto& row : comparison.rows) {
    std::string seeds;
    for (const auto& s : row.seeds) seeds += (seeds.empty() ? "" : ", ") + (s.empty() ? "?" : s);
    table.addRow({row.metric, row.label, {meanStdText(row), row.mean, row.std},
                  {std::to_string(row.values.size()), static_cast<double>(row.values.size())},
                  seeds});
  }
  report.table(table, "compare", "Headline metrics across runs and seeds (mean ± std).");
}

// Rows of one metric under the same seeds, compared seed by seed.
void pairedSection(const Comparison& comparison, Report& report) {
  if (!comparison.paired.empty()) {
    report.heading(2, "Paired comparisons");
    report.paragraph(
        "Rows of one metric measured under the same seeds, compared seed by seed: the mean "
        "difference (first − second) and the exact two-sided p-value of the paired "
        "randomization test (every sign assignment of the differences; Fisher 1935). With n "
        "pairs the smallest possible p is 2/2^n.");
    ReportTable paired({{"metric", ReportTable::Align::Left},
                        {"first", ReportTable::Align::Left},
                        {"second", ReportTable::Align::Left},
                        {"pairs"},
                        {"mean difference"},
                        {"p"}});
    for (const auto& p : comparison.paired)
      paired.addRow({p.metric, p.first, p.second,
                     {std::to_string(p.pairs), static_cast<double>(p.pairs)},
                     {formatNumber(p.mean_difference, 3), p.mean_difference},
                     {formatNumber(p.p_value, 3), p.p_value}});
    report.table(paired, "compare_paired", "Paired randomization tests between rows.");
  }
}

void comparisonFigure(const Comparison& comparison, size_t run_count, Report& report) {
  // One panel per metric: a group of bars per model, a bar per config (a key when several).
  Figure figure;
  // Where some model ran under several configs, a bar per config for every model (one only
  // under config 1 is drawn and keyed as config 1, though its table label names none).
  const auto groupOf = [&](const ComparisonRow& row) {
    return comparison.configs.empty() ? std::string() : "config " + std::to_string(row.config_index + 1);
  };
  std::vector<std::string> metrics, config_names;
  for (const auto& row : comparison.rows) {
    if (std::find(metrics.begin(), metrics.end(), row.metric) == metrics.end())
      metrics.push_back(row.metric);
    if (std::find(config_names.begin(), config_names.end(), groupOf(row)) == config_names.end())
      config_names.push_back(groupOf(row));
  }
  std::sort(config_names.begin(), config_names.end());
  // A key only tells configs apart; the caption says what a bar and its error bar are.
  figure.shared_key = config_names.size() > 1;
  for (const auto& metric : metrics) {
    Panel panel;
    panel.title = metric;
    panel.y.label = metric;
    for (const auto& row : comparison.rows)
      if (row.metric == metric &&
          std::find(panel.categories.begin(), panel.categories.end(), row.model) ==
              panel.categories.end())
        panel.categories.push_back(row.model);
    for (size_t k = 0; k < config_names.size(); ++k) {
      BarSeries bars;
      bars.title = figure.shared_key ? config_names[k] : "";
      bars.style = static_cast<int>(k);
      bool any = false;
      for (const auto& model : panel.categories) {
        double value = NAN, error = 0;
        for (const auto& row : comparison.rows)
          if (row.metric == metric && row.model == model && groupOf(row) == config_names[k]) {
            value = row.mean;
            error = std::isfinite(row.std) ? row.std : 0.0;
            any = true;
          }
        bars.values.push_back(value);
        bars.errors.push_back(error);
      }
      if (any) panel.bars.push_back(bars);
    }
    if (config_names.size() < 2) panel.key = KeyPlacement::Off;
    figure.panels.push_back(panel);
  }
  // Panels wide enough for a metric's title (synthetic runs have one per task and width).
  figure.width = std::max(1000, 420 * gridColumns(figure.panels.size()));
  figure.height = sharedKeyGridHeight(figure.panels.size());
  if (!figure.panels.empty())
    report.figure(figure, "compare",
                  "Mean ± standard deviation of each headline metric over " +
                      std::to_string(run_count) +
                      " runs, one panel per metric, a bar per model and config.");
}

// The runs compared, and their configs.
void runsSection(const Comparison& comparison, const std::vector<RunMetrics>& runs, Report& report) {
  report.heading(2, "Runs");
  std::vector<std::string> lines;
  std::map<std::string, size_t> config_index;
  for (size_t k = 0; k < comparison.configs.size(); ++k) config_index[comparison.configs[k]] = k;
  for (const auto& r : runs) {
    std::string line = "`" + r.run + "`: " + r.experiment + ", seed " +
                       (r.seed.empty() ? "?" : r.seed) + ", " +
                       std::to_string(r.values.size()) + " headline values";
    if (config_index.count(r.config))
      line += ", config " + std::to_string(config_index[r.config] + 1);
    lines.push_back(line);
  }
  report.bullets(lines);
  if (!comparison.configs.empty()) {
    report.paragraph("The configs (seed left out):");
    for (size_t k = 0; k < comparison.configs.size(); ++k)
      report.code("config " + std::to_string(k + 1) + ": " + comparison.configs[k], "json");
  }
}

}  // namespace

std::vector<std::string> writeComparison(const Comparison& comparison,
                                         const std::vector<RunMetrics>& runs,
                                         const std::string& out_dir) {
  fs::create_directories(out_dir);
  Report report(out_dir);
  // The PDF's creation date: the newest start of the compared runs, not the clock, so that
  // comparing the same runs again (make figures) gives the same bytes.
  std::string newest_start;
  for (const auto& r : runs) newest_start = std::max(newest_start, r.start_time);
  report.setFigureDate(newest_start);
  report.heading(1, "Comparison of " + std::to_string(runs.size()) + " runs");
  report.paragraph(
      "Headline metrics of each run (from its summary.json), mean ± sample standard deviation "
      "over the runs of one model and configuration (runs whose configs differ only in the "
      "seed); n runs, their seeds listed.");
  headlineTable(comparison, report);
  pairedSection(comparison, report);
  comparisonFigure(comparison, runs.size(), report);
  runsSection(comparison, runs, report);
  const std::string md = (fs::path(out_dir) / "compare.md").string();
  std::ofstream out(md);
  out << report.markdown();
  out.close();
  if (!out) throw std::runtime_error("cannot write " + md);
  // The runs as given, one per line: `make figures` compares them again from this file.
  const std::string list = (fs::path(out_dir) / kComparedRunsFile).string();
  std::ofstream runs_out(list);
  for (const auto& r : runs) runs_out << r.run << "\n";
  runs_out.close();
  if (!runs_out) throw std::runtime_error("cannot write " + list);
  std::vector<std::string> files = report.files();
  files.push_back(md);
  files.push_back(list);
  return files;
}

}  // namespace recurlab::analysis
