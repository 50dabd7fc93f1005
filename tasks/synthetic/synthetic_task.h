#pragma once
// The synthetic capability suite (docs/synthetic.md) as a harness Task: which sequence mixers
// recall and track what, at which width and state size. Units, one per
//   /<task>/<model>/w<width>/lr<i>/seeds/<s>
// train a TokenMixerModel (the model's encoder at that width) on the task's data of seed s at
// the i-th learning rate of the grid; the report picks each model's best rate on dev accuracy
// and compares models on the test sequences, which are the same for every model of a seed.
#include <map>
#include <string>
#include <vector>

#include "experiments/harness/task.h"
#include "tasks/synthetic/synthetic_config.h"

namespace recurlab::experiments {

struct SyntheticUnitPlace {
  std::string task, model;
  int64_t width = 0, lr_index = 0, seed_index = 0;
};

class SyntheticTask : public Task {
 public:
  explicit SyntheticTask(SyntheticConfig config);

  const SyntheticConfig& config() const { return config_; }
  int64_t seed() const override { return config_.seed; }
  std::string describe() const override;
  std::vector<Unit> units() const override { return units_; }
  nlohmann::json unitTemplate(const Unit& unit) const override;
  SelectionMetric selection() const override { return {"best_dev_acc", true}; }
  UnitResult runUnit(const Unit& unit, UnitContext& context) override;

  const SyntheticUnitPlace& place(const Unit& unit) const { return places_.at(unit.group); }
  // The seed of the data of seed index s of a task: the same for every model.
  uint64_t dataSeed(const std::string& task, int64_t seed_index) const;

 private:
  void describeUnit(const SyntheticUnitPlace& u, const nlohmann::json& unit_json,
                    int64_t parameters, UnitContext& ctx) const;

  SyntheticConfig config_;
  std::vector<Unit> units_;
  std::map<std::string, SyntheticUnitPlace> places_;  // by group
};

}  // namespace recurlab::experiments
