#include "models/seq2seq/sinusoidal_positions.h"

#include <torch/torch.h>

#include <cmath>

namespace recurlab::models {

at::Tensor sinusoidalPositions(const at::Tensor& positions, int64_t d) {
  TORCH_CHECK(d >= 4, "sinusoidalPositions: the model width must be at least 4, got ", d);
  const int64_t half = d / 2;
  const double step = std::log(10000.0) / static_cast<double>(half - 1);
  torch::Tensor w = torch::exp(torch::arange(half, torch::TensorOptions().dtype(torch::kFloat)) *
                               static_cast<float>(-step))
                        .to(positions.device());
  torch::Tensor angle = positions.to(torch::kFloat).unsqueeze(-1) * w;
  torch::Tensor table = torch::cat({torch::sin(angle), torch::cos(angle)}, -1);
  if (d % 2 == 1) table = torch::constant_pad_nd(table, {0, 1});
  return table;
}

}  // namespace recurlab::models
