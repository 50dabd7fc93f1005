#pragma once
// How a driver starts one unit on several processes (experiments/training/data_parallel.h):
// either launched by torchrun, srun or by hand with RANK / WORLD_SIZE / MASTER_ADDR /
// MASTER_PORT in the environment (one process per rank, every rank with the same --run-id or
// --out), or `--nproc-per-node N`, which spawns the N ranks of this machine itself.
#include <string>
#include <vector>

#include "experiments/harness/experiment_command_line.h"
#include "experiments/harness/run_folder.h"

namespace recurlab::experiments {

// --nproc-per-node above 1 in a process that is not already a rank (WORLD_SIZE unset).
bool wantsDataParallelLaunch(const ExperimentCommandLine& cl);

// The ranks' arguments: the original ones without --nproc-per-node, --threads, --out,
// --run-id, --results-root and --force-new, then `--out folder --threads threads`.
std::vector<std::string> dataParallelRankArguments(const std::vector<std::string>& original,
                                                   const std::string& folder, int threads);

// Spawns cl.nproc_per_node ranks of this program with RANK = LOCAL_RANK = i, WORLD_SIZE,
// MASTER_ADDR 127.0.0.1 and a free MASTER_PORT, cl.threads threads each (0 = cores / N, at
// least 1), into one run folder; waits for them. Returns 0, or 2 naming the ranks that failed
// (a rank that dies makes the others fail within the collective timeout, RECURLAB_DP_TIMEOUT).
int launchDataParallel(int argc, char** argv, const ExperimentCommandLine& cl);

// For a task whose batches cannot be split yet: throws std::invalid_argument when the command
// line or the environment asks for data-parallel ranks (--nproc-per-node, WORLD_SIZE > 1).
void refuseDataParallel(const ExperimentCommandLine& cl, const std::string& task);

// A TCP port free on 127.0.0.1 right now (the kernel picks it): the launcher's MASTER_PORT.
int freeLoopbackPort();

// This rank's run folder: rank 0 writes the run's (its log, checkpoints and report); rank r > 0
// keeps its own log and checkpoints in <run folder>/ranks/rank-<r>/, so that each rank resumes
// from its own files (no shared filesystem needed) and analysis sees rank 0's log only. With
// more than one rank the folder must be named (--run-id or --out): ranks started separately
// must agree on it. Throws std::invalid_argument otherwise.
RunFolderOptions rankRunFolder(const RunFolderOptions& options, int rank, int world_size);

}  // namespace recurlab::experiments
