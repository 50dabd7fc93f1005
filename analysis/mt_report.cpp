// Report for `recurlab_mt` runs (experiment kind "mt"): the BLEU-per-epoch table of Lei et al.
// (2018), Table 7 (rows epochs, columns models, valid and test, plus the mean over a window of
// the last epochs), the final test BLEU after checkpoint averaging with sacreBLEU's signature
// and the published number beside ours, train and valid perplexity curves (their Figure 7),
// one test sentence's attention map per decoder layer (Gehring et al. 2017, Figure 3), speed,
// and the test translations as text files. Everything comes from log.h5.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "analysis/report_registry.h"
#include "metrics/bleu_tokenizer.h"
#include "metrics/paired_bleu.h"

namespace recurlab::analysis {
namespace {

using experiments::Hdf5RunLog;

// Wu et al. (2021), text-only Transformer-Tiny on Multi30k En-De test2016: tokenized,
// lowercased BLEU (fairseq's scorer on Moses-tokenized text), beam 5, last 10 checkpoints
// averaged.
constexpr double kPublishedTransformerTiny = 41.02;
constexpr int kWindow = 5;  // epochs averaged in the table's last row

struct ModelRun {
  std::string name, model, status, stop_reason;
  std::string log_file;  // the (shard) log holding this model's unit
  experiments::Table epochs;
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> texts;
};

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::string fixed(double x, int digits = 2) { return formatFixed(x, digits); }

ModelRun readModel(const Hdf5RunLog& log, const std::string& name) {
  ModelRun m;
  const std::string g = "/" + name;
  m.name = name;
  for (const auto& [key, value] : log.attributes(g)) {
    if (const auto* s = std::get_if<std::string>(&value)) m.texts[key] = *s;
    else if (const auto* d = std::get_if<double>(&value)) m.numbers[key] = *d;
    else if (const auto* i = std::get_if<int64_t>(&value)) m.numbers[key] = static_cast<double>(*i);
  }
  m.model = m.texts.count("model") ? m.texts["model"] : name;
  m.status = m.texts.count("status") ? m.texts["status"] : "unfinished";
  m.stop_reason = m.texts.count("stop_reason") ? m.texts["stop_reason"] : "";
  if (log.exists(g + "/epochs")) m.epochs = log.readTable(g + "/epochs");
  return m;
}

double number(const ModelRun& m, const std::string& key) {
  const auto it = m.numbers.find(key);
  return it == m.numbers.end() ? NAN : it->second;
}

std::vector<double> column(const ModelRun& m, const std::string& name) {
  if (m.epochs.rows.empty()) return {};
  const auto& c = m.epochs.columns;
  if (std::find(c.begin(), c.end(), name) == c.end()) return {};
  return m.epochs.column(name);
}

// Paired significance of each model against the baseline (the model named "transformer" when
// there is one, else the first) on the test translations in the log: paired bootstrap
// resampling (1000 resamples: mean and 95% interval) and paired approximate randomization
// (10000 trials), for sacreBLEU's default BLEU and for the papers' tokenized lowercased BLEU.
void pairedSignificanceSection(const std::vector<ModelRun>& models, Report& report) {
  std::vector<const ModelRun*> systems;
  std::vector<std::vector<std::string>> hypotheses;
  std::vector<std::string> references;
  std::vector<const ModelRun*> order;
  for (const auto& m : models)
    if (m.name == "transformer") order.push_back(&m);
  for (const auto& m : models)
    if (m.name != "transformer") order.push_back(&m);
  for (const auto* m : order) {
    const Hdf5RunLog log = openRunLog(m->log_file);
    const std::string g = "/" + m->name;
    if (m->status != "finished" || !log.exists(g + "/test_translations") ||
        !log.exists(g + "/test_references"))
      continue;
    const auto refs = splitLines(log.readText(g + "/test_references"));
    if (!systems.empty() && refs != references) continue;  // another test set
    references = refs;
    systems.push_back(m);
    hypotheses.push_back(splitLines(log.readText(g + "/test_translations")));
  }
  if (systems.size() < 2) return;
  for (auto& h : hypotheses) h.resize(references.size());  // a trailing empty line is a line

  report.heading(2, "Paired significance (test)");
  ReportTable table({{"BLEU", ReportTable::Align::Left}, {"model", ReportTable::Align::Left},
                     {"score"}, {"bootstrap mean ± 95% CI"}, {"Δ vs " + systems[0]->name},
                     {"p (paired bootstrap)"}, {"p (approximate randomization)"}});
  std::vector<std::pair<std::string, metrics::BleuOptions>> variants = {{"sacreBLEU default", {}}};
  const std::string target = systems[0]->texts.count("target_language")
                                 ? systems[0]->texts.at("target_language") : "";
  if (metrics::mosesTokenizerSupports(target))
    variants.push_back({"tokenized lowercased", metrics::tokenizedLowercasedBleuOptions(target)});
  auto& summary = report.summary()["paired_significance"];
  summary["baseline"] = systems[0]->name;
  for (const auto& [variant, options] : variants) {
    metrics::PairedTestOptions bootstrap, randomization;
    randomization.test = metrics::PairedTest::ApproximateRandomization;
    const auto bs = metrics::pairedBleuTest(hypotheses, {references}, options, bootstrap);
    const auto ar = metrics::pairedBleuTest(hypotheses, {references}, options, randomization);
    for (size_t s = 0; s < systems.size(); ++s) {
      const double delta = bs[s].score - bs[0].score;
      table.addRow({variant, systems[s]->name, fixed(bs[s].score),
                    fixed(bs[s].mean) + " ± " + fixed(bs[s].ci),
                    s == 0 ? std::string("–") : (delta >= 0 ? "+" : "") + fixed(delta),
                    s == 0 ? std::string("–") : formatFixed(bs[s].p_value, 4),
                    s == 0 ? std::string("–") : formatFixed(ar[s].p_value, 4)});
      auto& row = summary[variant][systems[s]->name];
      row = {{"score", bs[s].score}, {"bootstrap_mean", bs[s].mean}, {"ci95", bs[s].ci}};
      if (s > 0) {
        row["delta"] = delta;
        row["p_bootstrap"] = bs[s].p_value;
        row["p_randomization"] = ar[s].p_value;
      }
    }
  }
  report.table(table, "paired_significance",
               "Each model against " + systems[0]->name + " on the same test sentences: paired "
               "bootstrap resampling (1000 resamples; mean and 95% interval) and paired "
               "approximate randomization (10000 trials), as sacreBLEU's --paired-bs and "
               "--paired-ar (Koehn 2004; Riezler and Maxwell 2005); p is the chance of a "
               "difference at least this large if the two systems were equally good.");
}

// The data, the subwords and how each BLEU was decoded.
void setupSection(const std::vector<ModelRun>& models, Report& report) {
  report.heading(2, "Setup");
  const auto& first = models.front();
  const std::string pair = (first.texts.count("source_language") ? first.texts.at("source_language") : "?") +
                           "→" + (first.texts.count("target_language") ? first.texts.at("target_language") : "?");
  std::vector<std::string> setup = {
      "Translation " + pair + ": " + fixed(number(first, "train_pairs"), 0) + " training pairs of " +
          fixed(number(first, "train_lines"), 0) + " lines (" +
          fixed(number(first, "train_empty_pairs_skipped"), 0) + " with an empty side skipped, " +
          fixed(number(first, "train_too_long_dropped"), 0) + " longer than " +
          fixed(number(first, "max_length"), 0) + " subwords dropped, " +
          fixed(number(first, "train_subset_dropped"), 0) + " left out by the training subset), " +
          fixed(number(first, "valid_pairs"), 0) + " valid and " + fixed(number(first, "test_pairs"), 0) +
          " test pairs.",
      "Joint " + (first.texts.count("subword_type") ? first.texts.at("subword_type") : std::string("?")) +
          " subwords (sentencepiece), " + fixed(number(first, "vocabulary"), 0) +
          " pieces; BLEU on detokenized output.",
      "Valid BLEU per epoch: greedy decoding (a quick dev curve). Test BLEU per epoch: as the "
      "config's decode.test_every_epoch says; the final test BLEU: " +
          (first.texts.count("test_decoding") ? first.texts.at("test_decoding") : std::string("–")) + "."};
  if (number(first, "train_subset_dropped") > 0)
    setup.push_back("**This run trained on a subset of the training data** (the quick config): "
                    "its BLEU is not comparable with full-data numbers.");
  report.bullets(setup);
}

void bleuPerEpochSection(const std::vector<ModelRun>& models, Report& report) {
  auto& summary = report.summary();
  // BLEU per epoch (Lei et al. 2018, Table 7): rows epochs, columns models x {valid, test}.
  report.heading(2, "BLEU per epoch");
  std::vector<ReportTable::Column> columns = {{"epoch", ReportTable::Align::Left}};
  for (const auto& m : models) {
    columns.push_back({m.name + " valid", ReportTable::Align::Right, ReportTable::Best::None});
    columns.push_back({m.name + " test", ReportTable::Align::Right, ReportTable::Best::None});
  }
  ReportTable bleu_table(columns);
  size_t epochs = 0;
  for (const auto& m : models) epochs = std::max(epochs, m.epochs.rows.size());
  for (size_t e = 0; e < epochs; ++e) {
    std::vector<ReportTable::Cell> row = {std::to_string(e + 1)};
    for (const auto& m : models) {
      const auto valid = column(m, "valid_bleu"), test = column(m, "test_bleu");
      row.push_back(e < valid.size() ? ReportTable::Cell(fixed(valid[e]), valid[e]) : ReportTable::Cell("–"));
      row.push_back(e < test.size() ? ReportTable::Cell(fixed(test[e]), test[e]) : ReportTable::Cell("–"));
    }
    bleu_table.addRow(row);
  }
  if (epochs > 0) {
    const size_t window = std::min<size_t>(kWindow, epochs);
    std::vector<ReportTable::Cell> row = {"mean of epochs " + std::to_string(epochs - window + 1) + "–" +
                                          std::to_string(epochs)};
    for (const auto& m : models) {
      for (const char* name : {"valid_bleu", "test_bleu"}) {
        const auto xs = column(m, name);
        if (xs.size() < epochs) {
          row.push_back("–");
          continue;
        }
        double sum = 0;
        for (size_t e = epochs - window; e < epochs; ++e) sum += xs[e];
        const double mean = sum / static_cast<double>(window);
        row.push_back({fixed(mean), mean});
        summary["bleu_window_mean"][m.name][name] = mean;
      }
    }
    bleu_table.addRow(row);
  }
  report.terminalTable("BLEU per epoch (valid: greedy; test: as configured; sacreBLEU default)",
                       bleu_table);
  report.table(bleu_table, "bleu_per_epoch",
               "BLEU after each epoch (sacreBLEU default: detokenized, 13a, mixed case): valid "
               "greedy, test as configured; the last row averages a window of the last epochs.");
}

void testBleuSection(const std::vector<ModelRun>& models, Report& report) {
  auto& summary = report.summary();
  // Final test BLEU with the published number beside ours.
  report.heading(2, "Test BLEU after checkpoint averaging");
  ReportTable final_table({{"model", ReportTable::Align::Left},
                           {"parameters"},
                           {"epochs"},
                           {"test BLEU", ReportTable::Align::Right, ReportTable::Best::Max},
                           {"test BLEU (lowercased)", ReportTable::Align::Right, ReportTable::Best::Max},
                           {"tokenized lowercased", ReportTable::Align::Right, ReportTable::Best::Max},
                           {"valid ppl", ReportTable::Align::Right, ReportTable::Best::Min},
                           {"train tokens/s", ReportTable::Align::Right, ReportTable::Best::Max},
                           {"beam sentences/s", ReportTable::Align::Right, ReportTable::Best::Max},
                           {"s/epoch"}});
  std::vector<std::string> signatures;
  for (const auto& m : models) {
    const double bleu = number(m, "test_bleu"), lc = number(m, "test_bleu_lc"),
                 tok_lc = number(m, "test_bleu_tok_lc");  // absent (NaN) in older logs
    final_table.addRow({m.name, fixed(number(m, "parameters"), 0), fixed(number(m, "epochs"), 0),
                        {fixed(bleu), bleu}, {fixed(lc), lc},
                        {std::isnan(tok_lc) ? std::string("–") : fixed(tok_lc), tok_lc},
                        {fixed(number(m, "final_valid_ppl")), number(m, "final_valid_ppl")},
                        {fixed(number(m, "train_tokens_per_second"), 0), number(m, "train_tokens_per_second")},
                        {fixed(number(m, "beam_sentences_per_second"), 1), number(m, "beam_sentences_per_second")},
                        {fixed(number(m, "seconds_per_epoch"), 1), number(m, "seconds_per_epoch")}});
    auto& s = summary["models"][m.name];
    s["status"] = m.status;
    for (const char* key : {"test_bleu", "test_bleu_lc", "test_bleu_tok_lc", "final_valid_ppl", "train_tokens_per_second",
                            "beam_sentences_per_second", "seconds_per_epoch", "parameters", "epochs",
                            "best_valid_bleu"})
      s[key] = number(m, key);
    for (const char* key : {"test_bleu_line", "test_bleu_lc_line", "test_bleu_tok_lc_line"})
      if (m.texts.count(key)) {
        signatures.push_back(m.name + ": " + m.texts.at(key));
        s[key] = m.texts.at(key);
      }
  }
  final_table.addRow({"Transformer-Tiny (Wu et al. 2021)", "–", "–", "–", "–",
                      {fixed(kPublishedTransformerTiny), kPublishedTransformerTiny}, "–", "–", "–", "–"},
                     ReportTable::RowKind::Published);
  summary["published"]["transformer_tiny_wu2021_tokenized_lowercased_bleu"] = kPublishedTransformerTiny;
  report.terminalTable("Final test BLEU (beam search, averaged checkpoints)", final_table);
  report.table(final_table, "test_bleu",
               "Final test BLEU (beam search, averaged checkpoints) and speed; best per column "
               "in bold; the published row in italics.");
  report.paragraph(
      "Comparability: the published 41.02 (Wu et al. 2021, Transformer-Tiny, 4+4 layers, d 128) "
      "is BLEU on Moses-tokenized, lowercased text scored with fairseq's scorer (reference "
      "length 12,103 tokens on test2016), after subword-nmt BPE. The \"tokenized lowercased\" "
      "column computes that number from our detokenized output: the Multi30k scripts' Moses "
      "normalization and tokenization, lowercased, BLEU without smoothing (the same 12,103 "
      "reference tokens); it is the column to compare with theirs. The other two are "
      "sacreBLEU's BLEU on detokenized text (13a tokenization; 12,106 reference tokens on "
      "test2016), mixed case and lowercased, which differ from it by about a point either way "
      "(Moses escapes and splits apostrophes and quotes, 13a does not).");
  writeWallClockNote(report);
  if (!signatures.empty()) {
    std::string text;
    for (const auto& s : signatures) text += s + "\n";
    report.code(text);
  }
  pairedSignificanceSection(models, report);
}

void perplexitySection(const std::vector<ModelRun>& models, Report& report) {
  // Perplexity curves (Lei et al. 2018, Figure 7).
  Figure curves;
  curves.shared_key = true;
  curves.width = 1000;
  curves.height = 420;
  for (const auto& [label, name] : std::vector<std::pair<std::string, std::string>>{
           {"train", "train_nll"}, {"valid", "valid_ppl"}}) {
    Panel p;
    p.title = label;
    p.x.label = "epoch";
    p.x.integer_ticks = true;
    p.y.label = label + " perplexity (per target subword)";
    p.y.scale = AxisScale::Log10;
    for (size_t mi = 0; mi < models.size(); ++mi) {
      const auto epoch = column(models[mi], "epoch");
      auto y = column(models[mi], name);
      if (y.empty()) continue;
      if (name == "train_nll")
        for (auto& v : y) v = std::exp(v);
      LineSeries s;
      s.title = models[mi].name;
      s.style = static_cast<int>(mi);
      s.x = epoch;
      s.y = y;
      p.lines.push_back(s);
    }
    curves.panels.push_back(p);
  }
  report.heading(2, "Perplexity");
  report.figure(curves, "perplexity",
                "Train perplexity (exp of the mean unsmoothed NLL per target subword over the "
                "epoch, dropout on) and valid perplexity after each epoch, one run per model.");
}

void attentionSection(const std::vector<ModelRun>& models, Report& report) {
  // Attention maps: one panel per decoder layer, per model.
  report.heading(2, "Attention");
  for (size_t mi = 0; mi < models.size(); ++mi) {
    const auto& m = models[mi];
    const Hdf5RunLog log = openRunLog(m.log_file);
    const std::string g = "/" + m.name + "/attention";
    if (!log.exists(g + "/source_pieces")) continue;
    const auto source = splitLines(log.readText(g + "/source_pieces"));
    const auto target = splitLines(log.readText(g + "/target_pieces"));
    const auto layers = log.intAttribute(g, "layers");
    Figure fig;
    fig.columns = static_cast<int>(std::min<int64_t>(layers, 2));
    const int rows = static_cast<int>((layers + fig.columns - 1) / std::max(1, fig.columns));
    fig.width = std::max(700, static_cast<int>(fig.columns * (220 + 26 * source.size())));
    fig.height = std::max(420, static_cast<int>(rows * (180 + 22 * target.size())));
    for (int64_t layer = 1; layer <= layers; ++layer) {
      std::vector<uint64_t> shape;
      const auto values = log.readArray(g + "/layer_" + std::to_string(layer), &shape);
      if (shape.size() != 2) continue;
      Panel p;
      p.title = "decoder layer " + std::to_string(layer);
      p.x.label = "source subword";
      p.y.label = "generated subword";
      HeatMap h;
      h.column_labels = source;
      h.row_labels = target;
      h.colour_label = "attention weight";
      h.colour_range = std::make_pair(0.0, 1.0);
      for (uint64_t r = 0; r < shape[0]; ++r)
        h.values.emplace_back(values.begin() + static_cast<int64_t>(r * shape[1]),
                              values.begin() + static_cast<int64_t>((r + 1) * shape[1]));
      h.row_labels.resize(shape[0], "?");
      h.column_labels.resize(shape[1], "?");
      p.heat_map = h;
      fig.panels.push_back(p);
    }
    if (fig.panels.empty()) continue;
    report.figure(fig, "attention_" + m.name,
                  m.name + ": encoder-decoder attention of each decoder layer (mean over heads) "
                           "while generating test sentence " +
                      std::to_string(log.intAttribute(g, "sentence") + 1) +
                      " with the final model.");
  }
}

void translationsSection(const std::vector<ModelRun>& models, Report& report) {
  // Translations as text files beside the report.
  report.heading(2, "Translations");
  std::vector<std::string> files;
  for (const auto& m : models) {
    const Hdf5RunLog log = openRunLog(m.log_file);
    const std::string g = "/" + m.name + "/test_translations";
    if (!log.exists(g)) continue;
    const std::string file = "translations_" + m.name + ".txt";
    std::ofstream(report.runDirectory() + "/" + file, std::ios::binary) << log.readText(g);
    files.push_back("[" + file + "](" + file + "): " + m.name + ", test set, one line per source line");
  }
  if (!files.empty()) {
    report.bullets(files);
    const auto& m = models.front();
    const Hdf5RunLog log = openRunLog(m.log_file);
    const std::string g = "/" + m.name;
    if (log.exists(g + "/test_sources") && log.exists(g + "/test_references") &&
        log.exists(g + "/test_translations")) {
      const auto src = splitLines(log.readText(g + "/test_sources"));
      const auto ref = splitLines(log.readText(g + "/test_references"));
      const auto hyp = splitLines(log.readText(g + "/test_translations"));
      std::string text;
      for (size_t i = 0; i < std::min<size_t>({3, src.size(), ref.size(), hyp.size()}); ++i)
        text += "source:      " + src[i] + "\nreference:   " + ref[i] + "\n" + m.name + ": " + hyp[i] + "\n\n";
      report.paragraph("The first test sentences:");
      report.code(text);
    }
  }
}

// Every model's training run.
void unitsSection(const std::vector<ModelRun>& models, Report& report) {
  report.heading(2, "Units");
  ReportTable units({{"model", ReportTable::Align::Left}, {"registry name", ReportTable::Align::Left},
                     {"status", ReportTable::Align::Left}, {"stop", ReportTable::Align::Left},
                     {"steps"}, {"checkpoints averaged"}});
  for (const auto& m : models)
    units.addRow({m.name, m.model, m.status, m.stop_reason, fixed(number(m, "steps"), 0),
                  fixed(number(m, "checkpoints_averaged"), 0)});
  report.table(units, "units", "Every model's training run.");
}

void buildMtReport(const RunReader& run, Report& report) {
  std::vector<ModelRun> models;
  for (const auto& file : run.logFiles()) {  // log.h5, or every shard's log
    const Hdf5RunLog log = openRunLog(file);
    for (const auto& child : log.children("/"))
      if (log.exists("/" + child + "/epochs") || log.attribute("/" + child, "model")) {
        models.push_back(readModel(log, child));
        models.back().log_file = file;
      }
  }
  // The config's order, not the alphabet's.
  const auto config = run.config();
  if (config.contains("models") && (config["models"].is_array() || config["models"].is_object())) {
    std::vector<std::string> names;  // a map name -> model (today), or an array (older logs)
    for (const auto& [key, spec] : config["models"].items())
      names.push_back(config["models"].is_object()
                          ? key : spec.value("name", spec.value("model", std::string())));
    std::vector<ModelRun> ordered;
    for (const auto& name : names)
      for (auto& m : models)
        if (m.name == name) ordered.push_back(m);
    if (ordered.size() == models.size()) models = ordered;
  }
  if (models.empty()) {
    report.paragraph("The log holds no trained model yet.");
    return;
  }
  setupSection(models, report);
  bleuPerEpochSection(models, report);
  testBleuSection(models, report);
  perplexitySection(models, report);
  attentionSection(models, report);
  translationsSection(models, report);
  unitsSection(models, report);
}

}  // namespace

void registerMtReport() {
  registerReport("mt",
                 "machine translation: BLEU per epoch, final test BLEU with the published number, "
                 "perplexity curves, attention maps, translations",
                 buildMtReport);
}

}  // namespace recurlab::analysis
