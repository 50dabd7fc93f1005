#include "kernels/ngram_recurrence.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "kernels/rational_recurrence.h"
#include "tests/support/naive_recurrences.h"
#include "tests/support/recurrence_check.h"

namespace recurlab::kernels {
namespace {

using testing::RecurrenceOp;

constexpr int64_t L = 5, B = 3, D = 67;  // two column blocks (64 + 3)

std::vector<torch::Tensor> inputsFor(const NgramRecurrenceOptions& opt, bool c0, bool pad,
                                     torch::Dtype dtype) {
  torch::manual_seed(3);
  auto o = torch::TensorOptions().dtype(dtype);
  torch::Tensor mask;
  if (pad) {
    mask = torch::zeros({L, B}, torch::kBool);
    mask.slice(0, 2, L).select(1, 0).fill_(true);
    mask.select(1, 2)[0] = true;
  }
  return {torch::randn({L, B, D * opt.numMatrices()}, o).set_requires_grad(true),
          c0 ? torch::randn({B, opt.n * D}, o).set_requires_grad(true) : torch::Tensor(), mask};
}

RecurrenceOp fusedOp(const NgramRecurrenceOptions& opt) {
  return [opt](const std::vector<torch::Tensor>& in) {
    return ngramRecurrence(in[0], in[1], in[2], opt);
  };
}

RecurrenceOp referenceOp(const NgramRecurrenceOptions& opt) {
  return [opt](const std::vector<torch::Tensor>& in) {
    return ngramRecurrenceReference(in[0], in[1], in[2], opt);
  };
}

TEST(NgramRecurrence, MatchesReferenceInDoubleOverAllOptions) {
  for (int64_t n = 1; n <= 4; ++n)
    for (bool gate : {false, true})
      for (bool c0 : {false, true})
        for (bool pad : {false, true}) {
          SCOPED_TRACE(::testing::Message()
                       << "n " << n << " gate " << gate << " c0 " << c0 << " pad " << pad);
          const NgramRecurrenceOptions opt{D, n, gate};
          testing::expectSameForwardBackward(fusedOp(opt), referenceOp(opt),
                                             inputsFor(opt, c0, pad, torch::kDouble), 1e-12);
        }
}

TEST(NgramRecurrence, Float32MatchesReference) {
  const NgramRecurrenceOptions opt{D, 3, true};
  testing::expectSameForwardBackward(fusedOp(opt), referenceOp(opt),
                                     inputsFor(opt, true, true, torch::kFloat), 1e-5);
}

TEST(NgramRecurrence, GradientsMatchFiniteDifferences) {
  for (int64_t n = 1; n <= 4; ++n) {
    const NgramRecurrenceOptions opt{D, n, n % 2 == 0};
    testing::expectGradientsMatchFiniteDifferences(
        fusedOp(opt), inputsFor(opt, true, true, torch::kDouble), 6, 1e-6, 1e-6);
  }
}

TEST(NgramRecurrence, UnigramIsRrnnB) {
  // n = 1 has the same U layout as RRNN(B) ([z, f, (o)]) and the same recurrence.
  for (bool gate : {false, true}) {
    const NgramRecurrenceOptions opt{D, 1, gate};
    auto in = inputsFor(opt, true, true, torch::kDouble);
    const auto a = ngramRecurrenceForward(in[0].detach(), in[1].detach(), in[2], opt);
    const auto b = rationalRecurrenceForward(in[0].detach(), {}, in[1].detach(), in[2],
                                             {D, RationalPattern::B, Semiring::PlusTimes, gate});
    EXPECT_LE((a.h - b.h).abs().max().item<double>(), 1e-14);
  }
}

TEST(NgramRecurrence, BadInputsGiveClearErrors) {
  auto u = torch::randn({L, B, 3 * D});
  try {
    ngramRecurrenceForward(u, {}, {}, {D, 5, false});
    FAIL() << "expected an error";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("n must be in [1, 4]"), std::string::npos) << e.what();
  }
  try {
    ngramRecurrenceForward(u, {}, {}, {D, 3, false});
    FAIL() << "expected an error";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("[z1..z3, f] per unit"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ngramRecurrenceForward(u, torch::zeros({B, D}), {}, {D, 2, false}), c10::Error);
}

}  // namespace
}  // namespace recurlab::kernels
