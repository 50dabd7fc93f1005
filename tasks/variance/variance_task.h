#pragma once
// `make exp-variance` as a Task on the one runner: variance propagation at initialization
// through a deep SRU (Lei et al. 2018, App. A and Fig. 6), one unit per input kind in
// /variance/sru/<input>, and through a gated-conv stack (Gehring et al. 2017, App. A) in
// /variance/glu. A killed run resumes at its first unfinished study.
#include <memory>
#include <string>
#include <vector>

#include "experiments/harness/experiment_command_line.h"
#include "experiments/harness/task.h"
#include "tasks/variance/variance_inputs.h"
#include "tasks/variance/variance_study_options.h"

namespace recurlab::experiments {

class VarianceTask : public Task {
 public:
  // The config (file and --set), --quick's small sizes for keys not set, --data-dir and
  // --embeddings; every key checked.
  explicit VarianceTask(const ExperimentCommandLine& cl);

  int64_t seed() const override { return options_.seed; }
  std::string describe() const override;
  std::optional<nlohmann::json> runConfig() const override { return options_.toJson(); }
  // The MR sentences (inputs "sentences", "pretrained") are there.
  void checkData() override;

  std::vector<Unit> units() const override;
  nlohmann::json unitTemplate(const Unit& unit) const override;
  SelectionMetric selection() const override { return {"", true}; }
  UnitResult runUnit(const Unit& unit, UnitContext& context) override;

 private:
  std::unique_ptr<VarianceInputSource> makeInput(const std::string& kind);

  VarianceStudyOptions options_;
  SentenceSample sentences_;
};

}  // namespace recurlab::experiments
