// Report of `make exp-speed`: time per forward+backward step of every model, side
// by side; ratios are medians of per-repetition ratios (models ran round-robin, so each
// repetition's pair saw the same machine load).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "analysis/report_registry.h"
#include "analysis/sample_statistics.h"

namespace recurlab::analysis {

namespace {

using Key = std::tuple<int, int64_t, int64_t, int64_t>;  // study, length, hidden, batch

struct Timings {
  std::map<Key, std::map<int, std::map<int, double>>> seconds;  // shape -> model -> repeat -> s
  std::map<Key, std::map<int, double>> kernel_bytes;
};

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const double pos = q * (v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

std::vector<double> values(const std::map<int, double>& by_repeat) {
  std::vector<double> v;
  for (const auto& [r, t] : by_repeat) v.push_back(t);
  return v;
}

// Median over repetitions of t_a / t_b, pairing the same repetition.
double pairedRatio(const std::map<int, double>& a, const std::map<int, double>& b) {
  std::vector<double> r;
  for (const auto& [rep, ta] : a) {
    auto it = b.find(rep);
    if (it != b.end() && it->second > 0) r.push_back(ta / it->second);
  }
  return median(r);
}

std::string shapeName(const Key& k) {
  std::ostringstream s;
  s << "l=" << std::get<1>(k) << ", d=" << std::get<2>(k) << ", batch " << std::get<3>(k);
  return s.str();
}

// Sweep panels: models grouped by family so that no panel holds more than a handful of lines.
constexpr int kFamilies = 4;
const char* const kFamilyNames[kFamilies] = {"SRU, its parts and the LSTM",
                                             "QRNN and rational recurrences",
                                             "gated convolutions, Self-IRU and others",
                                             "linear recurrences (2023-2025) and their op"};

int modelFamily(const std::string& encoder) {
  for (const char* linear : {"sru_linear", "min_gru", "min_lstm", "rg_lru", "hgrn", "gla",
                             "linear_recurrence_kernel"})
    if (encoder == linear) return 3;
  if (encoder.rfind("sru", 0) == 0 || encoder == "lstm") return 0;
  if (encoder == "qrnn" || encoder.rfind("rrnn", 0) == 0 || encoder == "ngram") return 1;
  return 2;
}

int findModel(const std::vector<std::string>& encoders, const std::string& name) {
  for (size_t i = 0; i < encoders.size(); ++i)
    if (encoders[i] == name) return static_cast<int>(i);
  return -1;
}

// Every shape's timings (one unit each, /speed/shapes/<i>/timings, in shape order) as one
// table; a finished shape only (status written), so a run cut off mid-shape reports the rest.
experiments::Table speedTimings(const experiments::Hdf5RunLog& log) {
  experiments::Table all;
  all.columns = {"study", "length", "hidden", "batch", "model", "repeat", "seconds", "kernel_bytes"};
  if (!log.exists("/speed/shapes")) return all;
  auto shapes = log.children("/speed/shapes");
  std::sort(shapes.begin(), shapes.end(),
            [](const std::string& a, const std::string& b) { return std::stol(a) < std::stol(b); });
  for (const auto& s : shapes) {
    const std::string group = "/speed/shapes/" + s;
    if (!log.attribute(group, "status") || !log.exists(group + "/timings")) continue;
    const auto t = log.readTable(group + "/timings");
    all.rows.insert(all.rows.end(), t.rows.begin(), t.rows.end());
  }
  return all;
}

// What the sections read: the models, the timings and where the SRU's rows are.
struct SpeedRun {
  std::vector<std::string> labels, encoders;  // per model index
  double copy_gbs = 0;
  bool on_gpu = false;
  Timings timings;
  int sru = -1, lstm = -1, floor = -1;  // model indices (-1: not timed)
};

// The rows that time an elementwise kernel alone (their bandwidth is reported), with the name
// of their summary keys: the SRU's and the linear recurrences' op.
std::vector<std::pair<int, std::string>> kernelRows(const SpeedRun& speed) {
  std::vector<std::pair<int, std::string>> rows;
  for (const char* name : {"sru_kernel", "linear_recurrence_kernel"}) {
    const int m = findModel(speed.encoders, name);
    if (m >= 0) rows.emplace_back(m, name);
  }
  return rows;
}

// How the timings were taken, and what was not timed.
void setupSection(const RunReader& run, const SpeedRun& speed, Report& report) {
  const auto& log = run.log();
  const double copy_gbs = speed.copy_gbs;
  report.heading(2, "Speed: forward + backward per layer");
  report.paragraph(
      "Every model ran in the same process, round-robin with a rotating start, warm-up "
      "excluded; times are medians over repetitions with the 10-90% range. Ratios are medians "
      "of per-repetition ratios. Device: " + run.rootText("device") + ", precision " +
      run.config().value("precision", std::string("fp32")) + ", " +
      run.rootText("threads") + " threads, BLAS core " + run.rootText("blas_core") +
      ", measured GEMM " + formatNumber(std::stod(run.rootText("gemm_gflops").empty()
                                                     ? "0"
                                                     : run.rootText("gemm_gflops")),
                                        4) +
      " GFLOP/s, copy bandwidth " + formatNumber(copy_gbs, 4) + " GB/s.");
  const std::string skipped = log.stringAttribute("/speed", "skipped");
  if (!skipped.empty()) {
    std::vector<std::string> items;
    std::istringstream lines(skipped);
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) items.push_back(line);
    report.paragraph("Not timed (not registered in this build):");
    report.bullets(items);
  }
}

// One table per main shape, each model against the SRU, and the targets.
void mainSizesSection(const SpeedRun& speed, Report& report) {
  const auto& labels = speed.labels;
  const double copy_gbs = speed.copy_gbs;
  const bool on_gpu = speed.on_gpu;
  auto tm = speed.timings;
  const int sru = speed.sru;
  const int lstm = speed.lstm;
  const int floor = speed.floor;
  nlohmann::json summary_shapes = nlohmann::json::array();
  for (const auto& [key, by_model] : tm.seconds) {
    if (std::get<0>(key) != 0) continue;
    report.heading(3, shapeName(key));
    // No "best" mark: the SRU's parts (matmuls, kernel) are not models. No ratio column
    // where the SRU was not timed.
    const bool beside_sru = sru >= 0 && by_model.count(sru);
    std::vector<ReportTable::Column> columns = {
        {"model", ReportTable::Align::Left}, {"median ms"}, {"10-90% ms"}};
    if (beside_sru) columns.push_back({"× SRU"});
    ReportTable t(columns);
    nlohmann::json shape_summary = {{"length", std::get<1>(key)},
                                    {"hidden", std::get<2>(key)},
                                    {"batch", std::get<3>(key)}};
    for (const auto& [m, reps] : by_model) {
      const auto v = values(reps);
      std::vector<ReportTable::Cell> row = {
          labels[m], {formatNumber(median(v) * 1e3, 4), median(v) * 1e3},
          formatNumber(quantile(v, 0.1) * 1e3, 3) + " – " + formatNumber(quantile(v, 0.9) * 1e3, 3)};
      if (beside_sru) {
        const double ratio = pairedRatio(reps, by_model.at(sru));
        row.push_back({formatNumber(ratio, 3), ratio});
      }
      t.addRow(row);
      shape_summary["median_ms"][labels[m]] = median(v) * 1e3;
    }
    report.terminalTable("Forward + backward ms per layer at " + shapeName(key), t);
    report.table(t, "speed_l" + std::to_string(std::get<1>(key)) + "_d" +
                        std::to_string(std::get<2>(key)) + "_batch" + std::to_string(std::get<3>(key)),
                 "Forward + backward time per layer at " + shapeName(key) + ", median over " +
                     std::to_string(by_model.begin()->second.size()) +
                     " repetitions.");
    std::vector<std::string> lines;
    if (sru >= 0 && lstm >= 0 && by_model.count(sru) && by_model.count(lstm)) {
      const double r = pairedRatio(by_model.at(lstm), by_model.at(sru));
      shape_summary["lstm_over_sru"] = r;
      lines.push_back("LSTM / SRU = " + formatNumber(r, 3) + " (target ≥ 10: " +
                      (r >= 10 ? "met" : "missed") + ")");
    }
    if (sru >= 0 && floor >= 0 && by_model.count(sru) && by_model.count(floor)) {
      const double r = pairedRatio(by_model.at(sru), by_model.at(floor));
      shape_summary["sru_over_matmuls"] = r;
      if (!on_gpu)
        lines.push_back("SRU layer / its matmuls alone = " + formatNumber(r, 3) +
                        " (target ≤ 1.3: " + (r <= 1.3 ? "met" : "missed") + ")");
      else
        lines.push_back("SRU layer / its matmuls alone = " + formatNumber(r, 3));
    }
    for (const auto& [m, name] : kernelRows(speed)) {
      if (!by_model.count(m)) continue;
      const double gbs = tm.kernel_bytes[key][m] / median(values(by_model.at(m))) / 1e9;
      shape_summary[name + "_gbs"] = gbs;
      shape_summary[name + "_fraction_of_copy"] = gbs / copy_gbs;
      lines.push_back(labels[m] + " (forward + backward): " + formatNumber(gbs, 3) + " GB/s = " +
                      formatNumber(100 * gbs / copy_gbs, 3) +
                      "% of the measured copy bandwidth" +
                      (on_gpu ? std::string(" (target ≥ 70%: ") +
                                    (gbs / copy_gbs >= 0.7 ? "met" : "missed") + ")"
                              : std::string()));
    }
    if (!lines.empty()) report.bullets(lines);
    summary_shapes.push_back(shape_summary);
  }
  report.summary()["main_sizes"] = summary_shapes;
  report.summary()["copy_bandwidth_gbs"] = copy_gbs;
}

void sweepSection(const SpeedRun& speed, Report& report) {
  const auto& labels = speed.labels;
  const auto& encoders = speed.encoders;
  auto tm = speed.timings;
  const int sru = speed.sru;
  // Sweeps: how cost grows with sequence length and with batch size. Twenty lines on one panel
  // cannot be read: one panel per family of models, each beside the SRU.
  for (int s : {1, 2}) {
    std::string fixed_part;
    std::map<int, LineSeries> series;
    size_t repeats = 0;
    for (const auto& [key, by_model] : tm.seconds) {
      if (std::get<0>(key) != s) continue;
      fixed_part = s == 1 ? "d=" + std::to_string(std::get<2>(key)) + ", batch " +
                                std::to_string(std::get<3>(key))
                          : "l=" + std::to_string(std::get<1>(key)) + ", d=" +
                                std::to_string(std::get<2>(key));
      for (const auto& [m, reps] : by_model) {
        LineSeries& se = series[m];
        se.title = labels[m];
        se.x.push_back(static_cast<double>(s == 1 ? std::get<1>(key) : std::get<3>(key)));
        se.y.push_back(median(values(reps)) * 1e3);
        repeats = std::max(repeats, reps.size());
      }
    }
    if (series.empty()) continue;
    Figure fig;
    for (int family = 0; family < kFamilies; ++family) {
      Panel panel;
      panel.title = kFamilyNames[family];
      panel.x.label = s == 1 ? "sequence length l" : "batch size";
      panel.x.scale = AxisScale::Log2;
      panel.y.label = "forward + backward (ms)";
      panel.y.scale = AxisScale::Log10;
      int style = 0;
      for (const auto& [m, se] : series) {
        if (modelFamily(encoders[m]) != family) continue;
        LineSeries line = se;
        line.style = style++;
        panel.lines.push_back(line);
      }
      if (panel.lines.empty()) continue;
      if (family != 0 && sru >= 0 && series.count(sru)) {
        LineSeries reference = series.at(sru);
        reference.title = labels[sru] + " (reference)";
        reference.reference = true;
        reference.points = false;
        panel.lines.push_back(reference);
      }
      fig.panels.push_back(panel);
    }
    // Stacked, each with its key on the right: the same x axis reads down the column.
    fig.columns = 1;
    fig.width = 900;
    fig.height = 300 * static_cast<int>(fig.panels.size());
    const std::string stem = s == 1 ? "speed_vs_length" : "speed_vs_batch";
    report.heading(3, s == 1 ? "Sequence-length sweep" : "Batch sweep");
    report.figure(fig, stem,
                  std::string("Forward + backward time per layer against ") +
                      (s == 1 ? "sequence length" : "batch size") + " (" + fixed_part +
                      "; both axes logarithmic), one panel per family of models with the SRU as "
                      "the dashed reference; each point the median of " +
                      std::to_string(repeats) + " timed repetitions of " +
                      std::to_string(series.size()) + " models run round-robin in one process.");
  }
}

void buildSpeedReport(const RunReader& run, Report& report) {
  const auto& log = run.log();
  SpeedRun speed;
  const auto models = nlohmann::json::parse(log.stringAttribute("/speed", "models"));
  for (const auto& m : models) {
    speed.labels.push_back(m.at("label").get<std::string>());
    speed.encoders.push_back(m.at("encoder").get<std::string>());
  }
  speed.copy_gbs = log.doubleAttribute("/speed", "copy_bandwidth_gbs");
  speed.on_gpu = run.rootText("device").rfind("cuda", 0) == 0;
  const auto table = speedTimings(log);
  const auto study = table.column("study"), length = table.column("length"),
             hidden = table.column("hidden"), batch = table.column("batch"),
             model = table.column("model"), repeat = table.column("repeat"),
             secs = table.column("seconds"), bytes = table.column("kernel_bytes");
  for (size_t i = 0; i < secs.size(); ++i) {
    const Key k{static_cast<int>(study[i]), static_cast<int64_t>(length[i]),
                static_cast<int64_t>(hidden[i]), static_cast<int64_t>(batch[i])};
    speed.timings.seconds[k][static_cast<int>(model[i])][static_cast<int>(repeat[i])] = secs[i];
    speed.timings.kernel_bytes[k][static_cast<int>(model[i])] = bytes[i];
  }
  speed.sru = findModel(speed.encoders, "sru");
  speed.lstm = findModel(speed.encoders, "lstm");
  speed.floor = findModel(speed.encoders, "sru_matmul");
  setupSection(run, speed, report);
  mainSizesSection(speed, report);
  sweepSection(speed, report);
}

}  // namespace

void registerSpeedReport() {
  registerReport("speed", "forward+backward time per layer, side by side", buildSpeedReport);
}

}  // namespace recurlab::analysis
