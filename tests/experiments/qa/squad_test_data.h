#pragma once
// The real SQuAD v1.1 dev file for the QA tests: ./data/squad (scripts/get-data.sh squad) or
// the shared mirror; loaded once.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "experiments/qa/squad_dataset.h"

namespace recurlab::experiments::qa {

inline std::string squadDevPath() {
  for (const char* p : {"data/squad/dev-v1.1.json", "../shared/data/squad/dev-v1.1.json"})
    if (std::filesystem::exists(p)) return p;
  return "";
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

}  // namespace recurlab::experiments::qa
