// The MT report from a hand-made log: the BLEU-per-epoch table with its window mean, the final
// table with the published number, summary.json, the perplexity and attention figures and the
// translations file.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/report_registry.h"
#include "common/log/hdf5_run_log.h"
#include "tests/support/temp_root.h"
#include "tests/support/file_text.h"

namespace recurlab::analysis {
namespace {

namespace fs = std::filesystem;
using experiments::Hdf5RunLog;

using recurlab::testing::fileText;

void addModel(Hdf5RunLog& log, const std::string& name, double shift) {
  const std::string g = "/" + name;
  log.createGroup(g);
  log.createTable(g + "/epochs", {"epoch", "train_loss", "train_nll", "valid_loss", "valid_ppl",
                                  "valid_bleu", "test_bleu", "test_bleu_lc",
                                  "test_sentences_per_second", "lr", "seconds",
                                  "examples_per_second"});
  for (int e = 1; e <= 6; ++e)
    log.appendRow(g + "/epochs", {double(e), 5.0 / e, 4.0 / e, 3.0 / e, std::exp(3.0 / e),
                                  10.0 * e + shift, 9.0 * e + shift, 9.5 * e + shift, 20, 1e-3,
                                  30, 5000});
  log.setAttribute(g, "model", std::string("transformer"));
  log.setAttribute(g, "status", std::string("finished"));
  log.setAttribute(g, "stop_reason", std::string("max_epochs"));
  log.setAttribute(g, "source_language", std::string("en"));
  log.setAttribute(g, "target_language", std::string("de"));
  log.setAttribute(g, "subword_type", std::string("bpe"));
  for (const auto& [k, v] : std::map<std::string, int64_t>{
           {"train_pairs", 8000}, {"train_lines", 29000}, {"train_subset_dropped", 21000},
           {"train_too_long_dropped", 0}, {"train_empty_pairs_skipped", 0}, {"max_length", 100},
           {"valid_pairs", 1014}, {"test_pairs", 2}, {"vocabulary", 4000}, {"parameters", 12345},
           {"epochs", 6}, {"steps", 600}, {"checkpoints_averaged", 2}})
    log.setAttribute(g, k, v);
  log.setAttribute(g, "test_bleu", 33.3 + shift);
  log.setAttribute(g, "test_bleu_lc", 34.4 + shift);
  if (shift > 0) {  // the other model's log predates the tokenized lowercased BLEU
    log.setAttribute(g, "test_bleu_tok_lc", 35.5);
    log.setAttribute(g, "test_bleu_tok_lc_line",
                     std::string("BLEU|nrefs:1|case:lc|eff:no|tok:moses-de|smooth:none|version:2.6.0 = 35.50"));
  }
  log.setAttribute(g, "final_valid_ppl", 7.5);
  log.setAttribute(g, "train_tokens_per_second", 4321.0);
  log.setAttribute(g, "beam_sentences_per_second", 12.5);
  log.setAttribute(g, "seconds_per_epoch", 30.0);
  log.setAttribute(g, "test_bleu_line",
                   std::string("BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0 = 33.30"));
  log.writeText(g + "/test_translations", "Ein Hund läuft.\nZwei Männer.\n");
  log.writeText(g + "/test_references", "Ein Hund rennt.\nZwei Männer.\n");
  log.writeText(g + "/test_sources", "A dog runs.\nTwo men.\n");
  log.writeText(g + "/attention/source_pieces", "▁A\n▁dog\n▁runs\n.\n</s>\n");
  log.writeText(g + "/attention/target_pieces", "▁Ein\n▁Hund\n▁läuft\n.\n</s>\n");
  for (int layer = 1; layer <= 2; ++layer) {
    std::vector<double> a(25, 0.05);
    for (int i = 0; i < 5; ++i) a[i * 5 + i] = 0.8;
    log.writeArray(g + "/attention/layer_" + std::to_string(layer), a, {5, 5});
  }
  log.setAttribute(g + "/attention", "layers", int64_t{2});
  log.setAttribute(g + "/attention", "sentence", int64_t{0});
}

TEST(MtReport, BleuTablesFiguresAndTranslationsFromTheLogAlone) {
  testing::TempRoot dir;
  {
    Hdf5RunLog log(dir.file("log.h5"), Hdf5RunLog::Mode::Create);
    log.setAttribute("/", "experiment", std::string("mt"));
    log.setAttribute("/", "config",
                     std::string(R"({"models":[{"name":"transformer_sru"},{"name":"transformer"}]})"));
    addModel(log, "transformer", 0);
    addModel(log, "transformer_sru", 1);
  }
  analyzeRun(dir.path().string());
  const auto md = fileText(dir.path() / "report.md");
  // Config order: transformer_sru first.
  EXPECT_NE(md.find("| epoch | transformer_sru valid | transformer_sru test | transformer valid"),
            std::string::npos) << md;
  // Window mean of epochs 2-6 of valid BLEU: 10 * (2+3+4+5+6) / 5 = 40 (+1 for the SRU).
  EXPECT_NE(md.find("mean of epochs 2–6 | 41.00 | 37.00 | 40.00 | 36.00"), std::string::npos) << md;
  EXPECT_NE(md.find("41.02"), std::string::npos);
  EXPECT_NE(md.find("subset of the training data"), std::string::npos);
  EXPECT_NE(md.find("version:2.6.0"), std::string::npos);
  const auto summary = nlohmann::json::parse(fileText(dir.path() / "summary.json"));
  EXPECT_NEAR(summary["models"]["transformer_sru"]["test_bleu"].get<double>(), 34.3, 1e-9);
  EXPECT_NEAR(summary["bleu_window_mean"]["transformer"]["test_bleu"].get<double>(), 36.0, 1e-9);
  // The tokenized lowercased BLEU beside the published number (same column), "–" where absent.
  EXPECT_NEAR(summary["models"]["transformer_sru"]["test_bleu_tok_lc"].get<double>(), 35.5, 1e-9);
  EXPECT_NE(md.find("| test BLEU (lowercased) | tokenized lowercased |"), std::string::npos) << md;
  EXPECT_NE(md.find("| **34.30** | **35.40** | **35.50** |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 33.30 | 34.40 | – |"), std::string::npos) << md;
  EXPECT_NE(md.find("| *–* | *–* | *41.02* |"), std::string::npos) << md;
  EXPECT_NE(md.find("tok:moses-de|smooth:none"), std::string::npos) << md;
  // Speed measured while training is marked as wall-clock under whatever load there was.
  EXPECT_NE(md.find("Times and rates are wall-clock, measured while training"), std::string::npos) << md;
  EXPECT_EQ(fileText(dir.path() / "translations_transformer.txt"), "Ein Hund läuft.\nZwei Männer.\n");
  EXPECT_TRUE(fs::exists(dir.path() / "perplexity.gp"));
  EXPECT_TRUE(fs::exists(dir.path() / "attention_transformer.gp"));
}

// Paired significance from the translations in the log: the baseline is the model named
// "transformer" (not the config's first); a system right on every sentence where the baseline
// is wrong on half is significantly better; one right on the other half is not. (A system that
// differs on one sentence only would get a small randomization p, as in sacreBLEU: no trial's
// difference exceeds the real one.)
TEST(MtReport, PairedSignificanceAgainstTheTransformerFromTheLog) {
  testing::TempRoot dir;
  std::string references, half_right, all_right, other_half;
  for (int i = 0; i < 60; ++i) {
    const std::string right = "der hund " + std::to_string(i) + " läuft über die grüne wiese .";
    const std::string wrong = "eine katze sitzt " + std::to_string(i) + " auf dem dach";
    references += right + "\n";
    all_right += right + "\n";
    half_right += (i % 2 ? wrong : right) + "\n";
    other_half += (i % 2 ? right : wrong) + "\n";
  }
  {
    Hdf5RunLog log(dir.file("log.h5"), Hdf5RunLog::Mode::Create);
    log.setAttribute("/", "experiment", std::string("mt"));
    log.setAttribute("/", "config", std::string(R"({"models":{}})"));
    for (const auto& [name, text] : std::map<std::string, std::string>{
             {"a_other_half", other_half}, {"transformer", half_right}, {"transformer_sru", all_right}}) {
      addModel(log, name, 0);
      log.writeText("/" + name + "/test_translations", text);
      log.writeText("/" + name + "/test_references", references);
    }
  }
  analyzeRun(dir.path().string());
  const auto md = fileText(dir.path() / "report.md");
  EXPECT_NE(md.find("## Paired significance (test)"), std::string::npos) << md;
  const auto summary = nlohmann::json::parse(fileText(dir.path() / "summary.json"));
  const auto& paired = summary.at("paired_significance");
  EXPECT_EQ(paired.at("baseline"), "transformer");
  for (const char* variant : {"sacreBLEU default", "tokenized lowercased"}) {
    SCOPED_TRACE(variant);
    const auto& better = paired.at(variant).at("transformer_sru");
    EXPECT_NEAR(better.at("score").get<double>(), 100.0, 1e-9);
    EXPECT_GT(better.at("delta").get<double>(), 20.0);
    EXPECT_LT(better.at("p_bootstrap").get<double>(), 0.01);
    EXPECT_LT(better.at("p_randomization").get<double>(), 0.01);
    const auto& same = paired.at(variant).at("a_other_half");
    EXPECT_LT(std::abs(same.at("delta").get<double>()), 5.0);
    EXPECT_GT(same.at("p_bootstrap").get<double>(), 0.05);
    EXPECT_GT(same.at("p_randomization").get<double>(), 0.05);
    EXPECT_FALSE(paired.at(variant).at("transformer").contains("p_bootstrap"));
  }
}

}  // namespace
}  // namespace recurlab::analysis
