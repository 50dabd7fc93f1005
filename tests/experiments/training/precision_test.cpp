// --precision: the names, fp16 refused on the CPU in one line, and the autocast scope (matmuls
// in bfloat16 inside, everything as before after it).
#include "experiments/training/precision.h"

#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>

#include "common/runtime/torch_build.h"

namespace recurlab::experiments {
namespace {

TEST(Precision, NamesRoundTripAndBadOnesAreNamed) {
  for (const char* name : {"fp32", "bf16", "fp16"})
    EXPECT_EQ(precisionName(parsePrecision(name, "--precision")), name);
  try {
    parsePrecision("float16", "--precision");
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--precision: expected fp32, bf16 or fp16, got 'float16'");
  }
}

TEST(Precision, Fp16OnTheCpuIsRefusedInOneLineSayingWhatWorks) {
  EXPECT_NO_THROW(checkPrecisionOnDevice(Precision::Bf16, "cpu", "--precision"));
  EXPECT_NO_THROW(checkPrecisionOnDevice(Precision::Fp16, "cuda:0", "--precision"));
  try {
    checkPrecisionOnDevice(Precision::Fp16, "cpu", "--precision");
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--precision fp16"), std::string::npos) << what;
    EXPECT_NE(what.find("--precision bf16 or fp32"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(AutocastScope, Bf16RunsMatmulsInBfloat16AndRestoresAfterwards) {
  const auto a = torch::rand({4, 3}), b = torch::rand({3, 2});
  {
    AutocastScope scope(Precision::Bf16, torch::kCPU);
    EXPECT_TRUE(recurlab::autocastEnabled(c10::DeviceType::CPU));
    const auto c = torch::matmul(a, b);
    EXPECT_EQ(c.scalar_type(), torch::kBFloat16);
    EXPECT_TRUE(torch::allclose(c.to(torch::kFloat), torch::matmul(a, b).to(torch::kFloat),
                                /*rtol=*/2e-2, /*atol=*/2e-2));
  }
  EXPECT_FALSE(recurlab::autocastEnabled(c10::DeviceType::CPU));
  EXPECT_EQ(torch::matmul(a, b).scalar_type(), torch::kFloat);
  {
    AutocastScope scope(Precision::Fp32, torch::kCPU);
    EXPECT_FALSE(recurlab::autocastEnabled(c10::DeviceType::CPU));
    EXPECT_EQ(torch::matmul(a, b).scalar_type(), torch::kFloat);
  }
}

}  // namespace
}  // namespace recurlab::experiments
