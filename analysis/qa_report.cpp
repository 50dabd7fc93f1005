// Report for `recurlab_qa` runs (experiment kind "qa"): dev EM and F1 of each reader beside the
// published rows, the EM/F1 curves over epochs, and the time per epoch with its part in the
// recurrent encoders (SRU vs LSTM). From log.h5 alone.
#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/report_registry.h"
#include "analysis/sample_statistics.h"

namespace recurlab::analysis {
namespace {

using experiments::Hdf5RunLog;

struct QaUnit {
  std::string group, name, encoder, protocol, status, stop_reason;
  int64_t best_epoch = 0, epochs = 0, train_examples = 0, dev_questions = 0, parameters = 0;
  double em = NAN, f1 = NAN, seconds = NAN, rnn_seconds = NAN, examples_per_second = NAN;
  double rnn_cpu_seconds = NAN, train_cpu_seconds = NAN;  // absent in logs before these columns
  experiments::Table curve;
};

double meanIfPresent(const experiments::Table& t, const std::string& column) {
  for (const auto& c : t.columns)
    if (c == column) return mean(t.column(column));
  return NAN;
}

std::string text(const Hdf5RunLog& log, const std::string& g, const std::string& name) {
  return log.attribute(g, name) ? log.stringAttribute(g, name) : "";
}

std::vector<QaUnit> readUnits(const Hdf5RunLog& log) {
  std::vector<QaUnit> units;
  for (const auto& child : log.children("/")) {
    const std::string g = "/" + child;
    if (!log.attribute(g, "model") || !log.exists(g + "/epochs")) continue;
    QaUnit u;
    u.group = g;
    u.name = text(log, g, "model");
    u.encoder = text(log, g, "encoder");
    u.protocol = text(log, g, "protocol");
    u.status = text(log, g, "status");
    u.stop_reason = text(log, g, "stop_reason");
    u.train_examples = log.intAttribute(g, "train_examples");
    u.dev_questions = log.intAttribute(g, "dev_questions");
    u.parameters = log.intAttribute(g, "parameters");
    u.curve = log.readTable(g + "/epochs");
    if (u.status.empty()) {
      // Still training (or cut off): its best epoch so far, from the epoch rows.
      if (u.curve.rows.empty()) continue;
      u.status = "running";
      const auto f1 = u.curve.column("dev_f1");
      const auto best = static_cast<size_t>(std::max_element(f1.begin(), f1.end()) - f1.begin());
      u.best_epoch = static_cast<int64_t>(u.curve.column("epoch")[best]);
      u.epochs = static_cast<int64_t>(u.curve.rows.size());
      u.em = u.curve.column("dev_em")[best];
      u.f1 = f1[best];
    } else {
      u.best_epoch = log.intAttribute(g, "best_epoch");
      u.epochs = log.intAttribute(g, "epochs");
      u.em = log.doubleAttribute(g, "best_dev_em");
      u.f1 = log.doubleAttribute(g, "best_dev_f1");
    }
    u.seconds = mean(u.curve.column("seconds"));
    u.rnn_seconds = mean(u.curve.column("rnn_seconds"));
    u.examples_per_second = mean(u.curve.column("examples_per_second"));
    u.rnn_cpu_seconds = meanIfPresent(u.curve, "rnn_cpu_seconds");
    u.train_cpu_seconds = meanIfPresent(u.curve, "train_cpu_seconds");
    units.push_back(std::move(u));
  }
  return units;
}

// Dev EM and F1 beside the published readers, and what the time columns measure.
void resultsSection(const std::vector<QaUnit>& units, bool offline, Report& report) {
  ReportTable table({{"Model", ReportTable::Align::Left},
                     {"Encoder", ReportTable::Align::Left},
                     {"Dev EM", ReportTable::Align::Right, ReportTable::Best::Max},
                     {"Dev F1", ReportTable::Align::Right, ReportTable::Best::Max},
                     {"Best epoch / epochs"},
                     {"Train s/epoch", ReportTable::Align::Right, ReportTable::Best::Min},
                     {"RNN s/epoch", ReportTable::Align::Right, ReportTable::Best::Min},
                     {"Examples/s", ReportTable::Align::Right, ReportTable::Best::Max},
                     {"Train CPU s/epoch", ReportTable::Align::Right, ReportTable::Best::Min},
                     {"RNN CPU s/epoch", ReportTable::Align::Right, ReportTable::Best::Min}});
  for (const auto& u : units)
    table.addRow({u.status == "running" ? u.name + " (running)" : u.name, u.encoder,
                  {formatFixed(u.em, 1), u.em}, {formatFixed(u.f1, 1), u.f1},
                  std::to_string(u.best_epoch) + " / " + std::to_string(u.epochs),
                  {formatFixed(u.seconds, 1), u.seconds},
                  {formatFixed(u.rnn_seconds, 1), u.rnn_seconds},
                  {formatFixed(u.examples_per_second, 1), u.examples_per_second},
                  {formatFixed(u.train_cpu_seconds, 1), u.train_cpu_seconds},
                  {formatFixed(u.rnn_cpu_seconds, 1), u.rnn_cpu_seconds}});
  const auto published = ReportTable::RowKind::Published;
  table.addRow({"DrQA (Chen et al. 2017)", "3-layer bi-LSTM", {"69.5", 69.5}, {"78.8", 78.8}, "–", "–", "–", "–", "–", "–"}, published);
  table.addRow({"DrQA + SRU (SRU repository)", "SRU", {"70.3", 70.3}, {"79.5", 79.5}, "–", "–", "–", "–", "–", "–"}, published);
  table.addRow({"SRU (Lei et al. 2018, §4.3)", "6-layer SRU", {"71.4", 71.4}, {"80.2", 80.2}, "–", "–", "–", "–", "–", "–"}, published);
  report.terminalTable("Dev EM / F1", table);
  report.table(table, "qa_results",
               "SQuAD v1.1 dev exact match and F1 (official evaluator); published rows in italics" +
                   std::string(offline ? "; ours on the offline protocol, not comparable" : ""));
  report.paragraph(
      "Train s/epoch: the training part of an epoch (data, forward, backward, optimizer step; "
      "evaluation excluded). RNN s/epoch: the part of it spent in the paragraph and question "
      "encoders, forward and backward (the SRU README's \"time used in RNN\"), timed through "
      "autograd hooks. Means over epochs. The CPU columns give the same parts in process CPU "
      "seconds: on a shared machine wall time also counts the time other processes held the "
      "cores, which differs between models trained one after the other; with --threads 1 the "
      "CPU time is the work itself.");
}

void curvesSection(const std::vector<QaUnit>& units, Report& report) {
  // Curves.
  Figure curves;
  curves.width = 1000;
  curves.height = 420;
  Panel em, f1;
  em.title = "Dev exact match";
  f1.title = "Dev F1";
  em.x.label = f1.x.label = "epoch";
  em.x.integer_ticks = f1.x.integer_ticks = true;
  em.y.label = "exact match (%)";
  f1.y.label = "F1 (%)";
  int style = 0;
  for (const auto& u : units) {
    LineSeries a, b;
    a.title = b.title = u.name;
    a.x = b.x = u.curve.column("epoch");
    a.y = u.curve.column("dev_em");
    b.y = u.curve.column("dev_f1");
    a.style = b.style = style++;
    em.lines.push_back(a);
    f1.lines.push_back(b);
  }
  curves.panels = {em, f1};
  curves.shared_key = true;
  if (!units.empty())
    report.figure(curves, "qa_curves",
                  "Dev EM and F1 of the official evaluator after each epoch, one run per model.");
}

void timeSection(const std::vector<QaUnit>& units, Report& report) {
  // Time per epoch.
  Figure times;
  Panel bars;
  bars.title = "Time per training epoch";
  bars.x.label = "model";
  bars.y.label = "seconds per epoch (s)";
  BarSeries total, rnn, rnn_cpu;
  total.title = "whole epoch";
  rnn.title = "recurrent encoders";
  rnn_cpu.title = "recurrent encoders, CPU time";
  bool have_cpu = false;
  for (const auto& u : units) {
    bars.categories.push_back(u.name);
    total.values.push_back(u.seconds);
    rnn.values.push_back(u.rnn_seconds);
    rnn_cpu.values.push_back(u.rnn_cpu_seconds);
    have_cpu = have_cpu || std::isfinite(u.rnn_cpu_seconds);
  }
  bars.bars = {total, rnn};
  if (have_cpu) bars.bars.push_back(rnn_cpu);
  times.panels = {bars};
  if (!units.empty())
    report.figure(times, "qa_epoch_time",
                  "Mean seconds per training epoch (evaluation excluded) and the part spent in the recurrent encoders, forward and backward, per model (wall time; the last bar: the encoders' process CPU time).");
}

// The summary's numbers, and the SRU reader against the LSTM one.
void summarySection(const std::vector<QaUnit>& units, const std::string& protocol, Report& report) {
  const bool offline = protocol != "official";
  auto& summary = report.summary();
  summary["protocol"] = protocol;
  summary["comparable_with_published"] = !offline;
  std::map<std::string, const QaUnit*> by_encoder;
  for (const auto& u : units) {
    summary["models"][u.name] = {{"encoder", u.encoder}, {"dev_em", u.em}, {"dev_f1", u.f1},
                                 {"status", u.status},
                                 {"best_epoch", u.best_epoch}, {"epochs", u.epochs},
                                 {"seconds_per_epoch", u.seconds},
                                 {"rnn_seconds_per_epoch", u.rnn_seconds},
                                 {"rnn_cpu_seconds_per_epoch", u.rnn_cpu_seconds},
                                 {"train_cpu_seconds_per_epoch", u.train_cpu_seconds},
                                 {"examples_per_second", u.examples_per_second},
                                 {"dev_questions", u.dev_questions},
                                 {"train_examples", u.train_examples},
                                 {"parameters", u.parameters}};
    by_encoder.emplace(u.encoder, &u);
  }
  if (by_encoder.count("sru") && by_encoder.count("lstm")) {
    const auto* s = by_encoder["sru"];
    const auto* l = by_encoder["lstm"];
    const double ratio = l->rnn_seconds / s->rnn_seconds;
    const double whole = l->seconds / s->seconds;
    summary["lstm_over_sru_rnn_time"] = ratio;
    summary["lstm_over_sru_epoch_time"] = whole;
    const double cpu_ratio = l->rnn_cpu_seconds / s->rnn_cpu_seconds;
    if (std::isfinite(cpu_ratio)) summary["lstm_over_sru_rnn_cpu_time"] = cpu_ratio;
    report.paragraph("SRU vs LSTM: the LSTM reader's recurrent part takes " + formatFixed(ratio, 2) +
                     "x the SRU reader's time per epoch (whole training epoch: " +
                     formatFixed(whole, 2) + "x); dev F1 " + formatFixed(s->f1, 1) + " (SRU) vs " +
                     formatFixed(l->f1, 1) + " (LSTM)." +
                     (std::isfinite(cpu_ratio) ? " In CPU time the recurrent part's ratio is " +
                                                     formatFixed(cpu_ratio, 2) + "x."
                                               : std::string()) +
                     " Target: >= 3x with equal or better F1.");
  }
}

void buildQaReport(const RunReader& run, Report& report) {
  std::vector<QaUnit> units;
  run.forEachLog([&](const Hdf5RunLog& log) {
    for (auto& u : readUnits(log)) units.push_back(std::move(u));
  });
  const std::string protocol = run.rootText("protocol");
  const bool offline = protocol != "official";
  report.heading(2, "SQuAD v1.1 question answering");
  if (offline)
    report.paragraph(
        "**Offline protocol: NOT comparable with published numbers.** Without train-v1.1.json "
        "the readers train on an article-disjoint part of dev-v1.1.json and are scored on the "
        "other articles (a fixed, seeded split; config key data.split_seed), usually on "
        "subsamples and for few epochs. The published rows train on the 87,599 training "
        "questions and score all 10,570 dev questions.");
  else
    report.paragraph("Official protocol: trained on train-v1.1.json, scored on dev-v1.1.json.");
  const auto running = std::count_if(units.begin(), units.end(),
                                     [](const QaUnit& u) { return u.status == "running"; });
  std::vector<std::string> logged;
  for (const auto& u : units) logged.push_back(u.group);
  writePlannedUnitsInProgress(run, logged, running, report, "readers",
                              "the best dev epoch among the epochs logged so far");
  report.paragraph(
      "Scores: the official v1.1 evaluator (exact match and token F1 after its normalization, "
      "maximum over the ground truths), at the epoch of the best dev F1. The predictions of that "
      "epoch are predictions-<model>.json beside eval-data.json (the evaluated questions in "
      "SQuAD format): `recurlab_squad_eval eval-data.json predictions-<model>.json` or the "
      "official script give the same numbers.");

  resultsSection(units, offline, report);
  curvesSection(units, report);
  timeSection(units, report);
  summarySection(units, protocol, report);
}

}  // namespace

void registerQaReport() {
  registerReport("qa", "SQuAD v1.1: DrQA readers' EM/F1 beside the published rows, curves, "
                       "time per epoch SRU vs LSTM",
                 buildQaReport);
}

}  // namespace recurlab::analysis
