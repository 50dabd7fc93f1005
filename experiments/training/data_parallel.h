#pragma once
// One unit trained by several processes (data parallelism) on LibTorch's c10d: every rank
// holds the whole model, reads its own part of every batch, and after backward the gradients
// are all-reduced (in buckets) so that every rank applies the same update: the update of one
// process that saw the whole batch. Rank 0 writes the run's log and checkpoints.
//
// Backend: ProcessGroupGloo for CPU tensors (Debian's LibTorch is built with it, its headers
// come with libgloo-dev); NCCL for CUDA devices, where the LibTorch found has it (Debian's has
// not: asking for it there is a one-line error). Rendezvous: a TCPStore at MASTER_ADDR:MASTER_PORT, rank 0 its server.
// Launch as torchrun or Slurm users do: RANK, WORLD_SIZE (LOCAL_RANK, MASTER_ADDR,
// MASTER_PORT) in the environment, or `--nproc-per-node N` to spawn N local ranks
// (experiments/harness/data_parallel_launch.h). A rank that dies makes the others fail with an
// error naming the collective within `timeout_seconds`, never hang.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace torch::nn {
class Module;
}

namespace recurlab::experiments {

struct DataParallelOptions {
  int rank = 0;
  int world_size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  double timeout_seconds = 120;  // a collective (or the rendezvous) waiting longer fails
  int64_t bucket_bytes = 25 << 20;  // gradients are flattened and all-reduced in buckets
  std::string backend = "gloo";  // "gloo" or "nccl" (dataParallelBackend)
  // How long the other ranks wait while rank 0 alone works (evaluation, a final beam test):
  // minutes to hours, unlike a collective. A rank 0 that dies ends the wait at once.
  double rank_zero_timeout_seconds = 24 * 3600;

  // From RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT (and RECURLAB_DP_TIMEOUT,
  // RECURLAB_DP_RANK_ZERO_TIMEOUT seconds); world size 1 when WORLD_SIZE is unset. Throws
  // naming the variable when one is malformed.
  static DataParallelOptions fromEnvironment();
};

// The collective backend for a device string ("cpu", "cuda", "cuda:1", "auto"): "nccl" for a
// CUDA device, "gloo" otherwise.
std::string dataParallelBackend(const std::string& device);
// Whether this build can create the backend's process group ("gloo": libgloo-dev was found;
// "nccl": the LibTorch found was built with NCCL).
bool dataParallelBackendBuilt(const std::string& backend);

class DataParallelGroup {
 public:
  // World size 1: every call below is a no-op (no process group, no sockets).
  explicit DataParallelGroup(const DataParallelOptions& options);
  ~DataParallelGroup();
  DataParallelGroup(const DataParallelGroup&) = delete;
  DataParallelGroup& operator=(const DataParallelGroup&) = delete;

  int rank() const { return options_.rank; }
  int worldSize() const { return options_.world_size; }
  bool active() const { return options_.world_size > 1; }

  // Parameters and buffers of `module` take rank 0's values, except the tensors of
  // `rank_local` (each rank's own, e.g. a carried recurrent state of its own streams).
  void broadcastFromRankZero(torch::nn::Module& module,
                             const std::vector<at::Tensor>& rank_local = {});
  // Replaces each gradient g_r of this rank by  sum_r weight_r * g_r / sum_r weight_r  (weight:
  // this rank's examples in the step), the gradient of the mean loss over the union of the
  // ranks' batches. Undefined gradients count as zeros. Returns the bytes all-reduced.
  int64_t averageGradients(const std::vector<at::Tensor>& parameters, double weight);
  // Element-wise sum over the ranks, in place (double).
  void sum(std::vector<double>& values);
  // Every rank gets rank 0's values (same length on every rank).
  void broadcast(std::vector<double>& values);
  void barrier();
  // Rank 0 calls it when its work alone is done; the others wait there for it (up to
  // rank_zero_timeout_seconds, not the collective timeout). Every rank calls it in turn.
  void waitForRankZero(const std::string& what);

 private:
  struct Impl;
  DataParallelOptions options_;
  std::unique_ptr<Impl> impl_;
  int64_t rank_zero_waits_ = 0;
};

}  // namespace recurlab::experiments
