#pragma once
// The one driver of every experiment binary: a task main is a spec and a Task factory,
//
//   int main(int argc, char** argv) {
//     DriverSpec spec{"mt", "recurlab_mt: machine translation ...", "configs/mt/quick.json"};
//     return runExperiment(argc, argv, spec, [](const ExperimentCommandLine& cl) {
//       return std::make_unique<MtTask>(MtConfig::fromJson(cl.config), cl.data_dir);
//     });
//   }
//
// and runExperiment does the rest, the same for every task: BLAS and heap set-up, the command
// line (--help with the spec's epilogue), threads, the config and data checks before any work,
// --nproc-per-node (data-parallel ranks, where the task can), --jobs (worker processes, after
// the run-wide preparation is done once), the run folder, the runner, and the report with its
// terminal summary (recurlab_analyze --summary). docs/architecture.md walks through it.
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "experiments/harness/experiment_command_line.h"
#include "experiments/harness/task.h"

namespace recurlab::experiments {

// A driver: the command line's spec (the task's name, --help's first paragraph, the default
// config, its own options, --embeddings, the execution options), and what the driver adds.
struct DriverSpec : CommandLineSpec {
  DriverSpec(std::string experiment_name, std::string help_description,
             std::string default_config_file = "",
             std::function<std::string()> help_epilogue_text = {})
      : CommandLineSpec(std::move(experiment_name), std::move(help_description),
                        std::move(default_config_file)),
        help_epilogue(std::move(help_epilogue_text)) {}
  // Printed after the options by --help: the models or encoders the config may name.
  std::function<std::string()> help_epilogue;
  // OpenBLAS's threads in a run (OPENBLAS_NUM_THREADS overrides both; docs/performance.md):
  // One: LibTorch's own threads (--threads) parallelise, each GEMM stays on one core (best for
  // small GEMMs: classification, the LSTM reader). AsLibTorch: at --threads N > 1 OpenBLAS runs
  // N threads too and the process re-execs itself so that idle threads of both pools sleep at
  // once (common/runtime/thread_wait_policy.h): large GEMMs use every core (LM, MT). Commands
  // on a kept model always use One.
  enum class BlasThreads { One, AsLibTorch };
  BlasThreads blas_threads = BlasThreads::One;
  // A measured GEMM GFLOP/s in the log (off for test programs: 0.1 s a run).
  bool measure_machine = true;
  // Progress lines on stderr (off: test programs, whose callers read only the log).
  bool progress = true;
  // Commands on a kept model, chosen by the first argument (`recurlab_mt translate ...`).
  std::vector<ModelCommandSpec> commands;
};

using TaskFactory = std::function<std::unique_ptr<Task>(const ExperimentCommandLine& cl)>;

// The whole life of a run; returns the process exit status (0; 2 for bad input, named on
// stderr as "recurlab_<experiment>: error: ..."; kExitUnitsWaiting for a --jobs worker whose
// final units wait for other shards).
int runExperiment(int argc, char** argv, const DriverSpec& spec, const TaskFactory& make_task);

}  // namespace recurlab::experiments
