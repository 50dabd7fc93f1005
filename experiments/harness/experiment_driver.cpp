#include "experiments/harness/experiment_driver.h"

#include <csignal>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "common/runtime/crash_report.h"
#include "common/runtime/determinism.h"
#include "common/runtime/heap_policy.h"
#include "common/runtime/machine_info.h"
#include "common/runtime/openblas_core.h"
#include "common/runtime/thread_count.h"
#include "common/runtime/thread_wait_policy.h"
#include "experiments/harness/data_parallel_launch.h"
#include "experiments/harness/local_jobs.h"
#include "experiments/harness/run_folder.h"
#include "experiments/harness/runner.h"
#include "experiments/training/data_parallel.h"

namespace recurlab::experiments {
namespace {

// The driver's command line, its default config found where the program runs from.
CommandLineSpec commandLineSpec(const DriverSpec& spec) {
  CommandLineSpec c = spec;
  if (!c.default_config.empty()) c.default_config = defaultConfigFile(c.default_config);
  return c;
}

// The config the run folder records: the task's own, or the command line's as given, with the
// precision when it is not fp32.
nlohmann::json runConfigOf(const Task& task, const ExperimentCommandLine& cl) {
  return withPrecision(task.runConfig().value_or(cl.config), cl.execution);
}

// Root attributes of the log: how the units computed (the device is the machine's, written by
// the run folder).
void describeExecution(Hdf5RunLog& log, const ExecutionOptions& execution) {
  log.setAttribute("/", "precision", execution.precision);
  log.setAttribute("/", "deterministic", static_cast<int64_t>(execution.deterministic));
}

// Before any work: a process that may re-exec itself must not have written anything yet.
void applyBlasThreads(DriverSpec::BlasThreads blas, int threads, char** argv) {
  if (blas == DriverSpec::BlasThreads::AsLibTorch && threads > 1) {
    sleepingThreadWaits(argv);  // re-execs once; this process goes on only after it
    defaultOpenBlasThreads(threads);
  } else {
    singleThreadedOpenBlas();
  }
}

// --jobs: the run-wide preparation happens here, once, before the workers start; each worker
// then finds its files in the folder.
int runAsLocalJobs(int argc, char** argv, const ExperimentCommandLine& cl, Task& task) {
  const std::string folder = runFolderPath(cl.run_folder);
  checkResumableFolder(folder, cl.run_folder.experiment, runConfigOf(task, cl), task.seed());
  std::filesystem::create_directories(folder);
  task.prepare(folder);
  return runLocalJobs(argc, argv, cl, folder);
}

int runInThisProcess(const ExperimentCommandLine& cl, const DriverSpec& spec, Task& task) {
  const std::string device = spec.execution ? cl.execution.device : task.device();
  auto rank_options = DataParallelOptions::fromEnvironment();
  rank_options.backend = dataParallelBackend(device);  // Gloo on the CPU, NCCL on CUDA
  DataParallelGroup ranks(rank_options);
  MachineInfo machine = collectMachineInfo(device, /*measure_gemm=*/spec.measure_machine);
  if (machine.device.empty()) machine.device = device;
  RunFolder folder(rankRunFolder(cl.run_folder, ranks.rank(), ranks.worldSize()), cl.shard,
                   cl.command_line, runConfigOf(task, cl), task.seed(), machine,
                   [&](const Hdf5RunLog& log) { return unfinishedUnitGroups(task, cl.shard, log); });
  task.prepare(folder.path());
  task.describeRun(folder.log());
  if (spec.execution) describeExecution(folder.log(), cl.execution);
  std::ostringstream quiet;
  RunnerOptions runner;
  runner.seed = static_cast<uint64_t>(task.seed());
  runner.data_parallel = &ranks;
  runner.execution = cl.execution;
  if (!spec.progress) runner.progress = &quiet;
  const auto report = runTask(task, folder, runner);
  folder.finish();  // the log is closed before the analysis reads it
  if (const auto rc = exitBeforeReport(report, cl.shard, folder.path())) return *rc;
  if (ranks.rank() > 0) return 0;  // rank 0 writes the report
  const int rc = runAnalysisOf(folder.path(), /*terminal_summary=*/true);
  if (rc == 0) std::cout << "report: " << folder.file("report.md") << "\n";
  return 0;
}

// A command on a kept model: its own options, the same error convention as a run.
int runModelCommand(int argc, char** argv, const DriverSpec& spec, const ModelCommandSpec& command) {
  const std::string program = "recurlab_" + spec.experiment + " " + command.name;
  try {
    const auto cl = parseModelCommandLine(argc, argv, command);
    if (cl.help) {
      std::cout << "usage: " << program << " --model DIR [options]\n" << cl.help_text;
      return 0;
    }
    singleThreadedOpenBlas();
    applyThreadCount(cl.threads);
    return command.run(cl);
  } catch (const std::exception& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace

int runExperiment(int argc, char** argv, const DriverSpec& spec, const TaskFactory& make_task) {
  reportFatalSignals();
  // A data-parallel rank whose peer died writes to a closed socket: with SIGPIPE ignored the
  // write fails (EPIPE) and the all-reduce reports it, instead of the rank dying silently.
  std::signal(SIGPIPE, SIG_IGN);
  ensureFastOpenBlas(argc, argv);
  retainFreedHeapMemory();
  if (argc > 1)
    for (const auto& command : spec.commands)
      if (command.name == argv[1]) return runModelCommand(argc - 1, argv + 1, spec, command);
  try {
    const auto cl = parseExperimentCommandLine(argc, argv, commandLineSpec(spec));
    if (cl.help) {
      std::cout << cl.help_text;
      if (spec.help_epilogue) std::cout << "\n" << spec.help_epilogue();
      if (!spec.commands.empty()) {
        std::cout << "\nCommands on a kept model (<run>/models/<unit>), each with its --help:\n";
        for (const auto& c : spec.commands)
          std::cout << "  recurlab_" << spec.experiment << " " << c.name << " --model DIR ...\n";
      }
      return 0;
    }
    const int threads = applyThreadCount(cl.threads);
    applyBlasThreads(spec.blas_threads, threads, argv);
    if (cl.execution.deterministic) applyDeterministicAlgorithms(true);
    const auto task = make_task(cl);  // every key of every unit checked here
    if (cl.has("print-config")) {
      std::cout << runConfigOf(*task, cl).dump(2) << "\n";
      return 0;
    }
    task->checkData();
    const std::string contents = task->describe();
    std::cout << "config " << (cl.config_file.empty() ? "(none)" : cl.config_file) << ": "
              << contents << (contents.empty() ? "" : ", ") << threads
              << " thread" << (threads == 1 ? "" : "s") << std::endl;
    if (task->dataParallel()) {
      if (wantsDataParallelLaunch(cl)) return launchDataParallel(argc, argv, cl);
    } else {
      refuseDataParallel(cl, spec.experiment);
    }
    if (wantsLocalJobs(cl)) return runAsLocalJobs(argc, argv, cl, *task);
    return runInThisProcess(cl, spec, *task);
  } catch (const std::exception& e) {
    std::cerr << "recurlab_" << spec.experiment << ": error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace recurlab::experiments
