#include "models/layers/min_rnn_log_space.h"

#include <torch/torch.h>

namespace recurlab::models {

at::Tensor positiveCandidate(const at::Tensor& x) {
  return torch::where(x >= 0, x + 0.5, torch::sigmoid(x));
}

at::Tensor logPositiveCandidate(const at::Tensor& x) {
  // relu keeps log's argument >= 1/2 where the branch is not taken (no NaN in its gradient).
  return torch::where(x >= 0, torch::log(torch::relu(x) + 0.5),
                      -torch::nn::functional::softplus(-x));
}

}  // namespace recurlab::models
