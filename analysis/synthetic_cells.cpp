#include "analysis/synthetic_cells.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/run_reader.h"
#include "analysis/sample_statistics.h"

namespace recurlab::analysis {
namespace {

using experiments::Hdf5RunLog;

double standardDeviation(const std::vector<double>& xs) {
  if (xs.size() < 2) return 0;
  const double m = mean(xs);
  double ss = 0;
  for (double x : xs) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(xs.size() - 1));
}

std::vector<double> arrayIfLogged(const Hdf5RunLog& log, const std::string& dataset) {
  return log.exists(dataset) ? log.readArray(dataset) : std::vector<double>{};
}

void readUnit(const Hdf5RunLog& log, const std::string& g, std::vector<SyntheticUnit>& units) {
  if (!log.attribute(g, "width")) return;  // not started its training yet
  SyntheticUnit u;
  u.group = g;
  u.task = log.stringAttribute(g, "task");
  u.kind = log.stringAttribute(g, "kind");
  u.model = log.stringAttribute(g, "model");
  u.encoder = log.stringAttribute(g, "encoder");
  u.width = log.intAttribute(g, "width");
  u.lr_index = log.intAttribute(g, "lr_index");
  u.seed_index = log.intAttribute(g, "seed_index");
  u.state_size = log.intAttribute(g, "state_size");
  // Logs written before lengths could vary have every sequence at the length; before the dev
  // keys, dev sequences had the train range.
  const auto orDefault = [&](const std::string& name, int64_t otherwise) {
    return log.attribute(g, name) ? log.intAttribute(g, name) : otherwise;
  };
  // <split>_length is always logged, <split>_min_length since lengths can vary.
  const auto lengthsOf = [&](const std::string& split) {
    const int64_t max = log.intAttribute(g, split + "_length");
    return SyntheticLengths{orDefault(split + "_min_length", max), max};
  };
  u.train_lengths = lengthsOf("train");
  u.test_lengths = lengthsOf("test");
  u.dev_lengths = {orDefault("dev_min_length", u.train_lengths.min),
                   orDefault("dev_length", u.train_lengths.max)};
  u.lr = log.doubleAttribute(g, "lr");
  u.status = log.attribute(g, "status") ? log.stringAttribute(g, "status") : "running";
  if (u.status != "running") {
    u.dev = log.doubleAttribute(g, "best_dev_acc");
    u.test = log.doubleAttribute(g, "test_acc");
    u.test_exact = log.doubleAttribute(g, "test_exact");
    u.seconds = log.doubleAttribute(g, "unit_seconds");
    u.sequence_acc = arrayIfLogged(log, g + "/test_sequence_acc");
    u.sequence_length = arrayIfLogged(log, g + "/test_sequence_length");
    u.question_correct = arrayIfLogged(log, g + "/test_question_correct");
    u.question_item = arrayIfLogged(log, g + "/test_question_item");
    u.question_lag = arrayIfLogged(log, g + "/test_question_lag");
    u.question_answered_item = arrayIfLogged(log, g + "/test_question_answered_item");
  }
  units.push_back(std::move(u));
}

void append(std::vector<double>& to, const std::vector<double>& more) {
  to.insert(to.end(), more.begin(), more.end());
}

// The finished units of one (task, model, width) at the rate with the best mean dev accuracy.
SyntheticCell bestRateCell(const std::vector<const SyntheticUnit*>& units) {
  std::map<int64_t, std::vector<const SyntheticUnit*>> by_rate;
  for (const auto* u : units) by_rate[u->lr_index].push_back(u);
  const std::vector<const SyntheticUnit*>* best = nullptr;
  double best_dev = -1;
  for (const auto& [rate, us] : by_rate) {
    std::vector<double> devs;
    for (const auto* u : us) devs.push_back(u->dev);
    if (mean(devs) > best_dev) best_dev = mean(devs), best = &us;
  }
  int64_t tied = 0;
  for (const auto& [rate, us] : by_rate) {
    std::vector<double> devs;
    for (const auto* u : us) devs.push_back(u->dev);
    tied += mean(devs) == best_dev;
  }
  auto chosen = *best;
  std::sort(chosen.begin(), chosen.end(), [](const SyntheticUnit* a, const SyntheticUnit* b) {
    return a->seed_index < b->seed_index;
  });
  SyntheticCell c;
  const SyntheticUnit& first = *chosen.front();
  c.task = first.task, c.model = first.model, c.encoder = first.encoder, c.width = first.width;
  c.state_size = first.state_size, c.test_length = first.test_lengths.max, c.lr = first.lr;
  c.lr_index = first.lr_index;
  c.seeds = static_cast<int64_t>(chosen.size());
  c.tied_rates = tied;
  c.finished_units = static_cast<int64_t>(units.size());
  std::vector<double> tests, exacts, seconds;
  bool lengths = true, questions = true, answers = true;
  for (const auto* u : chosen) {
    tests.push_back(u->test), exacts.push_back(u->test_exact);
    append(c.sequence_acc, u->sequence_acc);
    append(c.sequence_length, u->sequence_length);
    append(c.question_correct, u->question_correct);
    append(c.question_item, u->question_item);
    append(c.question_lag, u->question_lag);
    append(c.question_answered_item, u->question_answered_item);
    lengths = lengths && u->sequence_length.size() == u->sequence_acc.size();
    questions = questions && !u->question_correct.empty() &&
                u->question_item.size() == u->question_correct.size() &&
                u->question_lag.size() == u->question_correct.size();
    answers = answers && u->question_answered_item.size() == u->question_correct.size();
  }
  if (!lengths) c.sequence_length.clear();
  if (!questions) c.question_correct.clear(), c.question_item.clear(), c.question_lag.clear();
  if (!questions || !answers) c.question_answered_item.clear();
  for (const auto* u : units) seconds.push_back(u->seconds);
  c.dev = best_dev, c.test = mean(tests), c.test_std = standardDeviation(tests);
  c.exact = mean(exacts), c.seconds = mean(seconds);
  return c;
}

}  // namespace

// /<task>/<model>/w<width>/lr<i>/seeds/<s>.
void readSyntheticUnits(const Hdf5RunLog& log, std::vector<SyntheticUnit>& units) {
  for (const auto& t : log.children("/")) {
    if (!isLogGroup(log, "/" + t)) continue;
    for (const auto& m : log.children("/" + t))
      for (const auto& w : log.children("/" + t + "/" + m))
        for (const auto& lr : log.children("/" + t + "/" + m + "/" + w)) {
          const std::string seeds = "/" + t + "/" + m + "/" + w + "/" + lr + "/seeds";
          if (!isLogGroup(log, seeds)) continue;
          for (const auto& s : log.children(seeds)) readUnit(log, seeds + "/" + s, units);
        }
  }
}

std::vector<SyntheticCell> bestRateCells(const std::vector<SyntheticUnit>& units) {
  std::map<std::tuple<std::string, std::string, int64_t>, std::vector<const SyntheticUnit*>> groups;
  for (const auto& u : units)
    if (u.status == "finished") groups[{u.task, u.model, u.width}].push_back(&u);
  std::vector<SyntheticCell> cells;
  for (const auto& [key, us] : groups) cells.push_back(bestRateCell(us));
  return cells;
}

SyntheticCellGroups groupCells(const std::vector<SyntheticCell>& cells,
                               const std::function<bool(const SyntheticCell&)>& keep) {
  SyntheticCellGroups groups;
  for (const auto& c : cells)
    if (keep(c)) {
      groups.by_task[c.task].push_back(&c);
      groups.by_task_width[{c.task, c.width}].push_back(&c);
    }
  return groups;
}

}  // namespace recurlab::analysis
