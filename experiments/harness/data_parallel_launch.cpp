#include "experiments/harness/data_parallel_launch.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "experiments/harness/worker_processes.h"

namespace recurlab::experiments {

int freeLoopbackPort() {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) throw std::runtime_error("--nproc-per-node: cannot open a socket to find a port");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  int port = -1;
  if (bind(s, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      getsockname(s, reinterpret_cast<sockaddr*>(&address), &length) == 0)
    port = ntohs(address.sin_port);
  close(s);
  if (port <= 0) throw std::runtime_error("--nproc-per-node: no free port on 127.0.0.1");
  return port;
}

bool wantsDataParallelLaunch(const ExperimentCommandLine& cl) {
  const char* world = std::getenv("WORLD_SIZE");
  return cl.nproc_per_node > 1 && (world == nullptr || *world == '\0');
}

std::vector<std::string> dataParallelRankArguments(const std::vector<std::string>& original,
                                                   const std::string& folder, int threads) {
  auto args = dropOptions(
      original, {"--nproc-per-node", "--threads", "--out", "--run-id", "--results-root"},
      {"--force-new"});
  for (const std::string& a : {std::string("--out"), folder, std::string("--threads"),
                               std::to_string(threads)})
    args.push_back(a);
  return args;
}

int launchDataParallel(int argc, char** argv, const ExperimentCommandLine& cl) {
  if (cl.jobs != 1)
    throw std::invalid_argument("--nproc-per-node and --jobs do not go together: --jobs runs "
                                "many units at once, --nproc-per-node one unit on many processes");
  const int ranks = cl.nproc_per_node;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = cl.threads > 0 ? cl.threads : std::max(1, cores / ranks);
  const std::string folder = runFolderPath(cl.run_folder);
  const std::string port = std::to_string(freeLoopbackPort());
  const std::vector<std::string> original(argv + 1, argv + argc);
  std::cout << "--nproc-per-node " << ranks << ": data-parallel ranks on 127.0.0.1:" << port
            << ", " << threads << " thread" << (threads == 1 ? "" : "s") << " each, into "
            << folder << std::endl;
  std::vector<pid_t> pids;
  for (int r = 0; r < ranks; ++r)
    pids.push_back(spawnWorker(argv[0], dataParallelRankArguments(original, folder, threads),
                               {{"RANK", std::to_string(r)},
                                {"LOCAL_RANK", std::to_string(r)},
                                {"WORLD_SIZE", std::to_string(ranks)},
                                {"MASTER_ADDR", "127.0.0.1"},
                                {"MASTER_PORT", port}}));
  const auto exits = waitWorkers(pids);
  bool failed = false;
  for (int r = 0; r < ranks; ++r) {
    const auto& e = exits[static_cast<size_t>(r)];
    if (e.signaled || e.code != 0) {
      std::cerr << "--nproc-per-node: rank " << r << " " << e.describe() << "\n";
      failed = true;
    }
  }
  if (failed) {
    std::cerr << "--nproc-per-node: run the same command with --out " << folder
              << " to resume from the ranks' checkpoints\n";
    return 2;
  }
  return 0;
}

void refuseDataParallel(const ExperimentCommandLine& cl, const std::string& task) {
  const char* world = std::getenv("WORLD_SIZE");
  if (cl.nproc_per_node > 1 || (world != nullptr && *world != '\0' && std::string(world) != "1"))
    throw std::invalid_argument(
        "data-parallel training (--nproc-per-node, WORLD_SIZE) is not available for " + task +
        " yet: its batches cannot be split across ranks (docs/cluster.md); --jobs N runs its "
        "units in parallel");
}

RunFolderOptions rankRunFolder(const RunFolderOptions& options, int rank, int world_size) {
  if (world_size <= 1) return options;
  if (options.run_id.empty() && options.out_dir.empty())
    throw std::invalid_argument(
        "data-parallel training with WORLD_SIZE " + std::to_string(world_size) +
        " needs --run-id or --out, so that every rank writes into the same run folder");
  if (options.force_new)
    throw std::invalid_argument("--force-new with data-parallel ranks: each rank would pick "
                                "its own new folder; name a new --run-id instead");
  if (rank == 0) return options;
  RunFolderOptions own = options;
  own.out_dir = (std::filesystem::path(runFolderPath(options)) / "ranks" /
                 ("rank-" + std::to_string(rank)))
                    .string();
  return own;
}

}  // namespace recurlab::experiments
