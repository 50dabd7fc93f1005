// The fused-vs-reference comparison itself: non-finite outputs pass only when they are the
// reference's own infinities (the max-plus semiring's -inf), never NaN or the other sign.
#include "tests/support/recurrence_check.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

namespace recurlab::testing {
namespace {

// An "op" returning x with the given values written over its first elements (no gradient
// flows to those).
RecurrenceOp withHead(std::vector<double> head) {
  return [head](const std::vector<torch::Tensor>& in) {
    auto out = in[0] * 1.0;
    auto fixed = torch::zeros_like(out).detach();
    auto mask = torch::zeros_like(out, torch::kBool);
    for (size_t i = 0; i < head.size(); ++i) {
      fixed.view({-1})[static_cast<int64_t>(i)] = head[i];
      mask.view({-1})[static_cast<int64_t>(i)] = true;
    }
    return std::vector<torch::Tensor>{torch::where(mask, fixed, out)};
  };
}

// The messages of the failures `check` reports (caught here, not failing this test).
std::string failuresOf(const std::function<void()>& check) {
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    check();
  }
  std::string text;
  for (int i = 0; i < results.size(); ++i) text += results.GetTestPartResult(i).message();
  return text;
}

std::vector<torch::Tensor> inputs() {
  return {torch::arange(6, torch::kFloat64).view({2, 3}).requires_grad_(true)};
}

TEST(RecurrenceCheck, EqualInfinitiesPass) {
  EXPECT_EQ(failuresOf([] {
              expectSameForwardBackward(withHead({-INFINITY}), withHead({-INFINITY}), inputs(),
                                        1e-12);
            }),
            "");
}

TEST(RecurrenceCheck, NanWhereTheReferenceHasMinusInfinityFails) {
  EXPECT_NE(failuresOf([&] {
              expectSameForwardBackward(withHead({NAN}), withHead({-INFINITY}), inputs(), 1e-12);
            }).find("NaN"),
            std::string::npos);
}

TEST(RecurrenceCheck, PlusInfinityWhereTheReferenceHasMinusInfinityFails) {
  EXPECT_NE(failuresOf([&] {
              expectSameForwardBackward(withHead({INFINITY}), withHead({-INFINITY}), inputs(),
                                        1e-12);
            }).find("infinities differ"),
            std::string::npos);
}

TEST(RecurrenceCheck, NanWhereTheReferenceIsFiniteFails) {
  EXPECT_NE(failuresOf([&] {
              expectSameForwardBackward(withHead({NAN}), withHead({}), inputs(), 1e-12);
            }).find("output 0"),
            std::string::npos);
}

TEST(RecurrenceCheck, NanGradientFails) {
  const RecurrenceOp nan_backward = [](const std::vector<torch::Tensor>& in) {
    return std::vector<torch::Tensor>{in[0] * 1.0 + (in[0] * 0.0).sqrt() * 0.0};
  };
  const RecurrenceOp identity = [](const std::vector<torch::Tensor>& in) {
    return std::vector<torch::Tensor>{in[0] * 1.0};
  };
  auto x = std::vector<torch::Tensor>{torch::zeros({2, 3}, torch::kFloat64).requires_grad_(true)};
  EXPECT_NE(failuresOf([&] {
              expectSameForwardBackward(nan_backward, identity, x, 1e-12);
            }).find("gradient of input 0"),
            std::string::npos);
}

}  // namespace
}  // namespace recurlab::testing
