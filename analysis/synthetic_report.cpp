// Report for `recurlab_synthetic` runs (experiment kind "synthetic", docs/synthetic.md): per
// task, model and width the best learning rate of the grid (mean dev accuracy over seeds), the
// test accuracy there, the recurrent state size and the wall-clock per unit; accuracy against
// width and against state size (after Arora et al. 2023, Figure 2); the paired tests between
// models on the same test sequences; and, where scripts/synthetic-lengths.sh scored the kept
// models, their accuracy at those lengths. Reads every log of the run folder and merges their
// units.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/report_registry.h"
#include "analysis/run_reader.h"
#include "analysis/synthetic_answers_section.h"
#include "analysis/synthetic_cells.h"
#include "analysis/synthetic_lengths_section.h"
#include "analysis/synthetic_recall_section.h"
#include "metrics/paired_significance.h"

namespace recurlab::analysis {
namespace {

using experiments::Hdf5RunLog;
using Unit = SyntheticUnit;
using Cell = SyntheticCell;

std::string lengths(const SyntheticLengths& r) {
  return r.min == r.max ? std::to_string(r.max) : std::to_string(r.min) + "–" + std::to_string(r.max);
}

// Each task's kind and lengths, as its first unit logged them.
void writeTaskTable(const std::vector<Unit>& units, Report& report) {
  auto table = ReportTable::withHeaders(
      {"task", "kind", "train lengths", "dev lengths", "test lengths"});
  std::set<std::string> seen;
  for (const auto& u : units)
    if (seen.insert(u.task).second)
      table.addRow({u.task, u.kind, lengths(u.train_lengths), lengths(u.dev_lengths),
                    lengths(u.test_lengths)});
  report.paragraph(
      "The tasks: where a range is given, each sequence's length is drawn uniformly from it "
      "(arithmetic: its odd lengths), and accuracy averages over the lengths drawn. The learning "
      "rate and the epoch are chosen on the dev sequences: at the test lengths, they choose what "
      "generalises; at the train lengths, only what fits.");
  report.table(table, "synthetic_tasks", "Synthetic tasks and their sequence lengths");
}

void writeAccuracyTable(const std::vector<Cell>& cells, Report& report) {
  auto table = ReportTable::withHeaders({"task", "model", "width", "state size", "best lr",
                                         "dev acc", "test acc", "test exact", "seeds", "s / unit"});
  for (const auto& c : cells)
    table.addRow({c.task, c.model, std::to_string(c.width), formatCount(c.state_size),
                  formatNumber(c.lr, 2), formatPercent(c.dev),
                  ReportTable::Cell(formatPercent(c.test) + (c.seeds > 1 ? " ± " + formatPercent(c.test_std) : ""),
                                    100 * c.test),
                  formatPercent(c.exact), std::to_string(c.seeds), formatFixed(c.seconds, 1)});
  report.paragraph(
      "Test accuracy (%, over the asked positions; mean ± standard deviation over seeds) at the "
      "learning rate of the grid with the best mean dev accuracy, per task, model and width. "
      "Exact: sequences with every asked position right. State size: the numbers the encoder "
      "carries from step to step per sequence at the test length (a Transformer's keys and "
      "values grow with the length: its size is at the test length). s / unit: mean wall-clock "
      "seconds of a unit (training and evaluation) over every rate and seed.");
  report.table(table, "synthetic_accuracy", "Synthetic tasks: test accuracy at the best learning rate");
  report.terminalTable("Synthetic tasks: test accuracy (%) at each model's best learning rate", table);
  // Dev accuracy that several rates reach (100% on short strings) cannot choose among them.
  std::vector<std::string> ties;
  for (const auto& c : cells)
    if (c.tied_rates > 1)
      ties.push_back(c.task + " " + c.model + " width " + std::to_string(c.width) + " (" +
                     std::to_string(c.tied_rates) + " rates at " + formatPercent(c.dev) + "%)");
  if (!ties.empty()) {
    std::string list;
    for (size_t i = 0; i < ties.size(); ++i) list += (i ? "; " : "") + ties[i];
    report.paragraph("Tied on dev: " + list + ". The table takes the lowest of the tied rates; "
                     "dev cannot tell them apart, and their test accuracies may differ (each "
                     "unit's test_acc in the log).");
  }
}

// One panel per task: test accuracy against `x` (width or state size), a line per model.
Figure accuracyFigure(const std::vector<Cell>& cells, bool by_state) {
  Figure figure;
  figure.shared_key = true;
  std::vector<std::string> tasks, models;
  for (const auto& c : cells) {
    if (std::find(tasks.begin(), tasks.end(), c.task) == tasks.end()) tasks.push_back(c.task);
    if (std::find(models.begin(), models.end(), c.model) == models.end()) models.push_back(c.model);
  }
  figure.height = sharedKeyGridHeight(tasks.size());
  for (const auto& t : tasks) {
    Panel panel;
    panel.title = t;
    panel.x.label = by_state ? "state size (numbers)" : "model width";
    panel.x.scale = AxisScale::Log2;
    panel.y = {"test accuracy (%)", AxisScale::Linear, false, std::make_pair(0.0, 100.0)};
    for (size_t m = 0; m < models.size(); ++m) {
      LineSeries line;
      line.title = models[m];
      line.style = static_cast<int>(m);
      for (const auto& c : cells)
        if (c.task == t && c.model == models[m] && (!by_state || c.state_size > 0)) {
          line.x.push_back(static_cast<double>(by_state ? c.state_size : c.width));
          line.y.push_back(100 * c.test);
          line.spread.push_back(100 * c.test_std);
        }
      if (!line.x.empty()) panel.lines.push_back(line);
    }
    figure.panels.push_back(panel);
  }
  return figure;
}

// Where a task's test lengths vary: test accuracy against the length (Deletang et al. 2023 plot
// it per length), a line per model at the task's largest width, the lengths pooled into at most
// kLengthBins bins of equal width so that each point averages several sequences.
constexpr int kLengthBins = 12;

LineSeries accuracyByLength(const Cell& c, double low, double high) {
  const double bin = std::max(1.0, std::ceil((high - low + 1) / kLengthBins));
  std::map<int64_t, std::pair<double, double>> sums;  // bin -> (accuracy sum, count)
  for (size_t i = 0; i < c.sequence_acc.size(); ++i) {
    auto& s = sums[static_cast<int64_t>((c.sequence_length[i] - low) / bin)];
    s.first += c.sequence_acc[i], s.second += 1;
  }
  LineSeries line;
  line.title = c.model;
  for (const auto& [b, s] : sums) {
    line.x.push_back(low + b * bin + (bin - 1) / 2);  // the bin's middle length
    line.y.push_back(100 * s.first / s.second);
  }
  return line;
}

void writeLengthFigure(const std::vector<Cell>& cells, Report& report) {
  std::map<std::string, int64_t> widest;
  for (const auto& c : cells)
    if (!c.sequence_length.empty()) widest[c.task] = std::max(widest[c.task], c.width);
  Figure figure;
  figure.shared_key = true;
  for (const auto& [task, width] : widest) {
    double low = INFINITY, high = -INFINITY;
    for (const auto& c : cells)
      if (c.task == task && c.width == width)
        for (double l : c.sequence_length) low = std::min(low, l), high = std::max(high, l);
    if (!(high > low)) continue;  // one test length: the accuracy table says it all
    Panel panel;
    panel.title = task + ", width " + std::to_string(width);
    panel.x.label = "test sequence length";
    panel.y = {"test accuracy (%)", AxisScale::Linear, false, std::make_pair(0.0, 100.0)};
    int style = 0;
    for (const auto& c : cells)
      if (c.task == task && c.width == width && !c.sequence_length.empty()) {
        panel.lines.push_back(accuracyByLength(c, low, high));
        panel.lines.back().style = style++;
      }
    figure.panels.push_back(panel);
  }
  if (figure.panels.empty()) return;
  report.figure(figure, "accuracy_vs_length",
                "Test accuracy against the test sequence's length, where a task's test lengths "
                "vary (length generalisation, after Deletang et al. 2023), at each model's best "
                "learning rate and the task's largest width; lengths pooled into at most " +
                    std::to_string(kLengthBins) + " bins, seeds pooled.");
}

void writeFigures(const std::vector<Cell>& cells, Report& report) {
  report.figure(accuracyFigure(cells, false), "accuracy_vs_width",
                "Test accuracy at the best learning rate against model width, per task (band: "
                "± one standard deviation over seeds).");
  report.figure(accuracyFigure(cells, true), "accuracy_vs_state_size",
                "Test accuracy against recurrent state size at the test length, per task (after "
                "Arora et al. 2023, Figure 2); encoders that carry no state are left out.");
}

// Per task and width, the most accurate model against each other, paired bootstrap over the
// test sequences of every seed (the same sequences for every model).
void writePairedTests(const std::vector<Cell>& cells, Report& report) {
  std::map<std::pair<std::string, int64_t>, std::vector<const Cell*>> groups;
  for (const auto& c : cells) groups[{c.task, c.width}].push_back(&c);
  auto table = ReportTable::withHeaders({"task", "width", "model", "test acc", "vs best", "p"});
  for (auto& [key, group] : groups) {
    std::stable_sort(group.begin(), group.end(), [](const Cell* a, const Cell* b) { return a->test > b->test; });
    std::vector<const Cell*> comparable;
    for (const auto* c : group)
      if (c->sequence_acc.size() == group.front()->sequence_acc.size() && !c->sequence_acc.empty())
        comparable.push_back(c);
    if (comparable.size() < 2) continue;
    std::vector<std::vector<metrics::SegmentStatistics>> systems;
    for (const auto* c : comparable) {
      systems.emplace_back();
      for (double a : c->sequence_acc) systems.back().push_back({a, 1.0});
    }
    const auto results = metrics::runPairedTest(
        systems, [](const metrics::SegmentStatistics& s) { return 100 * s[0] / s[1]; }, {});
    for (size_t i = 0; i < comparable.size(); ++i)
      table.addRow({key.first, std::to_string(key.second), comparable[i]->model,
                    formatFixed(results[i].score, 1),
                    i == 0 ? "best" : formatFixed(results[i].score - results[0].score, 1),
                    results[i].has_p_value ? formatNumber(results[i].p_value, 2) : "–"});
  }
  if (table.rows() == 0) return;
  report.heading(2, "Paired tests between models");
  report.paragraph(
      "Per task and width, the most accurate model (at its best learning rate) against each "
      "other: paired bootstrap resampling (1,000 resamples, Koehn 2004) of the per-sequence test "
      "accuracies of every seed; p is the chance of a difference this large if the two models "
      "were equally accurate.");
  report.table(table, "synthetic_paired_tests", "Synthetic tasks: paired bootstrap tests");
}

// One row per cell; `units` of `planned` (rates × seeds; absent from logs that list no plan) say
// whether the cell is final: recurlab_compare takes only final cells.
void writeSummary(const std::vector<Cell>& cells, const std::set<std::string>& planned,
                  Report& report) {
  auto& rows = report.summary()["synthetic"] = nlohmann::json::array();
  for (const auto& c : cells) {
    nlohmann::json row = {{"task", c.task}, {"model", c.model}, {"encoder", c.encoder},
                          {"width", c.width}, {"state_size", c.state_size}, {"best_lr", c.lr},
                          {"dev_acc", c.dev}, {"test_acc", c.test}, {"test_acc_std", c.test_std},
                          {"test_exact", c.exact}, {"seeds", c.seeds},
                          {"seconds_per_unit", c.seconds}, {"tied_rates", c.tied_rates},
                          {"units", c.finished_units}};
    if (!planned.empty())
      row["planned"] =
          groupsUnder(planned, "/" + c.task + "/" + c.model + "/w" + std::to_string(c.width) + "/");
    rows.push_back(std::move(row));
  }
}

void buildSyntheticReport(const RunReader& run, Report& report) {
  std::vector<Unit> units;
  run.forEachLog([&](const Hdf5RunLog& log) { readSyntheticUnits(log, units); });
  report.heading(2, "What each sequence mixer recalls and tracks");
  std::vector<std::string> logged;
  int64_t running = 0;
  for (const auto& u : units) logged.push_back(u.group), running += u.status == "running";
  writePlannedUnitsInProgress(run, logged, running, report, "units",
                              "nothing: only finished units count");
  const auto cells = bestRateCells(units);
  if (cells.empty()) {
    report.paragraph("No unit has finished yet.");
    return;
  }
  writeTaskTable(units, report);
  writeAccuracyTable(cells, report);
  writeWallClockNote(report);
  writeFigures(cells, report);
  writeLengthFigure(cells, report);
  writeLengthsSection(cells, units, run.runDirectory(), report);
  writeRecallSection(cells, report);
  writeAnswersSection(cells, report);
  writePairedTests(cells, report);
  writeSummary(cells, run.plannedUnitGroups(), report);
}

}  // namespace

void registerSyntheticReport() {
  registerReport("synthetic",
                 "synthetic capability suite: accuracy against width and state size per task",
                 buildSyntheticReport);
}

}  // namespace recurlab::analysis
