#pragma once
// The real SQuAD v1.1 dev file for the QA tests: ./data/squad (scripts/get-data.sh squad) or
// the shared mirror; loaded once.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tasks/qa/qa_examples.h"
#include "tasks/qa/squad_dataset.h"

namespace recurlab::experiments::qa {

inline std::string squadDevPath() {
  for (const char* p : {"data/squad/dev-v1.1.json", "../shared/data/squad/dev-v1.1.json"})
    if (std::filesystem::exists(p)) return p;
  return "";
}

// Empty when the dev file is there, else what is missing (RECURLAB_REQUIRE_OR_SKIP's argument).
inline std::string squadUnavailableReason() {
  return squadDevPath().empty() ? "no SQuAD dev-v1.1.json (scripts/get-data.sh squad)" : "";
}

// The --data-dir that holds it (squad/dev-v1.1.json), absolute.
inline std::string squadDataDir() {
  return std::filesystem::absolute(squadDevPath()).parent_path().parent_path().string();
}

// A run config for recurlab_qa (the data-parallel and kill-resume tests): an SRU reader of width
// 8 without dropout on 45 training and 16 dev questions of the offline split, 2 epochs of 6
// batches of 8, checkpoints every 2 steps.
inline nlohmann::json tinyQaRunConfig() {
  return nlohmann::json::parse(R"({
    "experiment": "qa", "seed": 5,
    "data": {"protocol": "offline", "split_seed": 1, "dev_articles": 10,
             "max_train_questions": 45, "max_dev_questions": 16},
    "reader": {"embed_dim": 8, "embed_dropout": 0.0, "output_dropout": 0.0, "max_span": 15},
    "train": {"optimizer": "adam", "lr": 0.002, "clip": 10, "batch_size": 8,
              "schedule": "constant", "max_epochs": 2, "checkpoint_every_steps": 2},
    "models": {
      "sru": {"encoder": "sru", "config": {"layers": 1, "hidden": 8, "bidirectional": true}}
    }
  })");
}

inline const SquadDataset& squadDev() {
  static const SquadDataset dev = loadSquad(squadDevPath());
  return dev;
}

// Reader examples from the dev file's questions: the first `train` (those whose answer is in
// their paragraph) and the next `dev`, over the vocabulary of the training questions.
struct DevQuestionExamples {
  QaTokens tokens;
  Vocabulary vocabulary;
  std::vector<QaExample> train, dev;
};

inline DevQuestionExamples devQuestionExamples(int64_t train, int64_t dev) {
  const auto& d = squadDev();
  DevQuestionExamples x{tokenizeDataset(d), {}, {}, {}};
  std::vector<int64_t> train_q;
  for (int64_t q = 0; q < train; ++q) train_q.push_back(q);
  x.vocabulary = buildQaVocabulary(d, x.tokens, train_q, 1);
  for (const auto q : train_q) {
    auto example = makeExample(d, x.tokens, q, x.vocabulary);
    if (example.start >= 0) x.train.push_back(example);
  }
  for (int64_t q = train; q < train + dev; ++q)
    x.dev.push_back(makeExample(d, x.tokens, q, x.vocabulary));
  return x;
}

}  // namespace recurlab::experiments::qa
