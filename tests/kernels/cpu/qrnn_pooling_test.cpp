#include "kernels/qrnn_pooling.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "tests/support/naive_recurrences.h"
#include "tests/support/recurrence_check.h"

namespace recurlab::kernels {
namespace {

using testing::RecurrenceOp;

// d = 67 spans two column blocks (64 + 3) of the kernel.
constexpr int64_t L = 5, B = 3, D = 67;

torch::Tensor padMask() {
  auto m = torch::zeros({L, B}, torch::kBool);
  m.slice(0, 3, L).select(1, 1).fill_(true);  // sequence 1 has length 3 (right padding)
  m.select(1, 2)[0] = true;                   // a leading pad step
  return m;
}

struct Case {
  bool gate, zoneout, c0, pad;
};

std::vector<torch::Tensor> inputsFor(const Case& c, torch::Dtype dtype) {
  torch::manual_seed(1);
  const QrnnPoolingOptions opt{D, c.gate};
  auto o = torch::TensorOptions().dtype(dtype);
  return {torch::randn({L, B, D * opt.numMatrices()}, o).set_requires_grad(true),
          c.c0 ? torch::randn({B, D}, o).set_requires_grad(true) : torch::Tensor(),
          c.zoneout ? torch::bernoulli(torch::full({L, B, D}, 0.7, o)) : torch::Tensor(),
          c.pad ? padMask() : torch::Tensor()};
}

RecurrenceOp fusedOp(bool gate) {
  return [gate](const std::vector<torch::Tensor>& in) {
    return qrnnPooling(in[0], in[1], in[2], in[3], {D, gate});
  };
}

RecurrenceOp referenceOp(bool gate) {
  return [gate](const std::vector<torch::Tensor>& in) {
    return qrnnPoolingReference(in[0], in[1], in[2], in[3], {D, gate});
  };
}

TEST(QrnnPooling, MatchesReferenceInDoubleOverAllOptions) {
  for (bool gate : {true, false})
    for (bool zoneout : {false, true})
      for (bool c0 : {false, true})
        for (bool pad : {false, true}) {
          SCOPED_TRACE(::testing::Message() << "gate " << gate << " zoneout " << zoneout
                                            << " c0 " << c0 << " pad " << pad);
          // Same operations in a different order: rounding differences only.
          testing::expectSameForwardBackward(fusedOp(gate), referenceOp(gate),
                                             inputsFor({gate, zoneout, c0, pad}, torch::kDouble),
                                             1e-12);
        }
}

TEST(QrnnPooling, Float32MatchesReference) {
  const Case c{true, true, true, true};
  testing::expectSameForwardBackward(fusedOp(true), referenceOp(true),
                                     inputsFor(c, torch::kFloat), 1e-5);
}

TEST(QrnnPooling, GradientsMatchFiniteDifferences) {
  for (bool gate : {true, false}) {
    const Case c{gate, true, true, true};
    // Central differences in double: truncation error ~eps², rounding ~1e-16/eps.
    testing::expectGradientsMatchFiniteDifferences(fusedOp(gate), inputsFor(c, torch::kDouble),
                                                   8, 1e-6, 1e-6);
  }
}

TEST(QrnnPooling, PadStepsCarryStateAndOutputZero) {
  auto in = inputsFor({true, false, true, true}, torch::kDouble);
  auto res = qrnnPoolingForward(in[0].detach(), in[1].detach(), {}, in[3], {D, true});
  EXPECT_TRUE(torch::all(res.h[4][1] == 0).item<bool>());
  EXPECT_TRUE(torch::equal(res.c[4][1], res.c[2][1]));
  EXPECT_TRUE(torch::equal(res.c[0][2], in[1][2].detach()));
  EXPECT_TRUE(torch::equal(res.last_c[1], res.c[2][1]));
}

TEST(QrnnPooling, ZeroZoneoutKeepsTheOldState) {
  auto in = inputsFor({false, false, true, false}, torch::kDouble);
  auto res = qrnnPoolingForward(in[0].detach(), in[1].detach(),
                                torch::zeros({L, B, D}, torch::kDouble), {}, {D, false});
  for (int64_t t = 0; t < L; ++t) EXPECT_TRUE(torch::equal(res.c[t], in[1].detach()));
}

TEST(QrnnPooling, BadShapesGiveClearErrors) {
  auto u = torch::randn({L, B, 3 * D});
  try {
    qrnnPoolingForward(u, {}, {}, {}, {D, false});
    FAIL() << "expected an error";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("201 columns, expected 134"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("f-pooling"), std::string::npos) << e.what();
  }
  try {
    qrnnPoolingForward(u, torch::zeros({B, D + 1}), {}, {}, {D, true});
    FAIL() << "expected an error";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("c0 has shape"), std::string::npos) << e.what();
  }
  EXPECT_THROW(qrnnPoolingForward(u, {}, {}, torch::zeros({L, B}), {D, true}), c10::Error);
  EXPECT_THROW(qrnnPoolingForward(u.to(torch::kInt), {}, {}, {}, {D, true}), c10::Error);
  EXPECT_THROW(qrnnPoolingForward(u, {}, torch::ones({L, B, D}, torch::kDouble), {}, {D, true}),
               c10::Error);
}

}  // namespace
}  // namespace recurlab::kernels
