// The fused label-smoothed cross-entropy: row loops (vectorized, rows split over LibTorch's
// threads) and the autograd::Function over them. Per-row results are summed in double in row
// order, so the loss is the same for any thread count.
#include "kernels/label_smoothed_cross_entropy.h"

#include <ATen/record_function.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/vector_math.h"
#include "kernels/cpu/intra_op_parallel.h"

namespace recurlab::kernels {
namespace {

using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Weights of the loss terms: (1 − ε − ε/(V−1)) on −log p(y), ε/(V−1) on each −log p(v).
struct Smoothing {
  double on_target, each;
  Smoothing(double epsilon, int64_t V)
      : on_target(1.0 - epsilon - epsilon / static_cast<double>(V - 1)),
        each(epsilon / static_cast<double>(V - 1)) {}
};

// Row i: log-sum-exp, −log p(y) and −Σ_v log p(v) = V·lse − Σ_v z_v.
template <typename T>
RECURLAB_SIMD_CLONES void forwardRows(const T* z, const int64_t* y, int64_t V, int64_t begin,
                                      int64_t end, T* lse, double* nll, double* smooth) {
  for (int64_t i = begin; i < end; ++i) {
    const T* row = z + i * V;
    T m = -std::numeric_limits<T>::infinity();
#pragma omp simd reduction(max : m)
    for (int64_t j = 0; j < V; ++j) m = row[j] > m ? row[j] : m;
    T sum_exp = 0, sum_z = 0;
#pragma omp simd reduction(+ : sum_exp, sum_z)
    for (int64_t j = 0; j < V; ++j) {
      sum_exp += vexp(row[j] - m);
      sum_z += row[j];
    }
    const T l = m + std::log(sum_exp);
    lse[i] = l;
    nll[i] = static_cast<double>(l) - static_cast<double>(row[y[i]]);
    smooth[i] = static_cast<double>(V) * static_cast<double>(l) - static_cast<double>(sum_z);
  }
}

// grad_z = g_i · (softmax(z) − ε/(V−1) − (1 − ε − ε/(V−1))·onehot(y)), g_i = 0 on pad rows.
template <typename T>
RECURLAB_SIMD_CLONES void backwardRows(const T* z, const int64_t* y, const bool* keep,
                                       const T* lse, int64_t V, T g, T each, T on_target,
                                       int64_t begin, int64_t end, T* grad) {
  for (int64_t i = begin; i < end; ++i) {
    const T* row = z + i * V;
    T* out = grad + i * V;
    if (!keep[i]) {
#pragma omp simd
      for (int64_t j = 0; j < V; ++j) out[j] = 0;
      continue;
    }
    const T l = lse[i];
#pragma omp simd
    for (int64_t j = 0; j < V; ++j) out[j] = g * (vexp(row[j] - l) - each);
    out[y[i]] -= g * on_target;
  }
}

class LabelSmoothedCrossEntropyFunction
    : public torch::autograd::Function<LabelSmoothedCrossEntropyFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const Tensor& logits, const Tensor& target,
                               const Tensor& keep, double epsilon) {
    RECORD_FUNCTION("recurlab::label_smoothed_cross_entropy", std::vector<c10::IValue>{});
    const int64_t N = logits.size(0), V = logits.size(1);
    const Smoothing s(epsilon, V);
    Tensor lse = torch::empty({N}, logits.options());
    std::vector<double> nll(static_cast<size_t>(N)), smooth(static_cast<size_t>(N));
    AT_DISPATCH_FLOATING_TYPES(logits.scalar_type(), "label_smoothed_cross_entropy", [&] {
      const scalar_t* z = logits.data_ptr<scalar_t>();
      const int64_t* y = target.data_ptr<int64_t>();
      scalar_t* l = lse.data_ptr<scalar_t>();
      at::parallel_for(0, N, 16, [&](int64_t begin, int64_t end) {
        forwardRows<scalar_t>(z, y, V, begin, end, l, nll.data(), smooth.data());
      });
    });
    const bool* k = keep.data_ptr<bool>();
    double loss = 0, nll_sum = 0;
    for (int64_t i = 0; i < N; ++i) {
      if (!k[i]) continue;
      loss += s.on_target * nll[i] + s.each * smooth[i];
      nll_sum += nll[i];
    }
    ctx->save_for_backward({logits, target, keep, lse});
    ctx->saved_data["epsilon"] = epsilon;
    Tensor nll_out = torch::full({}, nll_sum, logits.options());
    ctx->mark_non_differentiable({nll_out});
    return {torch::full({}, loss, logits.options()), nll_out};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    RECORD_FUNCTION("recurlab::label_smoothed_cross_entropy_backward", std::vector<c10::IValue>{});
    const auto saved = ctx->get_saved_variables();
    const Tensor &logits = saved[0], &target = saved[1], &keep = saved[2], &lse = saved[3];
    const int64_t N = logits.size(0), V = logits.size(1);
    const Smoothing s(ctx->saved_data["epsilon"].toDouble(), V);
    Tensor grad = torch::empty_like(logits);
    const double g = grad_outputs[0].defined() ? grad_outputs[0].item<double>() : 0.0;
    AT_DISPATCH_FLOATING_TYPES(logits.scalar_type(), "label_smoothed_cross_entropy_backward", [&] {
      const scalar_t* z = logits.data_ptr<scalar_t>();
      const int64_t* y = target.data_ptr<int64_t>();
      const bool* k = keep.data_ptr<bool>();
      const scalar_t* l = lse.data_ptr<scalar_t>();
      scalar_t* out = grad.data_ptr<scalar_t>();
      at::parallel_for(0, N, 16, [&](int64_t begin, int64_t end) {
        backwardRows<scalar_t>(z, y, k, l, V, static_cast<scalar_t>(g),
                               static_cast<scalar_t>(s.each), static_cast<scalar_t>(s.on_target),
                               begin, end, out);
      });
    });
    return {grad, Tensor(), Tensor(), Tensor()};
  }
};

}  // namespace

std::pair<Tensor, Tensor> labelSmoothedCrossEntropy(const Tensor& logits, const Tensor& target,
                                                    const Tensor& keep, double epsilon) {
  constexpr const char* kName = "label-smoothed cross-entropy";
  TORCH_CHECK(logits.dim() == 2 && logits.size(1) >= 2, kName,
              ": logits must be (N, V) with V >= 2, got ", logits.sizes());
  TORCH_CHECK(logits.device().is_cpu(), kName, ": the fused op runs on the CPU, got ",
              logits.device());
  TORCH_CHECK(logits.scalar_type() == torch::kFloat || logits.scalar_type() == torch::kDouble,
              kName, ": logits must be float or double, got ", logits.scalar_type());
  const int64_t N = logits.size(0), V = logits.size(1);
  TORCH_CHECK(target.dim() == 1 && target.size(0) == N && target.scalar_type() == torch::kLong,
              kName, ": target must be (", N, ") int64, got ", target.sizes(), " ",
              target.scalar_type());
  TORCH_CHECK(keep.dim() == 1 && keep.size(0) == N && keep.scalar_type() == torch::kBool, kName,
              ": keep must be (", N, ") bool, got ", keep.sizes(), " ", keep.scalar_type());
  TORCH_CHECK(epsilon >= 0 && epsilon < 1, kName, ": epsilon must be in [0, 1), got ", epsilon);
  const Tensor t = target.contiguous();
  const Tensor k = keep.contiguous();
  // Pad rows may hold any id (they carry no loss); a kept row's target must be a class.
  const Tensor kept_targets = t.masked_select(k);
  if (kept_targets.numel() > 0)
    TORCH_CHECK(kept_targets.min().item<int64_t>() >= 0 && kept_targets.max().item<int64_t>() < V,
                kName, ": targets must lie in [0, ", V, ")");
  const Tensor safe_t = t.masked_fill(k.logical_not(), 0);
  auto out = LabelSmoothedCrossEntropyFunction::apply(logits.contiguous(), safe_t, k, epsilon);
  return {out[0], out[1]};
}

}  // namespace recurlab::kernels
