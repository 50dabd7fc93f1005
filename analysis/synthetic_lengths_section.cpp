#include "analysis/synthetic_lengths_section.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "analysis/figure.h"
#include "analysis/number_format.h"
#include "analysis/report_table.h"
#include "analysis/synthetic_length_scores.h"

namespace recurlab::analysis {
namespace {

using RateKey = std::tuple<std::string, std::string, int64_t, int64_t>;  // task, model, width, lr
struct Pooled {
  int64_t right = 0, questions = 0;
  double accuracy() const { return static_cast<double>(right) / static_cast<double>(questions); }
};
using ByLength = std::map<int64_t, Pooled>;

// Every file's rows, pooled over seeds per (task, model, width, rate) and length.
std::map<RateKey, ByLength> pooledScores(const std::vector<std::string>& files) {
  std::map<RateKey, ByLength> pooled;
  for (const auto& file : files)
    for (const auto& s : readLengthScores(file)) {
      auto& p = pooled[{s.task, s.model, s.width, s.lr_index}][s.length];
      p.right += s.right, p.questions += s.questions;
    }
  return pooled;
}

// The rate of (task, model, width) with the best accuracy at `length` (the lowest of ties).
const std::pair<const RateKey, ByLength>* bestRateAt(const std::map<RateKey, ByLength>& pooled,
                                                    const SyntheticCell& c, int64_t length) {
  const std::pair<const RateKey, ByLength>* best = nullptr;
  for (auto it = pooled.lower_bound({c.task, c.model, c.width, 0});
       it != pooled.end() && std::get<0>(it->first) == c.task && std::get<1>(it->first) == c.model &&
       std::get<2>(it->first) == c.width;
       ++it) {
    const auto at = it->second.find(length);
    if (at != it->second.end() && (!best || at->second.accuracy() > best->second.at(length).accuracy()))
      best = &*it;
  }
  return best;
}

struct TaskLengths {
  int64_t train_max = 0;
  SyntheticLengths test{INT64_MAX, 0};
};

void writeTaskTable(const std::string& task, const std::vector<const SyntheticCell*>& cells,
                    const std::map<RateKey, ByLength>& pooled,
                    const std::map<RateKey, double>& rates, const std::set<int64_t>& lengths,
                    Report& report) {
  const int64_t longest = *lengths.rbegin();
  std::vector<std::string> headers = {"model", "width", "lr"};
  for (int64_t l : lengths) headers.push_back(std::to_string(l));
  headers.push_back("best lr at " + std::to_string(longest));
  auto table = ReportTable::withHeaders(headers);
  for (const auto* c : cells) {
    const auto& scores = pooled.at({c->task, c->model, c->width, c->lr_index});
    std::vector<ReportTable::Cell> row = {c->model, std::to_string(c->width), formatNumber(c->lr, 2)};
    for (int64_t l : lengths) {
      const auto at = scores.find(l);
      row.push_back(at == scores.end() ? ReportTable::Cell("–")
                                       : ReportTable::Cell(formatPercent(at->second.accuracy()),
                                                           100 * at->second.accuracy()));
    }
    const auto* best = bestRateAt(pooled, *c, longest);
    const auto rate = best ? rates.find(best->first) : rates.end();
    row.push_back(!best ? "–"
                        : formatPercent(best->second.at(longest).accuracy()) + " (" +
                              (rate == rates.end() ? "lr" + std::to_string(std::get<3>(best->first))
                                                   : formatNumber(rate->second, 2)) +
                              ")");
    table.addRow(row);
  }
  report.table(table, "synthetic_at_lengths_" + task,
               task + ": accuracy (%) of the kept models on fresh sequences at each length, at "
               "the learning rate the report chose, and the best rate at the longest length.");
}

Figure lengthsFigure(const std::map<std::pair<std::string, int64_t>, std::vector<const SyntheticCell*>>& groups,
                     const std::map<RateKey, ByLength>& pooled,
                     const std::map<std::string, TaskLengths>& task_lengths) {
  Figure figure;
  figure.shared_key = true;
  figure.height = sharedKeyGridHeight(groups.size());
  std::vector<std::string> models;
  for (const auto& [key, cells] : groups)
    for (const auto* c : cells)
      if (std::find(models.begin(), models.end(), c->model) == models.end()) models.push_back(c->model);
  for (const auto& [key, cells] : groups) {
    Panel panel;
    panel.title = key.first + ", width " + std::to_string(key.second);
    panel.x.label = "sequence length";
    panel.x.scale = AxisScale::Log2;
    panel.y = {"accuracy (%)", AxisScale::Linear, false, std::make_pair(0.0, 100.0)};
    for (const auto* c : cells) {
      LineSeries line;
      line.title = c->model;
      line.style = static_cast<int>(std::find(models.begin(), models.end(), c->model) - models.begin());
      for (const auto& [length, p] : pooled.at({c->task, c->model, c->width, c->lr_index})) {
        line.x.push_back(static_cast<double>(length));
        line.y.push_back(100 * p.accuracy());
      }
      panel.lines.push_back(line);
    }
    const auto t = task_lengths.find(key.first);
    if (t != task_lengths.end() && t->second.train_max > 0) {
      LineSeries train;
      train.title = "longest training length";
      train.reference = true;
      train.points = false;
      train.x = {static_cast<double>(t->second.train_max), static_cast<double>(t->second.train_max)};
      train.y = {0, 100};
      panel.lines.push_back(train);
    }
    figure.panels.push_back(panel);
  }
  // Room for a log axis's tick labels (128 256 512 1k) in every column.
  figure.width = std::max(900, 420 * gridColumns(figure.panels.size()));
  return figure;
}

}  // namespace

void writeLengthsSection(const std::vector<SyntheticCell>& cells,
                         const std::vector<SyntheticUnit>& units, const std::string& run_dir,
                         Report& report) {
  std::map<RateKey, double> rates;
  std::map<std::string, TaskLengths> task_lengths;
  for (const auto& u : units) {
    rates[{u.task, u.model, u.width, u.lr_index}] = u.lr;
    auto& t = task_lengths[u.task];
    t.train_max = std::max(t.train_max, u.train_lengths.max);
    t.test = {std::min(t.test.min, u.test_lengths.min), std::max(t.test.max, u.test_lengths.max)};
  }
  std::vector<std::string> files;
  for (const auto& [task, t] : task_lengths)
    if (std::filesystem::exists(lengthScoreFile(run_dir, task)))
      files.push_back(lengthScoreFile(run_dir, task));
  if (files.empty()) return;
  const auto pooled = pooledScores(files);
  const auto groups = groupCells(cells, [&](const SyntheticCell& c) {
    return pooled.count({c.task, c.model, c.width, c.lr_index}) > 0;
  });
  if (groups.empty()) return;
  std::map<std::string, std::set<int64_t>> lengths;
  for (const auto& [key, by_length] : pooled)
    for (const auto& [length, p] : by_length) lengths[std::get<0>(key)].insert(length);

  report.heading(3, "At lengths beyond the test's");
  std::string names;
  for (const auto& f : files) names += (names.empty() ? "" : ", ") + std::filesystem::path(f).filename().string();
  report.paragraph(
      "The kept models (each unit's weights at its best dev epoch) scored on fresh sequences at "
      "each length (" + names + ", from `scripts/synthetic-lengths.sh`, which runs "
      "`recurlab_synthetic evaluate`): accuracy (%) at the learning rate the accuracy table "
      "chose, pooled over the seeds evaluated. Dev sequences of a few lengths may tie rates, or "
      "prefer one, that part far beyond them: the last column is the best of every rate "
      "evaluated at the longest length.");
  for (const auto& [task, task_cells] : groups.by_task) {
    const auto& t = task_lengths[task];
    report.paragraph(task + ": trained on lengths up to " + std::to_string(t.train_max) +
                     ", tested on " + std::to_string(t.test.min) + "–" + std::to_string(t.test.max) + ".");
    writeTaskTable(task, task_cells, pooled, rates, lengths[task], report);
  }
  report.figure(lengthsFigure(groups.by_task_width, pooled, task_lengths), "accuracy_at_lengths",
                "Accuracy of the kept models on fresh sequences of each length (log scale), per "
                "task and width, at each model's chosen learning rate; the dashed line marks the "
                "longest training length.");
  // One row per cell: its lengths and accuracies, in order.
  auto& rows = report.summary()["synthetic_at_lengths"] = nlohmann::json::array();
  for (const auto& [task, task_cells] : groups.by_task)
    for (const auto* c : task_cells) {
      nlohmann::json row = {{"task", c->task}, {"model", c->model}, {"width", c->width},
                            {"best_lr", c->lr}, {"lengths", nlohmann::json::array()},
                            {"accuracy", nlohmann::json::array()}};
      for (const auto& [length, p] : pooled.at({c->task, c->model, c->width, c->lr_index})) {
        row["lengths"].push_back(length);
        row["accuracy"].push_back(p.accuracy());
      }
      rows.push_back(std::move(row));
    }
}

}  // namespace recurlab::analysis
