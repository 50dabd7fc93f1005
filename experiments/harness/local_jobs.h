#pragma once
// --jobs N: many units at once on one machine. The driver's own command line runs again as N
// worker processes, worker i with `--shard i/N --threads T --out <the run folder>`; each writes
// its shard log into the one folder (experiments/harness/run_folder.h), exactly as N processes
// started by hand (or N tasks of a Slurm job array, docs/cluster.md) would. Final units of a
// search wait for trials that other shards run, so the workers run in passes until no unit
// waits; then the parent runs recurlab_analyze over the folder. Units and their seeds do not
// depend on the shard layout, so N jobs give the units and numbers of one process.
#include <optional>
#include <string>
#include <vector>

#include "experiments/harness/experiment_command_line.h"
#include "experiments/harness/runner.h"

namespace recurlab::experiments {

// Exit status of a --jobs worker that ran its shard but still has final units waiting for
// other shards' trials (EX_TEMPFAIL): the parent runs another pass.
constexpr int kExitUnitsWaiting = 75;

// True in a process started by runLocalJobs (environment RECURLAB_LOCAL_JOB).
bool isLocalJobWorker();

// Whether the command line asks for local jobs: --jobs other than 1, and no --shard (a shard is
// already one worker).
bool wantsLocalJobs(const ExperimentCommandLine& cl);

// The workers' arguments (argv[1..]): the original ones without --jobs, --shard, --threads,
// --out, --run-id, --results-root and --force-new (in both "--opt v" and "--opt=v" forms), then
// `--out folder --shard i/jobs --threads threads --jobs 1`.
std::vector<std::string> localJobArguments(const std::vector<std::string>& original,
                                           const std::string& folder, int index, int jobs,
                                           int threads);

// What a driver does after runTask when this process must not write the report: final units
// still wait for other shards' trials (a --jobs worker exits kExitUnitsWaiting, a shard run by
// hand says to run it again), or it is one shard (a --jobs worker leaves the report to its
// parent, a shard run by hand says how to merge). Returns the exit status then, nullopt when
// the driver goes on to the report.
std::optional<int> exitBeforeReport(const RunnerReport& report, const Shard& shard,
                                    const std::string& folder);

// Runs the program (/proc/self/exe) as cl.jobs workers writing into `folder` (runFolderPath of
// cl.run_folder, chosen once by the caller) (0 = one per core) with cl.threads
// threads each (0 = cores / jobs, at least 1), in passes until none exits kExitUnitsWaiting;
// workers die with the parent (PR_SET_PDEATHSIG), and a run killed as a whole resumes from
// the same command with the same --run-id. Returns the driver's exit status: 0, or 2 when a
// worker failed (each failure named with its shard and exit status) or units still wait after
// `max_passes` passes.
int runLocalJobs(int argc, char** argv, const ExperimentCommandLine& cl,
                 const std::string& folder, int max_passes = 4);

}  // namespace recurlab::experiments
