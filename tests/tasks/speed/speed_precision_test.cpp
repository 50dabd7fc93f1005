// recurlab_speed --precision: what each device can run is checked before anything is timed,
// naming the option; a bf16 step runs under autocast and leaves autocast as it found it; the
// SRU kernel's yardstick moves half the bytes in bf16.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "common/runtime/torch_build.h"
#include "tasks/speed/speed_models.h"

namespace recurlab::experiments {
namespace {

void expectRefused(const std::string& text, const std::string& device, const std::string& expected) {
  try {
    parseSpeedPrecision(text, device);
    FAIL() << text << " on " << device << " was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

TEST(SpeedPrecision, WhatTheDeviceCannotRunIsRefusedNamingTheOption) {
  EXPECT_EQ(parseSpeedPrecision("fp32", "cpu"), SpeedPrecision::Fp32);
  EXPECT_EQ(parseSpeedPrecision("bf16", "cpu"), SpeedPrecision::Bf16);
  EXPECT_EQ(parseSpeedPrecision("tf32", "cuda:0"), SpeedPrecision::Tf32);
  EXPECT_EQ(parseSpeedPrecision("fp16", "cuda"), SpeedPrecision::Fp16);
  expectRefused("tf32", "cpu", "--precision tf32: CUDA only");
  expectRefused("fp16", "cpu", "--precision fp16: CUDA only");
  expectRefused("fp64", "cpu", "--precision: expected fp32, tf32, bf16 or fp16, got 'fp64'");
}

TEST(SpeedPrecision, Bf16StepsLeaveAutocastAsTheyFoundItAndTheKernelMovesHalfTheBytes) {
  const SpeedModelSpec sru{"SRU", "sru", R"({"layers": 1})"};
  const SpeedModelSpec kernel{"SRU kernel alone", "sru_kernel", "{}"};
  ASSERT_FALSE(autocastEnabled(c10::DeviceType::CPU));
  for (const auto& spec : {sru, kernel}) {
    auto step = makeSpeedStep(spec, 6, 8, 3, "cpu", 1, SpeedPrecision::Bf16);
    step->run();
    EXPECT_FALSE(autocastEnabled(c10::DeviceType::CPU)) << spec.label;
  }
  const double fp32 = makeSpeedStep(kernel, 6, 8, 3, "cpu", 1)->kernelBytes();
  const double bf16 = makeSpeedStep(kernel, 6, 8, 3, "cpu", 1, SpeedPrecision::Bf16)->kernelBytes();
  EXPECT_EQ(fp32, 16.0 * 6 * 3 * 8 * 4);
  EXPECT_EQ(bf16, fp32 / 2);
}

}  // namespace
}  // namespace recurlab::experiments
