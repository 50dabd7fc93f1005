// c10d's Gloo process group is compiled only with USE_C10D_GLOO (Debian's LibTorch has it; the
// headers come with libgloo-dev, which CMake looks for: RECURLAB_WITH_GLOO).
#ifdef RECURLAB_WITH_GLOO
#define USE_C10D_GLOO 1
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#endif
// NCCL's process group: only in a build against a LibTorch with CUDA and NCCL (CMake's
// RECURLAB_NCCL).
#if defined(RECURLAB_WITH_GLOO) && defined(RECURLAB_WITH_NCCL)
#define USE_C10D_NCCL 1
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include "experiments/training/data_parallel.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>

namespace recurlab::experiments {
namespace {

int intFromEnvironment(const char* name, int fallback, int lowest, int highest) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < lowest || value > highest)
    throw std::invalid_argument(std::string("environment variable ") + name + "='" + text +
                                "': expected an integer in [" + std::to_string(lowest) + ", " +
                                std::to_string(highest) + "]");
  return static_cast<int>(value);
}

}  // namespace

DataParallelOptions DataParallelOptions::fromEnvironment() {
  DataParallelOptions o;
  o.world_size = intFromEnvironment("WORLD_SIZE", 1, 1, 1 << 16);
  o.rank = intFromEnvironment("RANK", 0, 0, o.world_size - 1);
  o.master_port = intFromEnvironment("MASTER_PORT", o.master_port, 1, 65535);
  o.timeout_seconds = intFromEnvironment("RECURLAB_DP_TIMEOUT", 120, 1, 1 << 20);
  o.rank_zero_timeout_seconds =
      intFromEnvironment("RECURLAB_DP_RANK_ZERO_TIMEOUT", 24 * 3600, 1, 1 << 30);
  if (const char* addr = std::getenv("MASTER_ADDR"); addr != nullptr && *addr != '\0')
    o.master_addr = addr;
  return o;
}

std::string dataParallelBackend(const std::string& device) {
  return device.rfind("cuda", 0) == 0 ? "nccl" : "gloo";
}

bool dataParallelBackendBuilt(const std::string& backend) {
#ifdef RECURLAB_WITH_GLOO
  if (backend == "gloo") return true;
#endif
#if defined(RECURLAB_WITH_GLOO) && defined(RECURLAB_WITH_NCCL)
  if (backend == "nccl") return true;
#endif
  (void)backend;
  return false;
}

namespace {

// Before any socket opens: a backend this build lacks is a one-line error.
void requireBackend(const DataParallelOptions& options) {
  if (options.backend != "gloo" && options.backend != "nccl")
    throw std::invalid_argument("data-parallel backend '" + options.backend +
                                "': expected gloo or nccl");
  if (dataParallelBackendBuilt(options.backend)) return;
  if (options.backend == "nccl")
    throw std::runtime_error(
        "data-parallel training on a CUDA device needs NCCL, which this build's LibTorch does "
        "not have (Debian's is CPU-only): build against a CUDA LibTorch (docs/gpu.md), or "
        "train the ranks on the CPU with Gloo");
  throw std::runtime_error("data-parallel training (WORLD_SIZE " +
                           std::to_string(options.world_size) + ") needs c10d's Gloo backend: "
                           "install libgloo-dev and rebuild recurlab");
}

}  // namespace

#ifdef RECURLAB_WITH_GLOO
namespace {

// The three collectives used here, over Gloo's or NCCL's process group: their common base is
// ProcessGroup in LibTorch 1.13 and Backend in 2.x, so neither is named.
class Collectives {
 public:
  virtual ~Collectives() = default;
  virtual c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors) = 0;
  virtual c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors) = 0;
  virtual c10::intrusive_ptr<c10d::Work> barrier() = 0;
};

template <class Group>
class GroupCollectives : public Collectives {
 public:
  explicit GroupCollectives(c10::intrusive_ptr<Group> group) : group_(std::move(group)) {}
  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors) override {
    return group_->broadcast(tensors, {});
  }
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors) override {
    return group_->allreduce(tensors, {});
  }
  c10::intrusive_ptr<c10d::Work> barrier() override { return group_->barrier({}); }

 private:
  c10::intrusive_ptr<Group> group_;
};

}  // namespace

struct DataParallelGroup::Impl {
  c10::intrusive_ptr<c10d::Store> store;
  std::unique_ptr<Collectives> group;
  torch::Device device = torch::kCPU;  // where the collectives' tensors live
};

namespace {

// c10::Error's what() carries a C++ backtrace: users get the message alone.
std::string messageOf(const std::exception& e) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e))
    return c10_error->what_without_backtrace();
  return e.what();
}

// Waits for a collective; a peer that died or a timeout becomes an error naming what failed.
void finish(const c10::intrusive_ptr<c10d::Work>& work, const char* what, int rank, int world) {
  try {
    work->wait();
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("data-parallel ") + what + " failed on rank " +
                             std::to_string(rank) + " of " + std::to_string(world) +
                             " (another rank died, hung or timed out): " + messageOf(e));
  }
}

}  // namespace

DataParallelGroup::DataParallelGroup(const DataParallelOptions& options) : options_(options) {
  if (!active()) return;
  requireBackend(options);
  const auto timeout = std::chrono::milliseconds(
      static_cast<int64_t>(options.timeout_seconds * 1000));
  impl_ = std::make_unique<Impl>();
  try {
    c10d::TCPStoreOptions store;
    store.port = static_cast<uint16_t>(options.master_port);
    store.isServer = options.rank == 0;
    store.numWorkers = static_cast<size_t>(options.world_size);
    store.waitWorkers = true;
    store.timeout = timeout;
    impl_->store = c10::make_intrusive<c10d::TCPStore>(options.master_addr, store);
#ifdef USE_C10D_NCCL
    if (options.backend == "nccl") {
      auto nccl = c10d::ProcessGroupNCCL::Options::create();
      nccl->timeout = timeout;
      impl_->device = torch::Device(torch::kCUDA, c10::cuda::current_device());
      impl_->group = std::make_unique<GroupCollectives<c10d::ProcessGroupNCCL>>(
          c10::make_intrusive<c10d::ProcessGroupNCCL>(impl_->store, options.rank,
                                                      options.world_size, nccl));
    }
#endif
    if (options.backend == "gloo") {
      auto gloo = c10d::ProcessGroupGloo::Options::create(timeout);
      gloo->devices.push_back(
          c10d::ProcessGroupGloo::createDeviceForHostname(options.master_addr));
      impl_->group = std::make_unique<GroupCollectives<c10d::ProcessGroupGloo>>(
          c10::make_intrusive<c10d::ProcessGroupGloo>(impl_->store, options.rank,
                                                      options.world_size, gloo));
    }
  } catch (const std::exception& e) {
    throw std::runtime_error("data-parallel rendezvous of rank " + std::to_string(options.rank) +
                             " of " + std::to_string(options.world_size) + " at " +
                             options.master_addr + ":" + std::to_string(options.master_port) +
                             " failed: " + messageOf(e));
  }
}

DataParallelGroup::~DataParallelGroup() = default;

void DataParallelGroup::broadcastFromRankZero(torch::nn::Module& module,
                                              const std::vector<at::Tensor>& rank_local) {
  if (!active()) return;
  torch::NoGradGuard no_grad;
  auto own = [&](const at::Tensor& t) {
    return std::any_of(rank_local.begin(), rank_local.end(), [&](const at::Tensor& r) {
      return r.unsafeGetTensorImpl() == t.unsafeGetTensorImpl();
    });
  };
  std::vector<at::Tensor> tensors;
  for (const auto& p : module.parameters()) tensors.push_back(p);
  for (const auto& b : module.buffers())
    if (!own(b)) tensors.push_back(b);
  for (auto& t : tensors) {
    std::vector<at::Tensor> one{t.is_contiguous() ? t : t.contiguous()};
    finish(impl_->group->broadcast(one), "broadcast of the initial weights", rank(),
           worldSize());
    if (!t.is_contiguous()) t.copy_(one[0]);
  }
}

int64_t DataParallelGroup::averageGradients(const std::vector<at::Tensor>& parameters,
                                            double weight) {
  if (!active()) return 0;
  torch::NoGradGuard no_grad;
  std::vector<double> total{weight};
  sum(total);
  if (!(total[0] > 0)) throw std::runtime_error("data-parallel step: no examples on any rank");
  // Buckets of gradients of one dtype, up to bucket_bytes each, in parameter order.
  int64_t bytes = 0;
  std::vector<at::Tensor> grads;
  for (const auto& p : parameters) {
    if (p.grad().defined() && p.grad().is_sparse())
      throw std::runtime_error("data-parallel training needs dense gradients (a sparse "
                               "embedding gradient was found: set train.sparse_embedding=false)");
    if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
    grads.push_back(p.grad());
  }
  size_t start = 0;
  while (start < grads.size()) {
    size_t end = start;
    int64_t bucket = 0;
    while (end < grads.size() && grads[end].scalar_type() == grads[start].scalar_type() &&
           (end == start || bucket + grads[end].nbytes() <= static_cast<size_t>(options_.bucket_bytes))) {
      bucket += static_cast<int64_t>(grads[end].nbytes());
      ++end;
    }
    std::vector<at::Tensor> flat_parts;
    for (size_t i = start; i < end; ++i) flat_parts.push_back(grads[i].reshape({-1}));
    std::vector<at::Tensor> flat{torch::cat(flat_parts).mul_(weight)};
    finish(impl_->group->allreduce(flat), "all-reduce of the gradients", rank(), worldSize());
    flat[0].div_(total[0]);
    int64_t offset = 0;
    for (size_t i = start; i < end; ++i) {
      const int64_t n = grads[i].numel();
      grads[i].copy_(flat[0].narrow(0, offset, n).view_as(grads[i]));
      offset += n;
    }
    bytes += bucket;
    start = end;
  }
  return bytes;
}

void DataParallelGroup::sum(std::vector<double>& values) {
  if (!active() || values.empty()) return;
  std::vector<at::Tensor> t{torch::tensor(values, torch::kDouble).to(impl_->device)};
  finish(impl_->group->allreduce(t), "all-reduce of the step's statistics", rank(),
         worldSize());
  t[0] = t[0].cpu();
  const double* d = t[0].data_ptr<double>();
  for (size_t i = 0; i < values.size(); ++i) values[i] = d[i];
}

void DataParallelGroup::broadcast(std::vector<double>& values) {
  if (!active() || values.empty()) return;
  std::vector<at::Tensor> t{torch::tensor(values, torch::kDouble).to(impl_->device)};
  finish(impl_->group->broadcast(t), "broadcast of the evaluation", rank(), worldSize());
  t[0] = t[0].cpu();
  const double* d = t[0].data_ptr<double>();
  for (size_t i = 0; i < values.size(); ++i) values[i] = d[i];
}

void DataParallelGroup::barrier() {
  if (!active()) return;
  finish(impl_->group->barrier(), "barrier", rank(), worldSize());
}

// A key in rank 0's store per call: rank 0 sets it, the others wait for it. The store's
// server lives in rank 0, so a rank 0 that dies closes the connection and ends the wait.
void DataParallelGroup::waitForRankZero(const std::string& what) {
  if (!active()) return;
  const std::string key = "recurlab/rank-zero-done/" + std::to_string(rank_zero_waits_++);
  try {
    if (rank() == 0) {
      impl_->store->set(key, std::vector<uint8_t>{1});
    } else {
      impl_->store->wait({key}, std::chrono::milliseconds(static_cast<int64_t>(
                                    options_.rank_zero_timeout_seconds * 1000)));
    }
  } catch (const std::exception& e) {
    throw std::runtime_error("data-parallel rank " + std::to_string(rank()) + " of " +
                             std::to_string(worldSize()) + " waiting for rank 0's " + what +
                             " failed (rank 0 died, or took longer than "
                             "RECURLAB_DP_RANK_ZERO_TIMEOUT): " + messageOf(e));
  }
}

#else  // no Gloo headers at build time: world size 1 only

struct DataParallelGroup::Impl {};

DataParallelGroup::DataParallelGroup(const DataParallelOptions& options) : options_(options) {
  if (active()) requireBackend(options);
}
DataParallelGroup::~DataParallelGroup() = default;
void DataParallelGroup::broadcastFromRankZero(torch::nn::Module&, const std::vector<at::Tensor>&) {}
int64_t DataParallelGroup::averageGradients(const std::vector<at::Tensor>&, double) { return 0; }
void DataParallelGroup::sum(std::vector<double>&) {}
void DataParallelGroup::broadcast(std::vector<double>&) {}
void DataParallelGroup::barrier() {}
void DataParallelGroup::waitForRankZero(const std::string&) {}

#endif

}  // namespace recurlab::experiments
