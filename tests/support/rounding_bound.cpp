#include "tests/support/rounding_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace recurlab::testing {
namespace {

// Half the smallest positive subnormal: the largest absolute error of a rounding that underflows.
double halfSmallestSubnormal(torch::Dtype dtype) {
  switch (dtype) {
    case torch::kDouble: return std::ldexp(1.0, -1075);
    case torch::kHalf: return std::ldexp(1.0, -25);
    case torch::kBFloat16: return std::ldexp(1.0, -134);
    default: return std::ldexp(1.0, -150);
  }
}

std::vector<int64_t> unravel(int64_t flat, c10::IntArrayRef sizes) {
  std::vector<int64_t> index(sizes.size());
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    index[d] = flat % sizes[d];
    flat /= sizes[d];
  }
  return index;
}

// The model's relative bound plus the double reference's own rounding over the same chain.
double withReferenceRounding(const RoundingModel& m) {
  return m.relativeBound() +
         gammaBound(m.roundings + m.stored_roundings, unitRoundoff(torch::kDouble));
}

std::string indexText(const std::vector<int64_t>& index) {
  std::ostringstream s;
  s << '[';
  for (size_t i = 0; i < index.size(); ++i) s << (i ? ", " : "") << index[i];
  s << ']';
  return s.str();
}

}  // namespace

double unitRoundoff(torch::Dtype dtype) {
  switch (dtype) {
    case torch::kDouble: return std::ldexp(1.0, -53);
    case torch::kHalf: return std::ldexp(1.0, -11);
    case torch::kBFloat16: return std::ldexp(1.0, -8);
    default: return std::ldexp(1.0, -24);
  }
}

double gammaBound(int64_t n, double u) {
  const double nu = static_cast<double>(n) * u;
  return nu < 1.0 ? nu / (1.0 - nu) : std::numeric_limits<double>::infinity();
}

double RoundingModel::relativeBound() const {
  const double a = gammaBound(roundings, unitRoundoff(arithmetic));
  const double s = stored_roundings > 0 ? gammaBound(stored_roundings, unitRoundoff(storage)) : 0;
  return (1.0 + a) * (1.0 + s) - 1.0;
}

double RoundingModel::underflowBound() const {
  return static_cast<double>(roundings) * halfSmallestSubnormal(arithmetic) +
         static_cast<double>(stored_roundings) * halfSmallestSubnormal(storage);
}

std::string RoundingModel::describe() const {
  std::ostringstream s;
  s << roundings << " roundings of u = " << unitRoundoff(arithmetic) << " ("
    << c10::toString(arithmetic) << ")";
  if (stored_roundings > 0)
    s << " and " << stored_roundings << " of u = " << unitRoundoff(storage) << " ("
      << c10::toString(storage) << ")";
  s << ": relative bound " << relativeBound();
  return s.str();
}

RoundingCheck checkRoundingBound(const torch::Tensor& got_in, const torch::Tensor& reference_in,
                                 const std::vector<ErrorSource>& sources,
                                 const std::string& what) {
  RoundingCheck res;
  if (got_in.defined() != reference_in.defined()) {
    res.ok = false;
    res.message = what + ": defined " + std::to_string(got_in.defined()) + " vs reference " +
                  std::to_string(reference_in.defined());
    return res;
  }
  if (!got_in.defined()) return res;
  const auto cpu_double = [](const torch::Tensor& t) {
    return t.detach().to(torch::kCPU, torch::kDouble);
  };
  const torch::Tensor got = cpu_double(got_in), reference = cpu_double(reference_in);
  if (got.sizes() != reference.sizes()) {
    std::ostringstream s;
    s << what << ": shape " << got.sizes() << " vs reference " << reference.sizes();
    res.ok = false;
    res.message = s.str();
    return res;
  }
  if (got.numel() == 0) return res;
  std::vector<torch::Tensor> magnitudes;
  torch::Tensor bound = torch::zeros_like(reference);
  for (const ErrorSource& src : sources) {
    magnitudes.push_back(cpu_double(src.magnitude).expand_as(reference).reshape({-1}));
    bound = bound + withReferenceRounding(src.model) * magnitudes.back().view_as(reference) +
            src.model.underflowBound();
  }
  // Equal values differ by 0 (infinities too); NaN anywhere in got never passes.
  const torch::Tensor diff =
      torch::where(got == reference, torch::zeros_like(got), (got - reference).abs());
  const torch::Tensor bad = diff.isnan().logical_or(diff > bound);
  // Worst element: the largest diff / bound (NaN first, then a nonzero diff over a zero bound).
  const torch::Tensor ratio = torch::where(
      diff.isnan(), torch::full_like(diff, std::numeric_limits<double>::infinity()),
      torch::where(bound > 0, diff / bound,
                   torch::where(diff > 0, torch::full_like(diff, 1e300), torch::zeros_like(diff))));
  res.outside = bad.sum().item<int64_t>();
  res.ok = res.outside == 0;
  res.worst = ratio.view({-1}).argmax().item<int64_t>();
  res.worst_index = unravel(res.worst, reference.sizes());
  res.got = got.view({-1})[res.worst].item<double>();
  res.reference = reference.view({-1})[res.worst].item<double>();
  res.bound = bound.view({-1})[res.worst].item<double>();
  res.worst_ratio = ratio.view({-1})[res.worst].item<double>();
  std::ostringstream s;
  s.precision(9);
  s << what << ": " << res.outside << " of " << got.numel()
    << " elements outside their rounding bound; worst element " << indexText(res.worst_index)
    << " is " << res.got << ", reference " << res.reference << ", |diff| "
    << std::abs(res.got - res.reference) << ", bound " << res.bound << " =";
  for (size_t i = 0; i < sources.size(); ++i)
    s << (i ? " +" : "") << " " << withReferenceRounding(sources[i].model) << " · magnitude "
      << magnitudes[i][res.worst].item<double>() << " (" << sources[i].model.describe() << ")";
  res.message = s.str();
  return res;
}

::testing::AssertionResult withinRoundingBound(const torch::Tensor& got,
                                               const torch::Tensor& reference,
                                               const std::vector<ErrorSource>& sources,
                                               const std::string& what) {
  const RoundingCheck check = checkRoundingBound(got, reference, sources, what);
  if (check.ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << check.message;
}

void expectEachWithinRoundingBound(const std::vector<torch::Tensor>& got,
                                   const std::vector<torch::Tensor>& exact,
                                   const std::vector<torch::Tensor>& magnitude,
                                   const RoundingModel& model,
                                   const std::vector<std::string>& names,
                                   const std::string& label, int copies) {
  for (size_t i = 0; i < exact.size(); ++i) {
    if (!exact[i].defined()) continue;
    EXPECT_TRUE(withinRoundingBound(got[i], exact[i],
                                    std::vector<ErrorSource>(copies, {model, magnitude[i]}),
                                    label + " " + names[i]));
  }
}

torch::Tensor largestMagnitude(const std::vector<torch::Tensor>& tensors) {
  double largest = 0.0;
  for (const torch::Tensor& t : tensors) {
    if (!t.defined() || t.numel() == 0) continue;
    const torch::Tensor r = t.detach().to(torch::kCPU, torch::kDouble);
    largest = std::max(
        largest, torch::where(r.isfinite(), r.abs(), torch::zeros_like(r)).max().item<double>());
  }
  return torch::tensor(largest, torch::kDouble);
}

}  // namespace recurlab::testing
