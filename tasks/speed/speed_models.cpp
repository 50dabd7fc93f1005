#include "tasks/speed/speed_models.h"

#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <functional>
#include <stdexcept>

#include "common/runtime/torch_build.h"
#include "experiments/training/precision.h"
#include "kernels/linear_recurrence.h"
#include "kernels/sru_recurrence.h"
#include "models/registry.h"

namespace recurlab::experiments {
namespace {

void synchronize(const torch::Device& device) {
  // Reading one value back waits for the stream; no CUDA headers are needed for it.
  if (device.is_cuda()) torch::zeros({1}, torch::TensorOptions().device(device)).item<float>();
}

class EncoderStep : public SpeedStep {
 public:
  EncoderStep(std::shared_ptr<models::SequenceEncoder> encoder, torch::Tensor x,
              torch::Device device)
      : encoder_(std::move(encoder)), x_(std::move(x)), device_(device) {}
  void run() override {
    torch::Tensor y = encoder_->encode(x_, {});
    if (!grad_.defined() || grad_.sizes() != y.sizes())
      grad_ = torch::randn(y.sizes(), y.options());
    y.backward(grad_);
    synchronize(device_);
  }

 private:
  std::shared_ptr<models::SequenceEncoder> encoder_;
  torch::Tensor x_, grad_;
  torch::Device device_;
};

class MatmulFloorStep : public SpeedStep {
 public:
  MatmulFloorStep(int64_t L, int64_t d, int64_t B, const torch::TensorOptions& o)
      : x_(torch::randn({L * B, d}, o).requires_grad_(true)),
        w_(torch::randn({d, 3 * d}, o).div_(std::sqrt(double(d))).requires_grad_(true)),
        grad_(torch::randn({L * B, 3 * d}, o)),
        device_(o.device()) {}
  void run() override {
    x_.mm(w_).backward(grad_);  // U = X·W, then dX = dU·Wᵀ and dW = Xᵀ·dU
    synchronize(device_);
  }

 private:
  torch::Tensor x_, w_, grad_;
  torch::Device device_;
};

// A fused op alone: its forward and its backward from a fixed gradient of h. kernelBytes
// counts `values_per_element` values of h's element size per (t, b, unit), what the forward and
// the backward read and write.
class KernelStep : public SpeedStep {
 public:
  KernelStep(std::function<torch::Tensor()> forward, torch::Tensor grad_h,
             double values_per_element)
      : forward_(std::move(forward)),
        grad_h_(std::move(grad_h)),
        bytes_(values_per_element * static_cast<double>(grad_h_.numel()) *
               static_cast<double>(grad_h_.element_size())) {}
  void run() override {
    forward_().backward(grad_h_);
    synchronize(grad_h_.device());
  }
  double kernelBytes() const override { return bytes_; }

 private:
  std::function<torch::Tensor()> forward_;
  torch::Tensor grad_h_;
  double bytes_;
};

std::unique_ptr<SpeedStep> sruKernelStep(int64_t L, int64_t d, int64_t B,
                                         const torch::TensorOptions& o) {
  const torch::Tensor u = torch::randn({L, B, 3 * d}, o).requires_grad_(true);
  const torch::Tensor x = torch::randn({L, B, d}, o).requires_grad_(true);
  const torch::Tensor wc = torch::randn({2 * d}, o), bias = torch::zeros({2 * d}, o);
  torch::Tensor grad_h = torch::randn({L, B, d}, o);
  kernels::SruRecurrenceOptions opt;
  opt.hidden_size = d;
  opt.skip = kernels::SruSkip::ScaledInput;
  opt.alpha = std::sqrt(3.0);
  // Forward reads U (3), x and writes h, c: 6 values per (t, b, unit). Backward reads U (3),
  // x, c, dh and writes dU (3), dx: 10 values. Parameters and per-column sums are negligible.
  return std::make_unique<KernelStep>(
      [=] { return kernels::sruRecurrence(u, x, wc, bias, {}, {}, {}, opt)[0]; },
      std::move(grad_h), 16.0);
}

// The op h_t = a_t ⊙ h_{t-1} + b_t that the linear recurrences share, alone.
std::unique_ptr<SpeedStep> linearRecurrenceKernelStep(int64_t L, int64_t d, int64_t B,
                                                      const torch::TensorOptions& o) {
  const torch::Tensor a = torch::rand({L, B, d}, o).requires_grad_(true);
  const torch::Tensor b = torch::randn({L, B, d}, o).requires_grad_(true);
  torch::Tensor grad_h = torch::randn({L, B, d}, o);
  kernels::LinearRecurrenceOptions opt;
  opt.hidden_size = d;
  // Forward reads a, b and writes h: 3 values per (t, b, unit). Backward reads dh, a, h and
  // writes da, db: 5. The chunked scan reads some of them twice; this is the floor.
  return std::make_unique<KernelStep>(
      [=] { return kernels::linearRecurrence(a, b, {}, {}, opt)[0]; }, std::move(grad_h), 8.0);
}

// A step run at a precision: autocast, or TF32 allowed, for the step's forward and backward.
class PrecisionStep : public SpeedStep {
 public:
  PrecisionStep(std::unique_ptr<SpeedStep> step, SpeedPrecision precision, torch::Device device)
      : step_(std::move(step)), precision_(precision), device_(device) {}
  void run() override {
    if (precision_ == SpeedPrecision::Tf32) {
      CudaTf32Scope tf32(true);
      step_->run();
      return;
    }
    AutocastScope autocast(
        precision_ == SpeedPrecision::Bf16 ? Precision::Bf16 : Precision::Fp16, device_);
    step_->run();
  }
  double kernelBytes() const override { return step_->kernelBytes(); }

 private:
  std::unique_ptr<SpeedStep> step_;
  SpeedPrecision precision_;
  torch::Device device_;
};

// The rows that time a piece of a layer rather than a registry encoder.
bool isYardstick(const std::string& name) {
  return name == "sru_matmul" || name == "sru_kernel" || name == "linear_recurrence_kernel";
}

}  // namespace

SpeedPrecision parseSpeedPrecision(const std::string& text, const std::string& device) {
  const bool cpu = device == "cpu";
  if (text == "fp32") return SpeedPrecision::Fp32;
  if (text == "bf16") return SpeedPrecision::Bf16;
  if ((text == "tf32" || text == "fp16") && cpu)
    throw std::invalid_argument("--precision " + text + ": CUDA only (" +
                                (text == "tf32" ? "TF32 is a tensor-core format"
                                                : "LibTorch's CPU autocast has no float16") +
                                "); on the CPU use fp32 or bf16");
  if (text == "tf32") return SpeedPrecision::Tf32;
  if (text == "fp16") return SpeedPrecision::Fp16;
  throw std::invalid_argument("--precision: expected fp32, tf32, bf16 or fp16, got '" + text + "'");
}

std::vector<SpeedModelSpec> defaultSpeedModels() {
  return {
      {"SRU", "sru", R"({"layers": 1})"},
      {"SRU matmuls alone", "sru_matmul", "{}"},
      {"SRU kernel alone", "sru_kernel", "{}"},
      {"LSTM", "lstm", R"({"layers": 1})"},
      {"QRNN (window 1)", "qrnn", R"({"layers": 1, "window": 1})"},
      {"QRNN (window 2)", "qrnn", R"({"layers": 1, "window": 2})"},
      {"RRNN(F)", "rrnn_f", R"({"layers": 1})"},
      {"RRNN(B)m+", "rrnn_bmp", R"({"layers": 1})"},
      {"gated conv k=2", "gated_conv", R"({"layers": 1, "width": 2})"},
      {"gated conv k=3", "gated_conv", R"({"layers": 1, "width": 3})"},
      {"Self-IRU L=0", "self_iru", R"({"layers": 1, "depth": 0})"},
      {"Self-IRU L=1", "self_iru", R"({"layers": 1, "depth": 1})"},
      {"Self-IRU L=2", "self_iru", R"({"layers": 1, "depth": 2})"},
      {"linear recurrence kernel alone", "linear_recurrence_kernel", "{}"},
      {"minGRU", "min_gru", R"({"layers": 1})"},
      {"minLSTM", "min_lstm", R"({"layers": 1})"},
      {"SRU v1 (linear)", "sru_linear", R"({"layers": 1})"},
      {"RG-LRU", "rg_lru", R"({"layers": 1})"},
      {"HGRN", "hgrn", R"({"layers": 1})"},
      // By device: the fused step-by-step kernel on the CPU, chunks of 16 on a GPU; beside it
      // chunks of 16 and the paper's 64 (sized for GPU tensor cores) on any device.
      {"GLA", "gla", R"({"layers": 1})"},
      {"GLA chunks of 16", "gla", R"({"layers": 1, "chunk": 16})"},
      {"GLA chunks of 64", "gla", R"({"layers": 1, "chunk": 64})"},
  };
}

bool speedModelAvailable(const SpeedModelSpec& spec) {
  if (isYardstick(spec.encoder)) return true;
  for (const auto& n : models::encoderNames())
    if (n == spec.encoder) return true;
  return false;
}

std::unique_ptr<SpeedStep> makeSpeedStep(const SpeedModelSpec& spec, int64_t length,
                                         int64_t hidden, int64_t batch,
                                         const std::string& device, uint64_t seed,
                                         SpeedPrecision precision) {
  torch::manual_seed(seed);
  const torch::Device dev(device);
  const auto o = torch::TensorOptions().dtype(torch::kFloat).device(dev);
  const bool reduced = precision == SpeedPrecision::Bf16 || precision == SpeedPrecision::Fp16;
  if (isYardstick(spec.encoder)) {
    const auto yardstick = reduced ? o.dtype(precision == SpeedPrecision::Bf16 ? torch::kBFloat16
                                                                               : torch::kHalf)
                                   : o;
    std::unique_ptr<SpeedStep> step;
    if (spec.encoder == "sru_matmul")
      step = std::make_unique<MatmulFloorStep>(length, hidden, batch, yardstick);
    else if (spec.encoder == "sru_kernel")
      step = sruKernelStep(length, hidden, batch, yardstick);
    else
      step = linearRecurrenceKernelStep(length, hidden, batch, yardstick);
    if (precision == SpeedPrecision::Fp32) return step;
    return std::make_unique<PrecisionStep>(std::move(step), precision, dev);
  }
  nlohmann::json config = nlohmann::json::parse(spec.config_json);
  config["hidden"] = hidden;
  auto encoder = models::makeEncoder(spec.encoder, config, hidden);
  encoder->to(dev);
  encoder->train();
  torch::Tensor x = torch::randn({length, batch, hidden}, o).requires_grad_(true);
  auto step = std::make_unique<EncoderStep>(std::move(encoder), std::move(x), dev);
  if (precision == SpeedPrecision::Fp32) return step;
  return std::make_unique<PrecisionStep>(std::move(step), precision, dev);
}

}  // namespace recurlab::experiments
