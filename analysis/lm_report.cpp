// Report for `recurlab_lm` runs (experiment kind "lm"): the results table with the published
// numbers beside ours, learning curves (train and valid BPC or perplexity per epoch), time per
// epoch and symbols per second, and the share of a training step spent in the recurrence
// kernel vs the matmuls. Reads log.h5 alone (and the shard logs of a sharded run).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "analysis/report_registry.h"

namespace recurlab::analysis {
namespace {

namespace fs = std::filesystem;
using experiments::Hdf5RunLog;

struct Published {
  std::string model, parameters;
  double value;
};

// Test numbers from the papers (the reference note, docs/lm.md).
const std::map<std::string, std::vector<Published>> kPublished = {
    {"ptb-char",
     {{"LSTM 1x1000 (Cooijmans et al. 2016, Table 2)", "~4.25M", 1.38},
      {"HM-LSTM (Chung et al. 2017)", "–", 1.24},
      {"6-layer QRNN (Merity et al. 2018)", "13.8M", 1.187},
      {"3-layer AWD-LSTM (Merity et al. 2018)", "13.8M", 1.175}}},
    {"ptb-word",
     {{"LSTM small (Zaremba et al. 2014)", "~4.65M", 114.5},
      {"LSTM medium (Zaremba et al. 2014)", "~19.8M", 82.7},
      {"LSTM large (Zaremba et al. 2014)", "~66M", 78.4},
      {"AWD-LSTM (Merity et al. 2018)", "24M", 57.3}}},
    {"enwik8", {{"SRU (Lei et al. 2018, App. B.4)", "~37-47M", 1.19}}},
};

struct Unit {
  std::string group, corpus, model, encoder, metric, status, stop_reason;
  std::string init_from;           // a kept model it started from (config init_from)
  nlohmann::json kept_manifest;    // that kept model's manifest, as the unit logged it
  int64_t kept_epochs = 0;         // its epochs: this run's count on from them
  int64_t parameters = 0, hidden = 0, epochs = 0, best_epoch = 0, profile_steps = 0;
  int64_t unknown_valid = 0, unknown_test = 0;
  double valid = NAN, test = NAN, seconds_per_epoch = NAN, symbols_per_second = NAN;
  double profile_seconds = NAN, matmul = NAN, recurrence = NAN, other = NAN;
  experiments::Table curve;
};

double num(const Hdf5RunLog& log, const std::string& g, const std::string& name) {
  return log.attribute(g, name) ? log.doubleAttribute(g, name) : NAN;
}
int64_t count(const Hdf5RunLog& log, const std::string& g, const std::string& name) {
  return log.attribute(g, name) ? log.intAttribute(g, name) : 0;
}
std::string text(const Hdf5RunLog& log, const std::string& g, const std::string& name) {
  return log.attribute(g, name) ? log.stringAttribute(g, name) : "";
}

double fromNats(double nats, const std::string& metric) {
  return metric == "ppl" ? std::exp(nats) : nats / std::log(2.0);
}

void readUnits(const Hdf5RunLog& log, std::vector<Unit>& units) {
  for (const auto& c : log.children("/"))
    for (const auto& m : log.children("/" + c)) {
      const std::string g = "/" + c + "/" + m;
      if (!log.attribute(g, "metric")) continue;
      Unit u;
      u.group = g;
      u.corpus = text(log, g, "corpus");
      u.model = text(log, g, "model");
      u.encoder = text(log, g, "encoder");
      u.metric = text(log, g, "metric");
      u.status = text(log, g, "status");
      u.stop_reason = text(log, g, "stop_reason");
      u.init_from = text(log, g, "init_from");
      u.kept_manifest = nlohmann::json::parse(text(log, g, "init_from_manifest"), nullptr, false);
      if (u.kept_manifest.is_object()) u.kept_epochs = u.kept_manifest.value("epoch", int64_t{0});
      u.parameters = count(log, g, "parameters");
      u.hidden = count(log, g, "hidden");
      u.epochs = count(log, g, "epochs");
      u.best_epoch = count(log, g, "best_epoch");
      u.unknown_valid = count(log, g, "unknown_valid");
      u.unknown_test = count(log, g, "unknown_test");
      u.valid = num(log, g, "best_valid_" + u.metric);
      u.test = num(log, g, "test_" + u.metric);
      u.seconds_per_epoch = num(log, g, "seconds_per_epoch");
      u.symbols_per_second = num(log, g, "symbols_per_second");
      u.profile_steps = count(log, g, "profile_steps");
      u.profile_seconds = num(log, g, "profile_seconds");
      u.matmul = num(log, g, "profile_matmul_seconds");
      u.recurrence = num(log, g, "profile_recurrence_seconds");
      u.other = num(log, g, "profile_other_seconds");
      if (log.exists(g + "/epochs")) u.curve = log.readTable(g + "/epochs");
      if (u.status.empty()) {
        // Still training (or cut off): its numbers so far, from the epoch rows.
        if (u.curve.rows.empty()) continue;
        u.status = "running";
        u.epochs = static_cast<int64_t>(u.curve.rows.size());
        const auto valid = u.curve.column("valid_nats"), test = u.curve.column("test_nats_at_best");
        const auto best = std::min_element(valid.begin(), valid.end()) - valid.begin();
        u.best_epoch = static_cast<int64_t>(u.curve.column("epoch")[static_cast<size_t>(best)]);
        u.valid = fromNats(valid[static_cast<size_t>(best)], u.metric);
        u.test = fromNats(test.back(), u.metric);
        const auto seconds = u.curve.column("seconds"), rates = u.curve.column("examples_per_second");
        double total = 0, symbols = 0;
        for (size_t k = 0; k < seconds.size(); ++k) total += seconds[k], symbols += rates[k] * seconds[k];
        u.seconds_per_epoch = total / static_cast<double>(seconds.size());
        u.symbols_per_second = total > 0 ? symbols / total : NAN;
      }
      units.push_back(std::move(u));
    }
}

std::string metricName(const std::string& metric) {
  return metric == "ppl" ? "perplexity" : "BPC";
}

// Models that started from a kept model (config key init_from) rather than a random init: which
// one, and what its manifest says it had reached, so that the epochs here read as further ones.
void writeStartingPoints(const std::vector<Unit>& units, Report& report) {
  std::vector<std::string> items;
  for (const auto& u : units) {
    if (u.init_from.empty()) continue;
    std::string item = u.model + ": `" + u.init_from + "`";
    const auto& manifest = u.kept_manifest;
    if (manifest.is_object() && manifest.contains("epoch") && manifest.contains("value"))
      item += " (its " + manifest.value("weights", std::string("kept")) + " weights, epoch " +
              std::to_string(manifest.value("epoch", int64_t{0})) + ", " +
              manifest.value("metric", std::string("metric")) + " " +
              formatFixed(manifest.value("value", NAN), 3) + ")";
    items.push_back(item);
    report.summary()["models"][u.model]["init_from"] = u.init_from;
  }
  if (items.empty()) return;
  report.paragraph("Started from kept models (config key init_from), not from a random init; "
                   "this run's epochs count on from their weights, with a fresh optimizer state:");
  report.bullets(items);
}

// Test numbers at the best valid epoch, beside the published ones.
void resultsSection(const RunReader& run, const std::vector<Unit>& units, Report& report) {
  auto& summary = report.summary();
  const std::string& corpus = units.front().corpus;
  const std::string& metric = units.front().metric;
  const std::string mname = metricName(units.front().metric);
  const auto config = run.config();
  report.heading(2, "Test " + mname + " (" + corpus + ")");
  report.paragraph(
      "Test " + mname + " at the epoch of best valid " + mname + ", over the whole test text "
      "with the state carried across segments; lower is better, the best of our rows in bold. "
      "Evaluation streams: " + std::to_string(config.value("lm", nlohmann::json::object())
                                                  .value("eval_batch_size", 10)) +
      " (each stream starts from a zero state; the literature's test protocol is one stream). "
      "Published rows (italics) are test numbers from the papers, trained far longer and "
      "usually larger" + std::string(corpus == "ptb-char" ? "" : "") + ".");
  ReportTable table({{"model", ReportTable::Align::Left},
                     {"encoder", ReportTable::Align::Left},
                     {"parameters"},
                     {"hidden"},
                     {"epochs"},
                     {"best epoch"},
                     {"valid " + mname, ReportTable::Align::Right, ReportTable::Best::Min},
                     {"test " + mname, ReportTable::Align::Right, ReportTable::Best::Min},
                     {"s / epoch", ReportTable::Align::Right, ReportTable::Best::Min},
                     {"symbols / s", ReportTable::Align::Right, ReportTable::Best::Max}});
  const int digits = metric == "ppl" ? 1 : 3;
  for (const auto& u : units) {
    table.addRow({u.status == "running" ? u.model + " (running)" : u.model, u.encoder,
                  {std::to_string(u.parameters), static_cast<double>(u.parameters)},
                  {std::to_string(u.hidden), static_cast<double>(u.hidden)},
                  {std::to_string(u.epochs), static_cast<double>(u.epochs)},
                  {std::to_string(u.best_epoch), static_cast<double>(u.best_epoch)},
                  {formatFixed(u.valid, digits), u.valid},
                  {formatFixed(u.test, digits), u.test},
                  {formatFixed(u.seconds_per_epoch, 1), u.seconds_per_epoch},
                  {formatFixed(u.symbols_per_second, 0), u.symbols_per_second}});
    summary["models"][u.model] = {{"parameters", u.parameters}, {"hidden", u.hidden},
                                  {"valid", u.valid}, {"test", u.test}, {"metric", metric},
                                  {"seconds_per_epoch", u.seconds_per_epoch},
                                  {"symbols_per_second", u.symbols_per_second},
                                  {"epochs", u.epochs}, {"status", u.status}};
  }
  const auto published = kPublished.find(corpus);
  if (published != kPublished.end())
    for (const auto& p : published->second)
      table.addRow({p.model, "", p.parameters, "", "", "", "–", {formatFixed(p.value, digits), p.value},
                    "", ""},
                   ReportTable::RowKind::Published);
  report.terminalTable("Test " + mname + " (" + corpus + ")", table);
  report.table(table, "results",
               "Test " + mname + " at the best valid epoch, parameters, time per epoch and "
               "training symbols per second; published test numbers in italics.");
  for (const auto& u : units)
    if (u.unknown_valid + u.unknown_test > 0) {
      report.paragraph(std::to_string(u.unknown_valid) + " valid and " +
                       std::to_string(u.unknown_test) +
                       " test symbols were unseen in training and scored as <unk>.");
      break;
    }

  writeStartingPoints(units, report);
}

void learningCurvesSection(const RunReader& run, const std::vector<Unit>& units, Report& report) {
  const std::string& metric = units.front().metric;
  const std::string mname = metricName(units.front().metric);
  report.heading(2, "Learning curves");
  Figure curves;
  curves.shared_key = true;
  curves.width = 1000;
  curves.height = 420;
  int64_t max_epoch = 0;
  for (const auto& [column, title] : {std::pair{"train_nats", "train (running mean over the epoch)"},
                                      std::pair{"valid_nats", "valid (whole text)"}}) {
    Panel p;
    p.title = title;
    p.x.label = "epoch";
    p.x.integer_ticks = true;
    p.y.label = std::string(column == std::string("train_nats") ? "train " : "valid ") +
                (metric == "ppl" ? "perplexity" : "bits per character");
    for (size_t i = 0; i < units.size(); ++i) {
      const auto& u = units[i];
      if (u.curve.rows.empty()) continue;
      LineSeries s;
      s.title = u.model;
      s.style = static_cast<int>(i);
      const auto epochs = u.curve.column("epoch");
      const auto nats = u.curve.column(column);
      for (size_t k = 0; k < epochs.size(); ++k) {
        s.x.push_back(epochs[k] + static_cast<double>(u.kept_epochs));
        s.y.push_back(fromNats(nats[k], metric));
        max_epoch = std::max(max_epoch, static_cast<int64_t>(epochs[k]) + u.kept_epochs);
      }
      p.lines.push_back(s);
    }
    curves.panels.push_back(p);
  }
  const bool continued = std::any_of(units.begin(), units.end(), [](const Unit& u) { return u.kept_epochs > 0; });
  if (max_epoch > 0)
    report.figure(curves, "learning_curves",
                  "Train and valid " + mname + " per epoch, one run per model (" +
                      std::to_string(units.size()) + " models, seed " + run.rootText("seed") + ")" +
                      (continued ? "; a model started from a kept model counts its epochs on from "
                                   "the kept model's (its first epoch here is the kept epoch + 1)"
                                 : "") + ".");
}

void timeSection(const RunReader& run, const std::vector<Unit>& units, Report& report) {
  report.heading(2, "Time per epoch");
  Figure time_fig;
  time_fig.width = 700;
  time_fig.height = 400;
  Panel bars;
  bars.x.label = "model";
  bars.y.label = "training time per epoch (s)";
  bars.key = KeyPlacement::Off;
  BarSeries secs;
  secs.title = "seconds per epoch";
  for (const auto& u : units) {
    bars.categories.push_back(u.model);
    secs.values.push_back(u.seconds_per_epoch);
  }
  bars.bars.push_back(secs);
  time_fig.panels.push_back(bars);
  report.figure(time_fig, "time_per_epoch",
                "Training seconds per epoch (evaluation excluded), one run per model, " +
                    run.rootText("threads") + " thread(s) as logged in the environment section.");
  writeWallClockNote(report);
}

void stepShareSection(const std::vector<Unit>& units, Report& report) {
  auto& summary = report.summary();
  report.heading(2, "Where a training step's time goes");
  report.paragraph(
      "Self time of the operators on a few real training steps (forward and backward, no "
      "update) of each trained model, measured after training: \"recurrence\" is the "
      "elementwise recurrence (the SRU kernel op; for the LSTM the ops inside aten::lstm other "
      "than its matmuls, forward only, its backward gate math falling under \"other\"), "
      "\"matmul\" every matrix product, \"other\" the rest (embedding, softmax and loss, dropout, "
      "elementwise backward). Shares are of the step's wall time.");
  ReportTable share({{"model", ReportTable::Align::Left}, {"steps"}, {"ms / step"},
                     {"recurrence %"}, {"matmul %"}, {"other ops %"}, {"untracked %"}});
  for (const auto& u : units) {
    if (!(u.profile_seconds > 0) || u.profile_steps == 0) continue;
    const double w = u.profile_seconds;
    const double untracked = std::max(0.0, w - u.matmul - u.recurrence - u.other);
    share.addRow({u.model, std::to_string(u.profile_steps),
                  {formatFixed(1000 * w / static_cast<double>(u.profile_steps), 1), w},
                  {formatFixed(100 * u.recurrence / w, 1), u.recurrence / w},
                  {formatFixed(100 * u.matmul / w, 1), u.matmul / w},
                  {formatFixed(100 * u.other / w, 1), u.other / w},
                  {formatFixed(100 * untracked / w, 1), untracked / w}});
    summary["step_share"][u.model] = {{"recurrence", u.recurrence / w}, {"matmul", u.matmul / w},
                                      {"other", u.other / w}, {"ms_per_step", 1000 * w / static_cast<double>(u.profile_steps)}};
  }
  if (share.rows() > 0)
    report.table(share, "step_share", "Share of training-step time by operator category.");
}

void buildLmReport(const RunReader& run, Report& report) {
  std::vector<Unit> units;
  run.forEachLog([&](const Hdf5RunLog& log) { readUnits(log, units); });
  const auto running = std::count_if(units.begin(), units.end(),
                                     [](const Unit& u) { return u.status == "running"; });
  std::vector<std::string> logged;
  for (const auto& u : units) logged.push_back(u.group);
  writePlannedUnitsInProgress(run, logged, running, report, "models",
                              "the epochs logged so far, the best valid epoch among them, the "
                              "test number at that epoch and the mean time per epoch");
  if (units.empty()) {
    report.paragraph("No model has finished an epoch yet.");
    return;
  }
  resultsSection(run, units, report);
  learningCurvesSection(run, units, report);
  timeSection(run, units, report);
  stepShareSection(units, report);
}

}  // namespace

void registerLmReport() {
  registerReport("lm",
                 "language modelling: test BPC/perplexity with the published numbers, learning "
                 "curves, time per epoch, recurrence vs matmul share of step time",
                 buildLmReport);
}

}  // namespace recurlab::analysis
