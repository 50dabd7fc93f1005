#pragma once
// The language-modelling experiment's config (configs/lm/*.json), checked before any work:
// unknown keys, wrong types and out-of-range values are errors naming the key.
//   corpus   {"name": "ptb-char" | "ptb-word" | "enwik8"} (files under the data folder), or
//            {"name": <label>, "format": "words" | "chars" | "bytes", "train": path,
//             "valid": path, "test": path, "metric": "bpc" | "ppl"}; "max_train_symbols": N
//            keeps the first N training symbols (quick runs).
//   budget   trainable parameters per model (0: the widths as written); each model's
//            "hidden" is sized to it within budget_tolerance (default 2%).
//   lm       model and batching keys (LmOptions), overridable per model.
//   train    optimizer and trainer keys (optimizer_options.h, trainer_options.h), likewise.
//   models   name -> {"encoder": <registry name>, "config": {...}, "lm": {...}, "train": {...},
//            "init_from": <kept model folder>}; init_from starts training from that kept
//            model's weights instead of a random init (same corpus, encoder, config, width).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "tasks/lm/language_model.h"
#include "tasks/lm/lm_corpus.h"
#include "experiments/training/optimizer_options.h"
#include "experiments/training/trainer_options.h"

namespace recurlab::experiments {

struct LmCorpusSpec {
  std::string name;           // ptb-char, ptb-word, enwik8 or the user's label
  LmCorpusFormat format = LmCorpusFormat::Words;
  std::string train, valid, test;  // as written (named corpora: relative to the data folder)
  std::string metric = "bpc";      // bpc (characters, bytes) or ppl (words)
  int64_t max_train_symbols = 0;

  // The files to load, named corpora resolved under `data_dir`.
  LmCorpusFiles files(const std::string& data_dir) const;
};

struct LmOptions {
  int64_t embed_dim = 64;
  bool tie_embeddings = false;
  int64_t output_projection = 0;
  double embed_dropout = 0.0, output_dropout = 0.0;
  int64_t batch_size = 32;       // training streams
  int64_t bptt = 100;            // segment length (training and evaluation)
  int64_t eval_batch_size = 10;  // evaluation streams (1 = the literature's test protocol)

  static LmOptions fromJson(const nlohmann::json& j, const std::string& where);
  LanguageModelOptions model(int64_t vocab_size) const;
};

struct LmModelSpec {
  std::string name, encoder;
  nlohmann::json config, lm, train;  // the encoder's keys; overrides of the shared lm/train
  std::string init_from;             // a kept model folder, or empty: a random init
};

// The parameter budget one unit's hidden width is sized to (parameter_budget.h).
struct LmBudget {
  int64_t parameters = 0;  // 0: the widths as written
  double tolerance = 0.02;
};

struct LmUnitOptions {  // one model's options with the overrides applied
  LmOptions lm;
  OptimizerOptions optimizer;
  TrainerOptions trainer;
  LmBudget budget;
};

struct LmConfig {
  int64_t seed = 1;
  std::string keep_model = "best";  // best | last | none (experiments/kept_model/)
  LmCorpusSpec corpus;
  LmBudget budget;
  nlohmann::json lm, train;
  std::vector<LmModelSpec> models;

  static LmConfig fromJson(const nlohmann::json& config);
  const LmModelSpec& model(const std::string& name) const;
  // {"encoder", "config", "lm", "train"} of one model, overrides applied; "budget" and
  // "budget_tolerance" when the config sets a budget, and "init_from" when the model has one.
  nlohmann::json unitTemplate(const LmModelSpec& model) const;
};

LmUnitOptions lmUnitOptions(const nlohmann::json& unit, const std::string& where);

}  // namespace recurlab::experiments
