#pragma once
// Where and how a run computes, the same options for every task (the one command line,
// experiment_command_line.h): --device cpu|cuda|cuda:N|auto, --precision fp32|bf16|fp16,
// --deterministic, or the config's top-level keys device, precision, deterministic (the
// command line wins). They are taken out of the config before a task reads it, so no task
// declares them; the run folder compares `precision` on resume (a bf16 folder does not take
// fp32 units), not the device: a run trained on a GPU resumes or is evaluated on a CPU machine.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace recurlab::experiments {

struct ExecutionOptions {
  std::string device = "cpu";      // resolved: "cpu" or "cuda:N"
  std::string precision = "fp32";  // fp32, bf16, fp16 (experiments/training/precision.h)
  bool deterministic = false;
  // The Trainer reads step losses from the device every this many steps (and at epoch ends,
  // log rows and checkpoints); 0 = every step on the CPU (free there), every 50 on CUDA.
  int64_t read_every_steps = 0;
};

// From what was asked (`device` before resolution: cpu, cuda, cuda:N, auto): the device
// resolved, the precision checked against it. Throws std::invalid_argument with one line naming
// the option (see common/runtime/compute_device.h).
ExecutionOptions resolveExecutionOptions(const std::string& device, const std::string& precision,
                                         bool deterministic);

// The run config as the run folder records it: fp32 adds nothing (folders written before these
// options resume as they were), bf16 and fp16 add "precision".
nlohmann::json withPrecision(nlohmann::json config, const ExecutionOptions& execution);

}  // namespace recurlab::experiments
