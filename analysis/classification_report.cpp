// Report for `recurlab_classification` runs (experiment kind "classification"): the accuracy
// table (mean ± std over folds and seeds, the paper's numbers beside ours), search trials,
// learning curves and time per epoch. Reads every log of the run folder (log.h5 and the
// log.shard-i-of-n.h5 of a sharded run) and merges their units.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "analysis/report_registry.h"

namespace recurlab::analysis {
namespace {

namespace fs = std::filesystem;
using experiments::Hdf5RunLog;

// Paper anchors (design.md §6): Kim (2014) CNN-rand (no pretrained vectors) and SRU's best
// rows (seed 000, with word2vec). SST-5 is Kim's SST-1.
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

std::string fixed(double x, int digits = 1) {
  if (!std::isfinite(x)) return "–";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
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

std::vector<std::string> logFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name == "log.h5" || (name.rfind("log.shard-", 0) == 0 && e.path().extension() == ".h5"))
      files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
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

void buildClassificationReport(const RunReader& run, Report& report) {
  std::vector<Unit> units;
  std::vector<std::string> files = logFiles(run.runDirectory());
  for (const auto& f : files) {
    if (fs::equivalent(f, run.logPath())) {
      readUnits(run.log(), units);
    } else {
      Hdf5RunLog other(f, Hdf5RunLog::Mode::ReadOnly);
      readUnits(other, units);
    }
  }
  std::vector<Unit> finals, trials;
  for (const auto& u : units) (u.kind == "trial" ? trials : finals).push_back(u);
  const auto datasets = distinct(finals, [](const Unit& u) { return u.dataset; }, kDatasetOrder);
  const auto models = distinct(finals, [](const Unit& u) { return u.model; });
  auto& summary = report.summary();
  summary["logs"] = files;
  summary["units_finished"] = units.size();

  report.heading(2, "Test accuracy (%)");
  report.paragraph(
      "Mean ± standard deviation over folds and seeds of the test accuracy at the epoch of best "
      "dev accuracy (n = folds × seeds per cell; a single run shows no ±). Paper rows: Kim "
      "(2014) CNN-rand, embeddings trained from random init as here, and the best SRU rows of "
      "seed 000 (with fixed word2vec vectors, so not directly comparable to runs without "
      "--embeddings). SST-5 is Kim's SST-1.");
  std::vector<std::string> headers = {"model"};
  for (const auto& d : datasets) headers.push_back(d);
  headers.push_back("n");
  MarkdownTable acc(headers, std::vector<MarkdownTable::Align>(headers.size(), MarkdownTable::Align::Right));
  for (const auto& m : models) {
    std::vector<std::string> row = {m};
    size_t n = 0;
    for (const auto& d : datasets) {
      std::vector<double> xs;
      for (const auto& u : finals)
        if (u.model == m && u.dataset == d && u.status == "finished") xs.push_back(100 * u.test);
      const auto s = stats(xs);
      row.push_back(meanStd(s));
      n = std::max(n, s.n);
      summary["accuracy"][d][m] = {{"mean", s.mean}, {"std", s.std}, {"n", s.n}};
    }
    row.push_back(std::to_string(n));
    acc.addRow(row);
  }
  for (const auto& [label, numbers] : {std::pair{"Kim CNN-rand (paper)", &kKimCnnRand},
                                       std::pair{"SRU, word2vec (paper)", &kSruPaper}}) {
    std::vector<std::string> row = {std::string("*") + label + "*"};
    for (const auto& d : datasets) {
      const auto it = numbers->find(d);
      row.push_back(it == numbers->end() ? "–" : fixed(it->second));
    }
    row.push_back("");
    acc.addRow(row);
  }
  report.table(acc);

  size_t diverged = 0;
  for (const auto& u : units) diverged += u.status != "finished";
  if (diverged) report.paragraph(std::to_string(diverged) + " unit(s) diverged (NaN/inf loss) and are left out; see the units table.");

  report.heading(2, "Time per epoch");
  report.paragraph("Mean training seconds per epoch (evaluation excluded) and the model's trainable parameters.");
  auto time_headers = headers;
  time_headers.back() = "parameters";
  MarkdownTable time(time_headers, std::vector<MarkdownTable::Align>(headers.size(), MarkdownTable::Align::Right));
  Figure time_fig;
  time_fig.title = "Training time per epoch";
  Panel time_panel;
  time_panel.xlabel = "dataset (";
  for (size_t i = 0; i < datasets.size(); ++i) time_panel.xlabel += (i ? ", " : "") + std::to_string(i + 1) + " " + datasets[i];
  time_panel.xlabel += ")";
  time_panel.ylabel = "seconds per epoch";
  time_panel.key = "top left";
  for (size_t mi = 0; mi < models.size(); ++mi) {
    const auto& m = models[mi];
    std::vector<std::string> row = {m};
    Series s;
    s.title = m;
    s.style = "linespoints pt 7 lw 2 lc " + paletteColor(mi);
    int64_t params = 0;
    for (size_t di = 0; di < datasets.size(); ++di) {
      std::vector<double> xs;
      for (const auto& u : finals)
        if (u.model == m && u.dataset == datasets[di] && u.epochs > 0) {
          xs.push_back(u.seconds_per_epoch);
          params = u.parameters;
        }
      const auto st = stats(xs);
      row.push_back(fixed(st.mean, 2));
      summary["seconds_per_epoch"][m][datasets[di]] = st.mean;
      s.x.push_back(static_cast<double>(di + 1));
      s.y.push_back(st.mean);
    }
    row.push_back(std::to_string(params));
    time.addRow(row);
    time_panel.series.push_back(s);
  }
  report.table(time);
  time_panel.x_range = std::pair{0.5, datasets.size() + 0.5};
  time_fig.panels.push_back(time_panel);
  report.figure(time_fig, "time_per_epoch.png", "Training seconds per epoch, per dataset and model.");

  report.heading(2, "Learning curves");
  Figure curves;
  curves.title = "Dev accuracy per epoch (mean over folds and seeds)";
  curves.cols = std::min<int>(4, static_cast<int>(datasets.size()));
  curves.rows = (static_cast<int>(datasets.size()) + curves.cols - 1) / std::max(1, curves.cols);
  curves.width = 360 * curves.cols;
  curves.height = 300 * curves.rows;
  for (const auto& d : datasets) {
    Panel p;
    p.title = d;
    p.xlabel = "epoch";
    p.ylabel = "dev accuracy (%)";
    p.key = "bottom right";
    for (size_t mi = 0; mi < models.size(); ++mi) {
      std::map<int64_t, std::vector<double>> by_epoch;
      for (const auto& u : finals)
        if (u.model == models[mi] && u.dataset == d && !u.curve.rows.empty()) {
          const auto epoch = u.curve.column("epoch");
          const auto dev = u.curve.column("dev_acc");
          for (size_t i = 0; i < epoch.size(); ++i) by_epoch[static_cast<int64_t>(epoch[i])].push_back(100 * dev[i]);
        }
      Series s;
      s.title = models[mi];
      s.style = "linespoints pt 7 ps 0.5 lc " + paletteColor(mi);
      for (const auto& [e, xs] : by_epoch) {
        s.x.push_back(static_cast<double>(e));
        s.y.push_back(stats(xs).mean);
      }
      p.series.push_back(s);
    }
    curves.panels.push_back(p);
  }
  if (!curves.panels.empty())
    report.figure(curves, "learning_curves.png", "Dev accuracy per epoch, per dataset and model.");

  if (!trials.empty()) {
    report.heading(2, "Random search");
    report.paragraph("Trials ran on fold 0 and were selected on dev accuracy; the chosen one (★) was retrained on every fold with every seed.");
    MarkdownTable t({"dataset", "model", "trial", "dev %", "test %", "epochs", "status", "config"});
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
            std::string brief = cfg.is_object() ? cfg.value("model", nlohmann::json()).dump() + " " +
                                                      cfg.value("train", nlohmann::json()).dump()
                                                : u.config;
            t.addRow({d, m, std::to_string(u.trial) + (u.trial == chosen ? " ★" : ""),
                      fixed(100 * u.best_dev), fixed(100 * u.test), std::to_string(u.epochs),
                      u.status, "`" + brief + "`"});
          }
      }
    report.table(t);
  }

  report.heading(2, "Units");
  MarkdownTable list({"dataset", "model", "fold", "seed", "dev %", "test %", "best epoch", "epochs", "s/epoch", "stop"});
  for (const auto& u : finals)
    list.addRow({u.dataset, u.model, std::to_string(u.fold), std::to_string(u.seed_index),
                 fixed(100 * u.best_dev), fixed(100 * u.test), std::to_string(u.best_epoch),
                 std::to_string(u.epochs), fixed(u.seconds_per_epoch, 2), u.stop_reason});
  report.table(list);
}

}  // namespace

void registerClassificationReport() {
  registerReport("classification",
                 "sentence classification: accuracy table with the paper's numbers, learning "
                 "curves, time per epoch",
                 buildClassificationReport);
}

}  // namespace recurlab::analysis
