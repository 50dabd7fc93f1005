#include "experiments/training/execution_options.h"

#include "common/runtime/compute_device.h"
#include "experiments/training/precision.h"

namespace recurlab::experiments {

ExecutionOptions resolveExecutionOptions(const std::string& device, const std::string& precision,
                                         bool deterministic) {
  ExecutionOptions e;
  e.device = resolveComputeDevice(device, "--device");
  const Precision p = parsePrecision(precision, "--precision");
  checkPrecisionOnDevice(p, e.device, "--precision");
  e.precision = precisionName(p);
  e.deterministic = deterministic;
  return e;
}

nlohmann::json withPrecision(nlohmann::json config, const ExecutionOptions& execution) {
  if (execution.precision != "fp32" && config.is_object()) config["precision"] = execution.precision;
  return config;
}

}  // namespace recurlab::experiments
