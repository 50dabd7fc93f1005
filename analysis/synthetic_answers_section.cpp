#include "analysis/synthetic_answers_section.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "analysis/figure.h"
#include "analysis/number_format.h"
#include "analysis/report_table.h"

namespace recurlab::analysis {
namespace {

// A cell's test questions by what the answer named.
struct AnswerShares {
  double questions = 0, right = 0, other_shown = 0, none_shown = 0;
  int64_t items = 0;  // the most items a question asked for (MQAR: its pairs)
  double percent(double count) const { return 100 * count / questions; }
  // Right among the answers that named one of the sequence's answers: 1/items when the values
  // are kept and the keys they belong to are not.
  double rightAmongShown() const { return 100 * right / (right + other_shown); }
};

AnswerShares answerShares(const SyntheticCell& c) {
  AnswerShares s;
  for (size_t i = 0; i < c.question_correct.size(); ++i) {
    s.questions += 1;
    s.items = std::max(s.items, static_cast<int64_t>(c.question_item[i]));
    if (c.question_correct[i] == 1) s.right += 1;
    else if (c.question_answered_item[i] > 0) s.other_shown += 1;
    else s.none_shown += 1;
  }
  return s;
}

ReportTable::Cell percentCell(double value) {
  return std::isfinite(value) ? ReportTable::Cell(formatFixed(value, 1), value) : ReportTable::Cell("–");
}

void writeTaskTable(const std::string& task, const std::vector<const SyntheticCell*>& cells,
                    Report& report) {
  auto table = ReportTable::withHeaders({"width", "model", "right", "another answer of the sequence",
                                         "none of its answers", "right among its answers"});
  for (const auto* c : cells) {
    const auto s = answerShares(*c);
    table.addRow({std::to_string(c->width), c->model, percentCell(s.percent(s.right)),
                  percentCell(s.percent(s.other_shown)), percentCell(s.percent(s.none_shown)),
                  percentCell(s.rightAmongShown())});
  }
  report.table(table, "synthetic_recall_answers_" + task,
               task + ": what the test answers named (% of questions): the right answer, "
               "another of the sequence's answers, none of them; and the right share of the "
               "answers that named one of the sequence's answers.");
}

// Per (task, width) a bar panel: per model the three shares of its questions.
Figure answersFigure(const SyntheticCellGroups& groups) {
  Figure figure;
  figure.columns = 1;
  figure.shared_key = true;
  for (const auto& [key, cells] : groups.by_task_width) {
    Panel panel;
    panel.title = key.first + ", width " + std::to_string(key.second);
    panel.x.label = "model";
    panel.y = {"test questions (%)", AxisScale::Linear, false, std::make_pair(0.0, 100.0)};
    BarSeries right{"right", {}, {}, 0}, other{"another answer of the sequence", {}, {}, 1},
        none{"none of its answers", {}, {}, 2};
    for (const auto* c : cells) {
      const auto s = answerShares(*c);
      panel.categories.push_back(c->model);
      right.values.push_back(s.percent(s.right));
      other.values.push_back(s.percent(s.other_shown));
      none.values.push_back(s.percent(s.none_shown));
    }
    panel.bars = {right, other, none};
    figure.panels.push_back(panel);
  }
  int64_t most_models = 0;
  for (const auto& [key, cells] : groups.by_task_width) most_models = std::max<int64_t>(most_models, cells.size());
  figure.width = std::max<int>(900, 80 * static_cast<int>(most_models) + 200);  // labels apart
  figure.height = 420 * static_cast<int>(figure.panels.size()) + 140;
  return figure;
}

}  // namespace

void writeAnswersSection(const std::vector<SyntheticCell>& cells, Report& report) {
  const auto groups = groupCells(cells, [](const SyntheticCell& c) {
    return !c.question_answered_item.empty() && answerShares(c).items >= 2;
  });
  if (groups.empty()) return;
  report.heading(3, "What the answers named");
  report.paragraph(
      "Each test answer of the recall tasks with more than one answer per sequence, by what it "
      "named: the right answer; another of the answers the sequence showed (MQAR: another "
      "pair's value, a key bound to the wrong value); or none of them. A mixer that keeps the "
      "values of a context but not which key each belongs to names one of them every time and "
      "the right one about once in D (D pairs): the last column near 100/D %.");
  for (const auto& [task, task_cells] : groups.by_task) writeTaskTable(task, task_cells, report);
  report.figure(answersFigure(groups), "recall_answers",
                "What the test answers named, per recall task and width, at each model's best "
                "learning rate: right, another of the sequence's answers, none of them (each "
                "model's three bars sum to 100%).");
  auto& rows = report.summary()["synthetic_recall_answers"] = nlohmann::json::array();
  for (const auto& [task, task_cells] : groups.by_task)
    for (const auto* c : task_cells) {
      const auto s = answerShares(*c);
      rows.push_back({{"task", c->task}, {"model", c->model}, {"width", c->width},
                      {"questions", s.questions}, {"right", s.right / s.questions},
                      {"another_answer", s.other_shown / s.questions},
                      {"none_of_its_answers", s.none_shown / s.questions}});
    }
}

}  // namespace recurlab::analysis
