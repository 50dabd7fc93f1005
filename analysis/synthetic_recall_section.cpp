#include "analysis/synthetic_recall_section.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "analysis/figure.h"
#include "analysis/number_format.h"
#include "analysis/report_table.h"

namespace recurlab::analysis {
namespace {

// Items are pooled into at most this many columns of the table (the figure shows every item).
constexpr int64_t kItemColumns = 8;
// A lag bin with fewer questions is left out of the figure: too few to read a rate from.
constexpr double kMinQuestionsPerBin = 20;

struct Tally {
  double right = 0, asked = 0;
  double percent() const { return 100 * right / asked; }
};

// Accuracy per key of `key_of(question)`, over the cell's (every seed's) test questions.
template <typename KeyOf>
std::map<int64_t, Tally> tallyBy(const SyntheticCell& c, KeyOf key_of) {
  std::map<int64_t, Tally> by;
  for (size_t i = 0; i < c.question_correct.size(); ++i) {
    auto& t = by[key_of(i)];
    t.right += c.question_correct[i], t.asked += 1;
  }
  return by;
}

std::map<int64_t, Tally> byItem(const SyntheticCell& c) {
  return tallyBy(c, [&](size_t i) { return static_cast<int64_t>(c.question_item[i]); });
}

// Lags in powers of two: bin b holds lags 2^b .. 2^(b+1) - 1.
std::map<int64_t, Tally> byLag(const SyntheticCell& c) {
  return tallyBy(c, [&](size_t i) { return static_cast<int64_t>(std::floor(std::log2(c.question_lag[i]))); });
}

// The most items any of `cells` asked for (MQAR: its pairs; induction: 1).
int64_t mostItems(const std::vector<const SyntheticCell*>& cells) {
  double most = 0;
  for (const auto* c : cells)
    most = std::max(most, *std::max_element(c->question_item.begin(), c->question_item.end()));
  return static_cast<int64_t>(most);
}

std::string range(int64_t first, int64_t last) {
  return first == last ? std::to_string(first) : std::to_string(first) + "–" + std::to_string(last);
}

// One task's table: a row per width and model, a column per item (or per run of items).
void writeItemTable(const std::string& task, const std::vector<const SyntheticCell*>& cells,
                    Report& report) {
  const int64_t items = mostItems(cells);
  const int64_t per_column = (items + kItemColumns - 1) / kItemColumns;
  std::vector<std::string> headers = {"width", "model", "test acc"};
  for (int64_t first = 1; first <= items; first += per_column)
    headers.push_back("item " + range(first, std::min(items, first + per_column - 1)));
  auto table = ReportTable::withHeaders(headers);
  for (const auto* c : cells) {
    std::vector<Tally> columns(static_cast<size_t>((items + per_column - 1) / per_column));
    for (const auto& [item, t] : byItem(*c)) {
      auto& column = columns[static_cast<size_t>((item - 1) / per_column)];
      column.right += t.right, column.asked += t.asked;
    }
    std::vector<ReportTable::Cell> row = {std::to_string(c->width), c->model,
                                          ReportTable::Cell(formatPercent(c->test), 100 * c->test)};
    for (const auto& t : columns)
      row.push_back(t.asked > 0 ? ReportTable::Cell(formatFixed(t.percent(), 1), t.percent())
                                : ReportTable::Cell("–"));
    table.addRow(row);
  }
  report.table(table, "synthetic_recall_by_item_" + task,
               task + ": test accuracy (%) by the item asked for (1 = shown first)");
}

Panel panelFor(const std::string& task, int64_t width, const std::string& x_label) {
  Panel panel;
  panel.title = task + ", width " + std::to_string(width);
  panel.x.label = x_label;
  panel.y = {"test accuracy (%)", AxisScale::Linear, false, std::make_pair(0.0, 100.0)};
  return panel;
}

// Per (task, width) a panel, a line per model: accuracy by item, or by lag.
Figure recallFigure(const SyntheticCellGroups& groups, bool by_lag) {
  Figure figure;
  figure.shared_key = true;
  std::map<std::string, int> style_of;  // the same model, the same style in every panel
  for (const auto& [key, cells] : groups.by_task_width) {
    if (!by_lag && mostItems(cells) < 2) continue;  // one item: nothing to split
    Panel panel = panelFor(key.first, key.second, by_lag ? "lag (positions back)" : "item asked for");
    if (by_lag) panel.x.scale = AxisScale::Log2;
    panel.x.integer_ticks = !by_lag;
    for (const auto* c : cells) {
      LineSeries line;
      line.title = c->model;
      line.style = style_of.emplace(c->model, static_cast<int>(style_of.size())).first->second;
      for (const auto& [k, t] : by_lag ? byLag(*c) : byItem(*c)) {
        if (by_lag && t.asked < kMinQuestionsPerBin) continue;
        // A lag bin's point at its lags' geometric middle.
        line.x.push_back(by_lag ? std::exp2(k) * std::sqrt(2.0) - 0.5 : static_cast<double>(k));
        line.y.push_back(t.percent());
      }
      if (!line.x.empty()) panel.lines.push_back(line);
    }
    if (!panel.lines.empty()) figure.panels.push_back(panel);
  }
  figure.height = sharedKeyGridHeight(figure.panels.size());
  return figure;
}

}  // namespace

void writeRecallSection(const std::vector<SyntheticCell>& cells, Report& report) {
  const auto groups =
      groupCells(cells, [](const SyntheticCell& c) { return !c.question_correct.empty(); });
  if (groups.empty()) return;
  report.heading(2, "What the recall tasks' questions ask for");
  report.paragraph(
      "Test accuracy of the recall tasks by the item a question asks for (1: the answer the "
      "sequence showed first; MQAR's key-value pairs in context order) and by its lag (positions "
      "from where the answer stood to the question), at each model's best learning rate, seeds "
      "pooled. A mixer that keeps only the last pair it read is right on the last item and near "
      "chance before it; one whose memory fades with distance loses the long lags first.");
  bool items = false;
  for (const auto& [task, task_cells] : groups.by_task) {
    if (mostItems(task_cells) < 2) continue;  // induction: one answer per sequence
    writeItemTable(task, task_cells, report);
    items = true;
  }
  if (items)
    report.figure(recallFigure(groups, false), "recall_by_item",
                  "Test accuracy by the item asked for (1 = shown first), per recall task and "
                  "width, at each model's best learning rate.");
  const Figure by_lag = recallFigure(groups, true);
  if (!by_lag.panels.empty())  // every bin too small: the summary still has them
    report.figure(by_lag, "recall_by_lag",
                  "Test accuracy by lag, the positions from the answer to its question, in bins "
                  "of powers of two (1, 2–3, 4–7, ...), drawn at each bin's middle; bins with "
                  "fewer than " + formatFixed(kMinQuestionsPerBin, 0) + " questions are left out.");
  auto& rows = report.summary()["synthetic_recall"] = nlohmann::json::array();
  for (const auto& c : cells) {
    if (c.question_correct.empty()) continue;
    nlohmann::json by_item = nlohmann::json::object(), by_lag = nlohmann::json::object();
    for (const auto& [item, t] : byItem(c)) by_item[std::to_string(item)] = t.right / t.asked;
    for (const auto& [bin, t] : byLag(c))
      by_lag[range(int64_t{1} << bin, (int64_t{2} << bin) - 1)] = t.right / t.asked;
    rows.push_back({{"task", c.task}, {"model", c.model}, {"width", c.width},
                    {"acc_by_item", by_item}, {"acc_by_lag", by_lag}});
  }
}

}  // namespace recurlab::analysis
