// SruLayer moved to a GPU computes what it computes on the CPU (the layer reaches the CUDA
// kernel through kernels::sruRecurrence). Skipped without CUDA kernels or a GPU.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>

#include "models/layers/sru_layer.h"
#include "tests/kernels/cuda/cuda_test_support.h"

namespace recurlab::models {
namespace {

TEST(SruLayerCudaTest, ForwardAndGradientsMatchCpuInDouble) {
  RECURLAB_REQUIRE_CUDA();
  const torch::Device cuda(torch::kCUDA, 0);
  for (bool bidirectional : {false, true}) {
    for (int64_t input_size : {7, bidirectional ? 12 : 6}) {  // k = 4, then k = 3
      SruLayerOptions o;
      o.input_size = input_size;
      o.hidden_size = 6;
      o.bidirectional = bidirectional;
      o.rescale = true;
      o.highway_bias = -1.0;
      o.layer_norm = true;
      const std::string label = "bidir " + std::to_string(bidirectional) + " input " +
                                std::to_string(input_size);
      torch::manual_seed(7);
      SruLayer on_cpu(o);
      torch::manual_seed(7);
      SruLayer on_gpu(o);
      on_cpu->to(torch::kDouble);
      on_gpu->to(cuda, torch::kDouble);
      on_cpu->eval();
      on_gpu->eval();
      const int64_t L = 11, B = 3;
      const torch::Tensor input = torch::randn({L, B, input_size}, torch::kDouble);
      torch::Tensor mask_pad = torch::zeros({L, B}, torch::kBool);
      mask_pad.slice(0, 8, L).select(1, 2).fill_(true);
      auto [h_cpu, c_cpu] = on_cpu->forward(input, {}, mask_pad);
      auto [h_gpu, c_gpu] = on_gpu->forward(input.to(cuda), {}, mask_pad.to(cuda));
      (h_cpu.pow(2).sum() + c_cpu.sum()).backward();
      (h_gpu.pow(2).sum() + c_gpu.sum()).backward();
      EXPECT_TRUE(recurlab::testing::allClose(h_gpu, h_cpu, 1e-12, 1e-12, label + " h"));
      EXPECT_TRUE(recurlab::testing::allClose(c_gpu, c_cpu, 1e-12, 1e-12, label + " c"));
      const auto cpu_params = on_cpu->named_parameters();
      for (const auto& p : on_gpu->named_parameters()) {
        EXPECT_TRUE(recurlab::testing::allClose(p.value().grad(), cpu_params[p.key()].grad(),
                                                1e-12, 1e-12, label + " grad " + p.key()));
      }
    }
  }
}

}  // namespace
}  // namespace recurlab::models
