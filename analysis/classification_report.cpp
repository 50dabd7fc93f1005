// Report for `recurlab_classification` runs (experiment kind "classification"): the accuracy
// table (mean ± std over folds and seeds, the paper's numbers beside ours), search trials,
// learning curves and time per epoch. Reads every log of the run folder (log.h5 and the
// log.shard-i-of-n.h5 of a sharded run) and merges their units.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "analysis/report_registry.h"
#include "analysis/run_reader.h"

namespace recurlab::analysis {
namespace {

using experiments::Hdf5RunLog;

// Paper anchors: Kim (2014) CNN-rand (no pretrained vectors) and SRU's best
// rows (Lei et al. 2018, with word2vec). SST-5 is Kim's SST-1.
const std::vector<std::string> kDatasetOrder = {"MR", "CR", "SUBJ", "MPQA", "TREC", "SST-2", "SST-5"};
const std::map<std::string, double> kKimCnnRand = {{"MR", 76.1},   {"CR", 79.8},   {"SUBJ", 89.6},
                                                   {"MPQA", 83.4}, {"TREC", 91.2}, {"SST-2", 82.7},
                                                   {"SST-5", 45.0}};
const std::map<std::string, double> kSruPaper = {
    {"MR", 83.1}, {"CR", 86.4}, {"SUBJ", 93.8}, {"TREC", 94.8}, {"SST-2", 89.6}};

struct Unit {
  std::string dataset, model, kind, status, stop_reason, config;
  int64_t trial = 0, fold = 0, seed_index = 0, epochs = 0, best_epoch = 0, parameters = 0;
  double best_dev = 0, test = 0, seconds_per_epoch = 0;
  experiments::Table curve;
};

struct Stats {
  double mean = NAN, std = NAN;
  size_t n = 0;
};

Stats stats(const std::vector<double>& xs) {
  Stats s;
  s.n = xs.size();
  if (xs.empty()) return s;
  double sum = 0;
  for (double x : xs) sum += x;
  s.mean = sum / static_cast<double>(xs.size());
  double ss = 0;
  for (double x : xs) ss += (x - s.mean) * (x - s.mean);
  s.std = xs.size() > 1 ? std::sqrt(ss / static_cast<double>(xs.size() - 1)) : 0.0;
  return s;
}

std::string fixed(double x, int digits = 1) { return formatFixed(x, digits); }

// "3 runs", or "2-3 runs" when cells differ.
std::string countText(size_t lo, size_t hi) {
  if (lo > hi) return "0 runs";
  return (lo == hi ? std::to_string(hi) : std::to_string(lo) + "-" + std::to_string(hi)) +
         (hi == 1 ? " run" : " runs");
}

std::string meanStd(const Stats& s) {
  if (s.n == 0) return "–";
  if (s.n == 1) return fixed(s.mean);
  return fixed(s.mean) + " ± " + fixed(s.std);
}

void readUnit(const Hdf5RunLog& log, const std::string& group, std::vector<Unit>& units) {
  if (!log.attribute(group, "status")) return;  // cut off mid-way: not a result
  Unit u;
  u.dataset = log.stringAttribute(group, "dataset");
  u.model = log.stringAttribute(group, "model");
  u.kind = log.stringAttribute(group, "kind");
  u.status = log.stringAttribute(group, "status");
  u.stop_reason = log.stringAttribute(group, "stop_reason");
  u.config = log.stringAttribute(group, "config");
  u.trial = log.intAttribute(group, "trial");
  u.fold = log.intAttribute(group, "fold");
  u.seed_index = log.intAttribute(group, "seed_index");
  u.epochs = log.intAttribute(group, "epochs");
  u.best_epoch = log.intAttribute(group, "best_epoch");
  u.parameters = log.intAttribute(group, "parameters");
  u.best_dev = log.doubleAttribute(group, "best_dev_acc");
  u.test = log.doubleAttribute(group, "test_acc");
  u.seconds_per_epoch = log.doubleAttribute(group, "seconds_per_epoch");
  if (log.exists(group + "/epochs")) u.curve = log.readTable(group + "/epochs");
  units.push_back(std::move(u));
}

// /<dataset>/<model>/trials/<t> and /<dataset>/<model>/folds/<f>/seeds/<s>.
void readUnits(const Hdf5RunLog& log, std::vector<Unit>& units) {
  for (const auto& d : log.children("/"))
    for (const auto& m : log.children("/" + d)) {
      const std::string base = "/" + d + "/" + m;
      if (log.exists(base + "/trials"))
        for (const auto& t : log.children(base + "/trials")) readUnit(log, base + "/trials/" + t, units);
      if (log.exists(base + "/folds"))
        for (const auto& f : log.children(base + "/folds"))
          for (const auto& s : log.children(base + "/folds/" + f + "/seeds"))
            readUnit(log, base + "/folds/" + f + "/seeds/" + s, units);
    }
}

size_t plannedFinals(const std::set<std::string>& planned, const std::string& dataset,
                     const std::string& model) {
  return groupsUnder(planned, "/" + dataset + "/" + model + "/folds/");
}

template <class F>
std::vector<std::string> distinct(const std::vector<Unit>& units, F key, const std::vector<std::string>& order = {}) {
  std::set<std::string> seen;
  for (const auto& u : units) seen.insert(key(u));
  std::vector<std::string> out;
  for (const auto& o : order)
    if (seen.count(o)) out.push_back(o);
  for (const auto& s : seen)
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  return out;
}

// Trainable parameters per dataset and model. The embedding table holds a vector per word of the
// training part, so the count differs by dataset (several-fold) and by fold.
void writeParameterTable(const std::vector<Unit>& finals, const std::vector<std::string>& datasets,
                         const std::vector<std::string>& models, Report& report) {
  std::vector<ReportTable::Column> columns = {{"model", ReportTable::Align::Left}};
  for (const auto& d : datasets) columns.push_back({d});
  ReportTable table(columns);
  double widest_spread = 0;  // largest (max - min) / mean over the folds of one cell
  for (const auto& m : models) {
    std::vector<ReportTable::Cell> row = {m};
    for (const auto& d : datasets) {
      std::vector<double> counts;
      for (const auto& u : finals)
        if (u.model == m && u.dataset == d && u.parameters > 0) counts.push_back(static_cast<double>(u.parameters));
      if (counts.empty()) {
        row.push_back("–");
        continue;
      }
      const auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
      const double mean = stats(counts).mean;
      widest_spread = std::max(widest_spread, (*hi - *lo) / mean);
      row.push_back({formatCount(std::llround(mean)), mean});
      report.summary()["parameters"][d][m] = mean;
    }
    table.addRow(row);
  }
  report.heading(2, "Trainable parameters");
  std::string text =
      "Mean over folds and seeds, per dataset and model. Most of each count is the embedding "
      "table, one vector per word of the training part (and, with pretrained vectors, per dev or "
      "test word that has one), so it grows with the dataset";
  if (widest_spread > 0)
    text += " and differs a little from fold to fold (by up to " + formatFixed(100 * widest_spread) + "%)";
  report.paragraph(text + ".");
  report.table(table, "parameters", "Trainable parameters per dataset and model, mean over folds and seeds.");
}

// The units of a run (every shard's log), as the sections read them.
struct UnitsOfRun {
  std::vector<Unit> units, finals, trials;
  std::vector<std::string> datasets, models;  // of the final units, in the report's order
  std::set<std::string> planned;              // every unit's group, all shards'
};

// Test accuracy per model and dataset, with the papers' rows.
void accuracySection(const UnitsOfRun& run, Report& report) {
  const auto& units = run.units;
  const auto& finals = run.finals;
  const auto& datasets = run.datasets;
  const auto& models = run.models;
  const auto& planned = run.planned;
  auto& summary = report.summary();
  report.heading(2, "Test accuracy (%)");
  if (!planned.empty()) {
    const auto done = static_cast<int64_t>(units.size());
    const auto total = std::max(done, static_cast<int64_t>(planned.size()));
    writeUnitsInProgress(report, total - done, total, "units (folds × seeds × models, and trials)",
                         "the mean over the finished folds and seeds",
                         "cells marked (k of n): k units finished of n planned");
  }
  report.paragraph(
      "Mean ± standard deviation over folds and seeds of the test accuracy at the epoch of best "
      "dev accuracy (n = folds × seeds per cell; a single run shows no ±); the best of our rows "
      "per dataset in bold. Paper rows (italics): Kim (2014) CNN-rand, embeddings trained from "
      "random init as here, and the best SRU rows of Lei et al. (2018) (with fixed "
      "word2vec vectors, so not directly comparable to runs without --embeddings). SST-5 is "
      "Kim's SST-1.");
  std::vector<ReportTable::Column> acc_columns = {{"model", ReportTable::Align::Left}};
  for (const auto& d : datasets) acc_columns.push_back({d, ReportTable::Align::Right, ReportTable::Best::Max});
  acc_columns.push_back({"n"});
  ReportTable acc(acc_columns);
  for (const auto& m : models) {
    std::vector<ReportTable::Cell> row = {m};
    size_t n = 0;
    for (const auto& d : datasets) {
      std::vector<double> xs;
      for (const auto& u : finals)
        if (u.model == m && u.dataset == d && u.status == "finished") xs.push_back(100 * u.test);
      const auto s = stats(xs);
      const size_t of = plannedFinals(planned, d, m);
      // A cell still training shows how many of its folds and seeds its mean holds.
      const std::string partial =
          of > s.n ? " (" + std::to_string(s.n) + " of " + std::to_string(of) + ")" : "";
      row.push_back({meanStd(s) + partial, s.mean, s.n > 1 ? s.std : NAN});
      n = std::max(n, s.n);
      summary["accuracy"][d][m] = {{"mean", s.mean}, {"std", s.std}, {"n", s.n}};
      if (of > 0) summary["accuracy"][d][m]["planned"] = of;
    }
    row.push_back({std::to_string(n), static_cast<double>(n)});
    acc.addRow(row);
  }
  for (const auto& [label, numbers] : {std::pair{"Kim CNN-rand (paper)", &kKimCnnRand},
                                       std::pair{"SRU, word2vec (paper)", &kSruPaper}}) {
    std::vector<ReportTable::Cell> row = {std::string(label)};
    for (const auto& d : datasets) {
      const auto it = numbers->find(d);
      row.push_back(it == numbers->end() ? ReportTable::Cell("–")
                                         : ReportTable::Cell(formatFixed(it->second), it->second));
    }
    row.push_back("");
    acc.addRow(row, ReportTable::RowKind::Published);
  }
  report.terminalTable("Test accuracy", acc);
  report.table(acc, "accuracy",
               "Test accuracy (%), mean ± standard deviation over folds and seeds; paper rows in italics.");

  size_t diverged = 0;
  for (const auto& u : units) diverged += u.status != "finished";
  if (diverged) report.paragraph(std::to_string(diverged) + " unit(s) diverged (NaN/inf loss) and are left out; see the units table.");
}

// Training seconds per epoch: a table, a bar chart, and the parameters.
void timeSection(const UnitsOfRun& run, Report& report) {
  const auto& finals = run.finals;
  const auto& datasets = run.datasets;
  const auto& models = run.models;
  auto& summary = report.summary();
  report.heading(2, "Time per epoch");
  report.paragraph("Mean training seconds per epoch (evaluation excluded), the fastest model per "
                   "dataset in bold.");
  std::vector<ReportTable::Column> time_columns = {{"model", ReportTable::Align::Left}};
  for (const auto& d : datasets) time_columns.push_back({d, ReportTable::Align::Right, ReportTable::Best::Min});
  ReportTable time(time_columns);
  Figure time_fig;
  time_fig.width = std::max(700, 90 * static_cast<int>(datasets.size() * std::max<size_t>(models.size(), 2)) + 260);
  time_fig.height = 420;
  Panel time_panel;
  time_panel.categories = datasets;
  time_panel.x.label = "dataset";
  time_panel.y.label = "training time per epoch (s)";
  size_t time_n_min = SIZE_MAX, time_n_max = 0;
  for (size_t mi = 0; mi < models.size(); ++mi) {
    const auto& m = models[mi];
    std::vector<ReportTable::Cell> row = {m};
    BarSeries bars;
    bars.title = m;
    bars.style = static_cast<int>(mi);
    for (size_t di = 0; di < datasets.size(); ++di) {
      std::vector<double> xs;
      for (const auto& u : finals)
        if (u.model == m && u.dataset == datasets[di] && u.epochs > 0) xs.push_back(u.seconds_per_epoch);
      const auto st = stats(xs);
      row.push_back({fixed(st.mean, 2), st.mean});
      summary["seconds_per_epoch"][m][datasets[di]] = st.mean;
      bars.values.push_back(st.mean);
      bars.errors.push_back(st.n > 1 ? st.std : NAN);
      if (st.n > 0) {
        time_n_min = std::min(time_n_min, st.n);
        time_n_max = std::max(time_n_max, st.n);
      }
    }
    time.addRow(row);
    time_panel.bars.push_back(bars);
  }
  report.table(time, "time_per_epoch", "Training seconds per epoch (evaluation excluded); fastest per dataset in bold.");
  time_fig.panels.push_back(time_panel);
  if (time_n_max > 0)
    report.figure(time_fig, "time_per_epoch",
                  "Training seconds per epoch (evaluation excluded) per dataset and model: mean " +
                      std::string(time_n_max > 1 ? "± standard deviation (error bars) " : "") +
                      "over " + countText(time_n_min, time_n_max) +
                      " per bar (folds × seeds), " + std::to_string(finals.size()) +
                      " runs in all.");
  writeWallClockNote(report);
  writeParameterTable(finals, datasets, models, report);
}

// Dev accuracy per epoch, one panel per dataset.
void learningCurvesSection(const UnitsOfRun& run, Report& report) {
  const auto& finals = run.finals;
  const auto& datasets = run.datasets;
  const auto& models = run.models;
  report.heading(2, "Learning curves");
  Figure curves;
  curves.shared_key = true;
  size_t curve_panels = 0;
  size_t curve_n_min = SIZE_MAX, curve_n_max = 0;
  bool ragged = false;  // early stopping left fewer runs at later epochs
  int64_t max_epoch = 0;
  for (const auto& d : datasets) {
    Panel p;
    p.title = d;
    p.x.label = "epoch";
    p.x.integer_ticks = true;
    p.y.label = "dev accuracy (%)";
    for (size_t mi = 0; mi < models.size(); ++mi) {
      std::map<int64_t, std::vector<double>> by_epoch;
      size_t runs = 0;
      for (const auto& u : finals)
        if (u.model == models[mi] && u.dataset == d && !u.curve.rows.empty()) {
          ++runs;
          const auto epoch = u.curve.column("epoch");
          const auto dev = u.curve.column("dev_acc");
          for (size_t i = 0; i < epoch.size(); ++i) by_epoch[static_cast<int64_t>(epoch[i])].push_back(100 * dev[i]);
        }
      if (runs == 0) continue;
      curve_n_min = std::min(curve_n_min, runs);
      curve_n_max = std::max(curve_n_max, runs);
      LineSeries s;
      s.title = models[mi];
      s.style = static_cast<int>(mi);
      for (const auto& [e, xs] : by_epoch) {
        const auto st = stats(xs);
        ragged = ragged || st.n != runs;
        max_epoch = std::max(max_epoch, e);
        s.x.push_back(static_cast<double>(e));
        s.y.push_back(st.mean);
        s.spread.push_back(st.n > 1 ? st.std : 0.0);
      }
      p.lines.push_back(s);
    }
    curve_panels += !p.empty();
    curves.panels.push_back(p);
  }
  const int grid_columns = gridColumns(curve_panels);
  const int grid_rows = static_cast<int>((curve_panels + grid_columns - 1) / std::max(1, grid_columns));
  curves.width = std::max(520, 300 * grid_columns + (curve_panels == 1 ? 180 : 0));
  curves.height = 280 * grid_rows + (grid_rows * grid_columns == static_cast<int>(curve_panels) ? 50 : 0);
  if (curve_panels > 0)
    report.figure(curves, "learning_curves",
                  "Dev accuracy per epoch, per dataset and model: mean" +
                      std::string(curve_n_max > 1 ? " ± standard deviation (band)" : "") +
                      " over " + countText(curve_n_min, curve_n_max) +
                      " per curve (folds × seeds)" +
                      (ragged ? "; fewer at late epochs, where early stopping had ended some runs" : "") +
                      ".");
}

// The random search's trials and the chosen one.
void searchSection(const UnitsOfRun& run, Report& report) {
  const auto& trials = run.trials;
  if (!trials.empty()) {
    report.heading(2, "Random search");
    report.paragraph("Trials ran on fold 0 and were selected on dev accuracy; the chosen one (★) was retrained on every fold with every seed.");
    ReportTable t({{"dataset", ReportTable::Align::Left},
                   {"model", ReportTable::Align::Left},
                   {"trial"},
                   {"dev %"},
                   {"test %"},
                   {"epochs"},
                   {"status", ReportTable::Align::Left},
                   {"config", ReportTable::Align::Left, ReportTable::Best::None, true}});
    for (const auto& d : distinct(trials, [](const Unit& u) { return u.dataset; }, kDatasetOrder))
      for (const auto& m : distinct(trials, [](const Unit& u) { return u.model; })) {
        double best = -1;
        int64_t chosen = -1;
        for (const auto& u : trials)
          if (u.dataset == d && u.model == m && u.status == "finished" && u.best_dev > best) {
            best = u.best_dev;
            chosen = u.trial;
          }
        for (const auto& u : trials)
          if (u.dataset == d && u.model == m) {
            auto cfg = nlohmann::json::parse(u.config, nullptr, false);
            std::string brief = cfg.is_object() ? cfg.value("config", cfg.value("model", nlohmann::json())).dump() + " " +
                                                      cfg.value("train", nlohmann::json()).dump()
                                                : u.config;
            t.addRow({d, m, std::to_string(u.trial) + (u.trial == chosen ? " ★" : ""),
                      {fixed(100 * u.best_dev), 100 * u.best_dev}, {fixed(100 * u.test), 100 * u.test},
                      {std::to_string(u.epochs), static_cast<double>(u.epochs)}, u.status, brief});
          }
      }
    report.table(t, "search_trials", "Random-search trials on fold 0; the chosen one (★) was retrained on every fold and seed.");
  }
}

// Every final training run.
void unitsSection(const UnitsOfRun& run, Report& report) {
  const auto& finals = run.finals;
  report.heading(2, "Units");
  ReportTable list({{"dataset", ReportTable::Align::Left}, {"model", ReportTable::Align::Left},
                    {"fold"}, {"seed"}, {"dev %"}, {"test %"}, {"best epoch"}, {"epochs"},
                    {"s/epoch"}, {"stop", ReportTable::Align::Left}});
  for (const auto& u : finals)
    list.addRow({u.dataset, u.model, std::to_string(u.fold), std::to_string(u.seed_index),
                 {fixed(100 * u.best_dev), 100 * u.best_dev}, {fixed(100 * u.test), 100 * u.test},
                 std::to_string(u.best_epoch), std::to_string(u.epochs),
                 {fixed(u.seconds_per_epoch, 2), u.seconds_per_epoch}, u.stop_reason});
  report.table(list, "units", "Every final training run: fold, seed, accuracies and stopping.");
}

void buildClassificationReport(const RunReader& reader, Report& report) {
  UnitsOfRun run;
  reader.forEachLog([&](const Hdf5RunLog& log) { readUnits(log, run.units); });
  for (const auto& u : run.units) (u.kind == "trial" ? run.trials : run.finals).push_back(u);
  run.datasets = distinct(run.finals, [](const Unit& u) { return u.dataset; }, kDatasetOrder);
  run.models = distinct(run.finals, [](const Unit& u) { return u.model; });
  run.planned = reader.plannedUnitGroups();
  auto& summary = report.summary();
  summary["logs"] = reader.logFiles();
  summary["units_finished"] = run.units.size();
  accuracySection(run, report);
  timeSection(run, report);
  learningCurvesSection(run, report);
  searchSection(run, report);
  unitsSection(run, report);
}

}  // namespace

void registerClassificationReport() {
  registerReport("classification",
                 "sentence classification: accuracy table with the paper's numbers, learning "
                 "curves, time per epoch",
                 buildClassificationReport);
}

}  // namespace recurlab::analysis
