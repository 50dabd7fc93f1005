#pragma once
// recurlab_compare: the headline metrics of several runs side by side (docs/compare.md).
// Each run contributes one value per (model, metric) from its summary.json (the one
// recurlab_analyze writes; made first where it is missing). Runs whose configs differ only in
// the seed are seeds of one configuration: a row gives the mean ± sample standard deviation
// over them. Two rows of one metric measured under the same seeds are paired, and get an exact
// paired randomization (sign-flip) test of their per-seed differences.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace recurlab::analysis {

struct MetricValue {
  std::string model, metric;
  double value = 0;
};

struct RunMetrics {
  std::string run;         // the folder as given
  std::string experiment;  // root attribute "experiment"
  std::string config;      // the run's config without its seed keys, as JSON text
  std::string seed;        // root attribute "seed" as text ("" if absent)
  std::string start_time;  // root attribute "start_time" (UTC, ISO 8601; "" if absent)
  std::vector<MetricValue> values;
};

// The headline metrics of one experiment kind's summary.json: classification test accuracy per
// dataset, LM test and valid BPC or perplexity, MT test BLEU (sacreBLEU, and the tokenized
// lowercased one where logged) and best valid BLEU, QA dev EM and F1, synthetic test accuracy
// (%) per task and width at the cell's best learning rate. Other kinds: none. Models still
// training (status "running" in a snapshot of a live run; classification and synthetic cells
// with fewer finished units than planned) are left out.
std::vector<MetricValue> headlineMetrics(const std::string& experiment,
                                         const nlohmann::json& summary);

// Reads a run folder (its log.h5 and summary.json; runs the report first when summary.json
// is missing).
RunMetrics readRunMetrics(const std::string& run_dir);

struct ComparisonRow {
  std::string metric, label;  // label: the model, with "[config k]" where configs differ
  std::string model;
  std::string config_name;    // "config k" where the model has several configs, else ""
  size_t config_index = 0;    // k - 1: its runs' config among the compared runs' distinct ones
  double mean = 0, std = 0;   // std: NaN for a single run
  std::vector<std::string> seeds;  // one per run, in the order of `values`
  std::vector<double> values;
  std::vector<std::string> runs;
};

struct PairedComparison {
  std::string metric, first, second;  // row labels
  size_t pairs = 0;                   // seeds both rows have
  double mean_difference = 0;         // first - second
  double p_value = 1;                 // exact two-sided sign-flip test
};

struct Comparison {
  std::vector<ComparisonRow> rows;      // by metric (as the runs first give them), then label
  std::vector<PairedComparison> paired;
  std::vector<std::string> configs;     // "config k" texts, k = index + 1, where configs differ
};

Comparison compareRuns(const std::vector<RunMetrics>& runs);

// The exact two-sided p-value of the paired randomization test: the share of the 2^n sign
// assignments of the differences whose mean is at least as far from 0 as the observed one
// (Fisher 1935; n <= 20, else std::invalid_argument).
double signFlipPValue(const std::vector<double>& differences);

// The compared run folders as given, one per line, beside compare.md.
inline constexpr const char* kComparedRunsFile = "runs.txt";

// compare.md, compare.csv (and .tex), the figure compare.png (.pdf, .gp, .dat) and runs.txt
// in out_dir. Returns the files written.
std::vector<std::string> writeComparison(const Comparison& comparison,
                                         const std::vector<RunMetrics>& runs,
                                         const std::string& out_dir);

}  // namespace recurlab::analysis
