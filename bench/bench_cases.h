#pragma once
// What `make bench` times: one training (or decoding) step of recurlab's real models on the
// shapes of the project's configs, each with the shape the PyTorch side (bench/pytorch_side.py)
// builds its own counterpart from. Inputs are synthetic (random tokens of fixed lengths): speed
// does not depend on the tokens, and a fresh clone needs no data.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace recurlab::bench {

struct BenchCase {
  std::string name;         // "mt_train", ...
  std::string title;        // the row's name in the report
  std::string unit;         // "target tokens", "sentences", "characters"
  std::string baseline;     // what the PyTorch side runs, in words; "" when there is none
  std::string pytorch_case; // the PyTorch side's case name ("" when none)
  nlohmann::json shape;     // sent to the PyTorch side as is
  int64_t parameters = 0;   // ours, trainable
  double units_per_step = 0;
  std::function<void()> step;  // one step of ours
};

// Every case, built from the configs under `source_dir` (configs/mt/multi30k.json,
// configs/lm/ptb-char.json, configs/classification/quick.json). `only`: case names to keep
// (empty: all); an unknown name throws std::invalid_argument listing the known ones.
std::vector<BenchCase> makeBenchCases(const std::string& source_dir,
                                      const std::vector<std::string>& only, uint64_t seed);

std::vector<std::string> benchCaseNames();

}  // namespace recurlab::bench
