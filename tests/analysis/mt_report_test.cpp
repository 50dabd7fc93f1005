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
#include "tests/analysis/temp_dir.h"

namespace recurlab::analysis {
namespace {

namespace fs = std::filesystem;
using experiments::Hdf5RunLog;

std::string readText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

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
  testing::TempDir dir;
  {
    Hdf5RunLog log(dir.file("log.h5"), Hdf5RunLog::Mode::Create);
    log.setAttribute("/", "experiment", std::string("mt"));
    log.setAttribute("/", "config",
                     std::string(R"({"models":[{"name":"transformer_sru"},{"name":"transformer"}]})"));
    addModel(log, "transformer", 0);
    addModel(log, "transformer_sru", 1);
  }
  analyzeRun(dir.path().string());
  const auto md = readText(dir.path() / "report.md");
  // Config order: transformer_sru first.
  EXPECT_NE(md.find("| epoch | transformer_sru valid | transformer_sru test | transformer valid"),
            std::string::npos) << md;
  // Window mean of epochs 2-6 of valid BLEU: 10 * (2+3+4+5+6) / 5 = 40 (+1 for the SRU).
  EXPECT_NE(md.find("mean of epochs 2–6 | 41.00 | 37.00 | 40.00 | 36.00"), std::string::npos) << md;
  EXPECT_NE(md.find("41.02"), std::string::npos);
  EXPECT_NE(md.find("subset of the training data"), std::string::npos);
  EXPECT_NE(md.find("version:2.6.0"), std::string::npos);
  const auto summary = nlohmann::json::parse(readText(dir.path() / "summary.json"));
  EXPECT_NEAR(summary["models"]["transformer_sru"]["test_bleu"].get<double>(), 34.3, 1e-9);
  EXPECT_NEAR(summary["bleu_window_mean"]["transformer"]["test_bleu"].get<double>(), 36.0, 1e-9);
  // The tokenized lowercased BLEU beside the published number (same column), "–" where absent.
  EXPECT_NEAR(summary["models"]["transformer_sru"]["test_bleu_tok_lc"].get<double>(), 35.5, 1e-9);
  EXPECT_NE(md.find("| test BLEU (lowercased) | tokenized lowercased |"), std::string::npos) << md;
  EXPECT_NE(md.find("| **34.30** | **35.40** | **35.50** |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 33.30 | 34.40 | – |"), std::string::npos) << md;
  EXPECT_NE(md.find("| *–* | *–* | *41.02* |"), std::string::npos) << md;
  EXPECT_NE(md.find("tok:moses-de|smooth:none"), std::string::npos) << md;
  EXPECT_EQ(readText(dir.path() / "translations_transformer.txt"), "Ein Hund läuft.\nZwei Männer.\n");
  EXPECT_TRUE(fs::exists(dir.path() / "perplexity.gp"));
  EXPECT_TRUE(fs::exists(dir.path() / "attention_transformer.gp"));
}

}  // namespace
}  // namespace recurlab::analysis
