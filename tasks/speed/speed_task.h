#pragma once
// `make exp-speed` as a Task on the one runner: forward+backward time per layer, every model
// side by side, one unit per shape (length, hidden, batch) in group /speed/shapes/<i> with its
// table `timings`; the run's models, skipped models and the measured copy bandwidth are
// attributes of /speed. Settings are options (--sizes, --models, ...), not a config file: the
// run folder records them as the run's config, so a rerun with other options is refused and a
// killed run resumes at its first unfinished shape.
#include <boost/program_options/options_description.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "experiments/harness/experiment_command_line.h"
#include "experiments/harness/task.h"
#include "tasks/speed/speed_models.h"

namespace recurlab::experiments {

// The driver's own options, as given.
struct SpeedOptions {
  std::string device = "cpu", sizes, lengths, batches, models, precision = "fp32";
  int repeats = 9, sweep_repeats = 5, warmup = 2;
  int64_t batch = 32, sweep_hidden = 512;
};

void addSpeedOptions(boost::program_options::options_description& cli, SpeedOptions& options);

class SpeedTask : public Task {
 public:
  // Checks the options (errors name the option) and lays out the shapes and models.
  SpeedTask(SpeedOptions options, const ExperimentCommandLine& cl);

  int64_t seed() const override { return seed_; }
  std::string describe() const override;
  std::optional<nlohmann::json> runConfig() const override { return config_; }
  std::string device() const override { return options_.device; }
  // Measures the copy bandwidth and writes the models and skipped ones as /speed attributes.
  void describeRun(Hdf5RunLog& log) const override;

  std::vector<Unit> units() const override;
  nlohmann::json unitTemplate(const Unit& unit) const override;
  SelectionMetric selection() const override { return {"sru_median_ms", false}; }
  UnitResult runUnit(const Unit& unit, UnitContext& context) override;

  struct Shape {
    int study;  // 0 the main sizes, 1 the length sweep, 2 the batch sweep
    int64_t length, hidden, batch;
  };

 private:
  SpeedOptions options_;
  int64_t seed_ = 1;
  std::vector<Shape> shapes_;
  std::vector<SpeedModelSpec> specs_;
  std::vector<std::string> skipped_;
  SpeedPrecision precision_ = SpeedPrecision::Fp32;
  nlohmann::json config_;
};

}  // namespace recurlab::experiments
