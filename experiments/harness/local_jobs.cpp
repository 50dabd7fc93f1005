#include "experiments/harness/local_jobs.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "experiments/harness/worker_processes.h"

namespace recurlab::experiments {

bool isLocalJobWorker() {
  const char* v = std::getenv("RECURLAB_LOCAL_JOB");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

bool wantsLocalJobs(const ExperimentCommandLine& cl) {
  return cl.jobs != 1 && !cl.shard.active() && !isLocalJobWorker();
}

std::vector<std::string> localJobArguments(const std::vector<std::string>& original,
                                           const std::string& folder, int index, int jobs,
                                           int threads) {
  auto args = dropOptions(original,
                          {"--jobs", "--shard", "--threads", "--out", "--run-id", "--results-root"},
                          {"--force-new"});
  for (const std::string& a :
       {std::string("--out"), folder, std::string("--shard"),
        std::to_string(index) + "/" + std::to_string(jobs), std::string("--threads"),
        std::to_string(threads), std::string("--jobs"), std::string("1")})
    args.push_back(a);
  return args;
}


std::optional<int> exitBeforeReport(const RunnerReport& report, const Shard& shard,
                                    const std::string& folder) {
  if (report.waiting > 0) {
    if (isLocalJobWorker()) return kExitUnitsWaiting;
    std::cout << report.waiting << " units wait for other shards' search trials: run this "
              << "shard again when they are done\n";
    return 0;
  }
  if (!shard.active()) return std::nullopt;
  // The report merges every log of the folder, whichever one it is given.
  if (!isLocalJobWorker())
    std::cout << "shard " << shard.index << "/" << shard.count << " done; once every shard is "
              << "done: recurlab_analyze " << folder << "\n";
  return 0;
}

int runLocalJobs(int argc, char** argv, const ExperimentCommandLine& cl,
                 const std::string& folder, int max_passes) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int jobs = cl.jobs > 0 ? cl.jobs : cores;
  const int threads = cl.threads > 0 ? cl.threads : std::max(1, cores / jobs);
  std::vector<std::string> original(argv + 1, argv + argc);
  std::cout << "--jobs " << jobs << ": " << jobs << " worker processes, " << threads
            << " thread" << (threads == 1 ? "" : "s") << " each, into " << folder << std::endl;
  for (int pass = 1; pass <= max_passes; ++pass) {
    std::vector<pid_t> pids;
    for (int i = 0; i < jobs; ++i)
      pids.push_back(spawnWorker(argv[0], localJobArguments(original, folder, i, jobs, threads),
                                 {{"RECURLAB_LOCAL_JOB", "1"}}));
    int waiting = 0;
    std::vector<std::string> failures;
    const auto exits = waitWorkers(pids);
    for (int i = 0; i < jobs; ++i) {
      const auto& e = exits[static_cast<size_t>(i)];
      if (!e.signaled && e.code == kExitUnitsWaiting) ++waiting;
      else if (e.signaled || e.code != 0)
        failures.push_back("worker --shard " + std::to_string(i) + "/" + std::to_string(jobs) +
                           " " + e.describe());
    }
    if (!failures.empty()) {
      for (const auto& f : failures) std::cerr << "--jobs: " << f << "\n";
      std::cerr << "--jobs: the finished units are kept; run the same command with --run-id "
                << "(or --out " << folder << ") to resume\n";
      return 2;
    }
    if (waiting == 0) {
      std::cout << "--jobs: every unit finished (" << pass << " pass" << (pass == 1 ? "" : "es")
                << ")" << std::endl;
      const int rc = runAnalysisOf(folder, /*terminal_summary=*/true);
      if (rc == 0) std::cout << "report: " << folder << "/report.md\n";
      return 0;
    }
    std::cout << "--jobs: " << waiting << " worker(s) have final units waiting for other "
              << "shards' trials; pass " << pass + 1 << std::endl;
  }
  std::cerr << "--jobs: units still wait after " << max_passes << " passes\n";
  return 2;
}

}  // namespace recurlab::experiments
