#pragma once
// Language modelling (Lei et al. 2018 App. B.4; Peng et al. 2018 App. E.2) as a harness Task:
// one unit per model, /<corpus>/<model>, trained by truncated BPTT with the one Trainer and
// selected on valid loss; each model's hidden width sized to the config's parameter budget.
// After training, a few steps are profiled by operator (op_time_profile.h) so the report can
// say how much of a step the recurrence takes beside the matmuls.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "experiments/harness/task.h"
#include "tasks/lm/lm_config.h"
#include "tasks/lm/lm_corpus.h"

namespace recurlab::experiments {

class LanguageModelImpl;
class LmTraining;
struct TrainOutcome;

class LmTask : public Task {
 public:
  LmTask(LmConfig config, std::string data_dir);

  const LmConfig& config() const { return config_; }
  int64_t seed() const override { return config_.seed; }
  std::string describe() const override;
  // Loads the corpus (errors name the file; a missing file says to run scripts/get-data.sh),
  // and checks that every init_from is a kept model of this corpus, before any unit trains.
  void checkData() override;
  const LmCorpus& corpus();
  // The batch's streams are split across the ranks (lm_training.h).
  bool dataParallel() const override { return true; }

  std::vector<Unit> units() const override { return units_; }
  nlohmann::json unitTemplate(const Unit& unit) const override;
  SelectionMetric selection() const override { return {"best_valid_nats", false}; }
  UnitResult runUnit(const Unit& unit, UnitContext& context) override;

 private:
  // The "hidden" width that meets the unit's parameter budget (0: no budget).
  int64_t fittedWidth(const Unit& unit, const nlohmann::json& unit_json,
                      const LanguageModelOptions& lm_options, const LmBudget& budget) const;
  // What the runner keeps of the unit: the best valid epoch's weights (those the test number
  // came from), or the last epoch's, and what rebuilds the model (lm_kept_model.h).
  TrainedModel keptModel(const Unit& unit, const nlohmann::json& unit_json, int64_t width,
                         LmTraining& training, const TrainOutcome& outcome,
                         const UnitResult& r, Hdf5RunLog& log, const std::string& g) const;

  LmConfig config_;
  std::string data_dir_;
  std::vector<Unit> units_;
  std::map<std::string, std::string> model_of_;  // group -> model name
  std::unique_ptr<LmCorpus> corpus_;
};

// The unit's LM: the encoder of `unit` ("encoder", "model") with its "hidden" replaced by
// `width` (when > 0), under a fixed seed.
std::shared_ptr<LanguageModelImpl> buildLanguageModel(const nlohmann::json& unit,
                                                      const LanguageModelOptions& options,
                                                      int64_t width);

}  // namespace recurlab::experiments
