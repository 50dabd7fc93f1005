#pragma once
// The real SQuAD v1.1 dev file for the QA tests: ./data/squad (scripts/get-data.sh squad) or
// the shared mirror; loaded once.
#include <filesystem>
#include <string>

#include "experiments/qa/squad_dataset.h"

namespace recurlab::experiments::qa {

inline std::string squadDevPath() {
  for (const char* p : {"data/squad/dev-v1.1.json", "../shared/data/squad/dev-v1.1.json"})
    if (std::filesystem::exists(p)) return p;
  return "";
}

inline const SquadDataset& squadDev() {
  static const SquadDataset dev = loadSquad(squadDevPath());
  return dev;
}

}  // namespace recurlab::experiments::qa
