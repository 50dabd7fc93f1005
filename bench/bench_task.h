#pragma once
// `make bench` as a Task on the one runner: recurlab's training and decoding steps beside
// PyTorch's own modules on the same shapes (bench/bench_cases.h), one unit per case, in
// interleaved rounds: each round times ours and then PyTorch's (the order alternating between
// rounds) at every thread count, the same number of steps on each side. The log holds every
// measurement (/bench/cases/<i>/timings); the report (analysis/bench_report.cpp) gives the
// ratios. Without PyTorch the bench says so and times our side alone.
#include <boost/program_options/options_description.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_cases.h"
#include "experiments/harness/experiment_command_line.h"
#include "experiments/harness/task.h"

namespace recurlab::bench {

class PytorchProcess;

struct BenchOptions {
  std::string cases, thread_counts = "1,2", python;
  int rounds = 3;
  double min_seconds = 1.0;  // each measurement runs whole steps until this long (at least one)
  bool single_threaded_blas = false;  // OpenBLAS on one thread on both sides, whatever the count
};

void addBenchOptions(boost::program_options::options_description& cli, BenchOptions& options);

class BenchTask : public experiments::Task {
 public:
  BenchTask(BenchOptions options, const experiments::ExperimentCommandLine& cl);
  ~BenchTask() override;

  int64_t seed() const override { return 1; }
  std::string describe() const override;
  std::optional<nlohmann::json> runConfig() const override { return config_; }
  // Starts the PyTorch side and records its version (or why it is absent) under /bench.
  void describeRun(experiments::Hdf5RunLog& log) const override;

  std::vector<experiments::Unit> units() const override;
  nlohmann::json unitTemplate(const experiments::Unit& unit) const override;
  experiments::SelectionMetric selection() const override { return {"ratio_median", true}; }
  experiments::UnitResult runUnit(const experiments::Unit& unit,
                                  experiments::UnitContext& context) override;

 private:
  PytorchProcess& pytorch() const;

  BenchOptions options_;
  std::vector<int> threads_;
  std::vector<std::string> case_names_;
  nlohmann::json config_;
  mutable std::vector<BenchCase> cases_;          // built on first use (after the re-exec)
  mutable std::unique_ptr<PytorchProcess> pytorch_;
};

}  // namespace recurlab::bench
