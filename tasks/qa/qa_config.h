#pragma once
// The QA experiment's config (configs/qa/*.json), checked in full before any work: unknown
// keys, wrong types and out-of-range values are errors naming the key.
//   data:   protocol ("auto": official when train-v1.1.json is present, else offline;
//           "official"; "offline"), split_seed, dev_articles (offline: articles of the dev file
//           held out as dev, the rest trains), max_train_questions / max_dev_questions (0 = all,
//           else a seeded subsample), max_context_chars (0 = whole contexts), train and dev
//           (SQuAD-format files; default squad/train-v1.1.json and squad/dev-v1.1.json under
//           the data folder, or absolute paths)
//   reader: embed_dim, embed_dropout, output_dropout, tune_top, min_count, max_span
//   train:  the Trainer's keys (optimizer_options.h, trainer_options.h) and batch_size
//   models: name -> {"encoder": registry name, "config": {...}, "concat_layers": bool,
//           "layer_dropout": p, "reader": {...}, "train": {...}} (overrides); with
//           concat_layers, config.layers one-layer encoders are stacked and their outputs
//           concatenated (DrQA's reader), layer_dropout on each one's input
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "tasks/qa/document_reader.h"
#include "experiments/training/optimizer_options.h"
#include "experiments/training/trainer_options.h"

namespace recurlab::experiments::qa {

struct QaDataOptions {
  std::string protocol = "auto";
  int64_t split_seed = 1;
  int64_t dev_articles = 10;
  int64_t max_train_questions = 0;
  int64_t max_dev_questions = 0;
  int64_t max_context_chars = 0;
  // SQuAD-format files, relative to the data folder unless absolute.
  std::string train_file = "squad/train-v1.1.json";
  std::string dev_file = "squad/dev-v1.1.json";
};

struct QaReaderOptions {
  int64_t embed_dim = 100;
  double embed_dropout = 0.5;
  double output_dropout = 0.2;
  int64_t tune_top = 1000;
  int64_t min_count = 1;
  int64_t max_span = 15;
};

struct QaTrainOptions {
  OptimizerOptions optimizer;
  TrainerOptions trainer;
  int64_t batch_size = 32;
};

struct QaModelSpec {
  std::string name;
  ReaderEncoderSpec encoder;
  nlohmann::json reader, train;  // overrides of the shared keys
};

struct QaConfig {
  int64_t seed = 1013;
  std::string keep_model = "best";  // best | last | none (experiments/kept_model/)
  std::string embeddings;  // GloVe text; "" = embeddings trained from random init
  QaDataOptions data;
  nlohmann::json reader = nlohmann::json::object(), train = nlohmann::json::object();
  std::vector<QaModelSpec> models;

  static QaConfig fromJson(const nlohmann::json& config);
  QaReaderOptions readerOptions(const QaModelSpec& model) const;
  QaTrainOptions trainOptions(const QaModelSpec& model) const;
  // The unit's config as logged: encoder spec, reader and train keys, merged.
  nlohmann::json unitJson(const QaModelSpec& model) const;
};

}  // namespace recurlab::experiments::qa
