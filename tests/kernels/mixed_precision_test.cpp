// The fused ops under CPU autocast (--precision bf16): a bfloat16 U beside float32 weights is
// up-cast to float32 at the op's entry and the outputs cast back to bfloat16, so the result is
// the float32 op on the same values, rounded once; gradients reach every input in its own
// dtype, with the float32 op's values (U's rounded once). Without autocast a mixed call is
// still the checks' error.
#include "kernels/mixed_precision.h"

#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "common/runtime/torch_build.h"
#include "kernels/qrnn_pooling.h"
#include "kernels/sru_recurrence.h"

namespace recurlab::kernels {
namespace {

// CPU autocast in bfloat16 for the scope, as the Trainer's AutocastScope sets it.
struct CpuBf16Autocast {
  CpuBf16Autocast() {
    recurlab::setAutocastDtype(c10::DeviceType::CPU, at::kBFloat16);
    recurlab::setAutocastEnabled(c10::DeviceType::CPU, true);
  }
  ~CpuBf16Autocast() {
    recurlab::setAutocastEnabled(c10::DeviceType::CPU, false);
    at::autocast::clear_cache();
  }
};

TEST(MixedPrecision, SruUnderCpuAutocastIsTheFloatOpRoundedOnce) {
  torch::manual_seed(3);
  const int64_t L = 5, B = 2, d = 3;
  SruRecurrenceOptions opt{d, false, SruSkip::LearnedProjection, 1.0};
  const auto u = torch::randn({L, B, 4 * d}).to(torch::kBFloat16).requires_grad_();
  const auto weight_c = torch::randn({2 * d}).requires_grad_();
  const auto bias = torch::randn({2 * d}).requires_grad_();
  // The float op on the same values, with its own leaves: its gradients are the reference.
  const auto u_float = u.detach().to(torch::kFloat).requires_grad_();
  const auto weight_c_float = weight_c.detach().clone().requires_grad_();
  const auto bias_float = bias.detach().clone().requires_grad_();
  const auto reference =
      sruRecurrence(u_float, {}, weight_c_float, bias_float, {}, {}, {}, opt);
  std::vector<at::Tensor> out;
  {
    CpuBf16Autocast autocast;
    out = sruRecurrence(u, {}, weight_c, bias, {}, {}, {}, opt);
  }
  ASSERT_EQ(out.size(), reference.size());
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].scalar_type(), torch::kBFloat16) << i;
    EXPECT_TRUE(torch::equal(out[i], reference[i].to(torch::kBFloat16))) << i;
  }
  // The same output gradient (ones, exact in bfloat16) reaches the float op: its gradients come
  // back as the float op's, U's rounded once to bfloat16, the float weights' exactly.
  out[0].to(torch::kFloat).sum().backward();
  reference[0].sum().backward();
  ASSERT_TRUE(u.grad().defined());
  EXPECT_EQ(u.grad().scalar_type(), torch::kBFloat16);
  EXPECT_TRUE(torch::equal(u.grad(), u_float.grad().to(torch::kBFloat16)))
      << u.grad() << " vs " << u_float.grad();
  ASSERT_TRUE(weight_c.grad().defined());
  EXPECT_EQ(weight_c.grad().scalar_type(), torch::kFloat);
  EXPECT_TRUE(torch::equal(weight_c.grad(), weight_c_float.grad()))
      << weight_c.grad() << " vs " << weight_c_float.grad();
  ASSERT_TRUE(bias.grad().defined());
  EXPECT_TRUE(torch::equal(bias.grad(), bias_float.grad()))
      << bias.grad() << " vs " << bias_float.grad();
}

TEST(MixedPrecision, QrnnUnderCpuAutocastTakesABfloat16U) {
  torch::manual_seed(4);
  QrnnPoolingOptions opt{3, true};
  const auto u = torch::randn({4, 2, 9}).to(torch::kBFloat16);
  const auto c0 = torch::randn({2, 3});
  const auto reference = qrnnPooling(u.to(torch::kFloat), c0, {}, {}, opt);
  std::vector<at::Tensor> out;
  {
    CpuBf16Autocast autocast;
    out = qrnnPooling(u, c0, {}, {}, opt);
  }
  for (size_t i = 0; i < out.size(); ++i)
    EXPECT_TRUE(torch::equal(out[i], reference[i].to(torch::kBFloat16))) << i;
}

TEST(MixedPrecision, WithoutAutocastMixedDtypesStayAnError) {
  SruRecurrenceOptions opt{3, false, SruSkip::LearnedProjection, 1.0};
  const auto u = torch::randn({2, 1, 12}).to(torch::kBFloat16);
  EXPECT_THROW(sruRecurrence(u, {}, torch::randn({6}), torch::randn({6}), {}, {}, {}, opt),
               c10::Error);
  EXPECT_FALSE(detail::autocastComputeType(u, {torch::randn({6})}).has_value());
}

}  // namespace
}  // namespace recurlab::kernels
