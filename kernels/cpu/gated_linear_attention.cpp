// Gated linear attention step by step on the CPU (kernels/gated_linear_attention.h), forward and
// backward, one task per batch row and head: its d_k × d_v state (8 KB at the paper's 4 heads of
// a 256-wide layer) stays in cache while the task walks time, the inner loops run over d_v
// (contiguous). Per step t, with a = e^{log α_t} and S_i the state's row i:
//
//   forward   S_i <- a_i S_i + k_i v,   o = Σ_i q_i S_i
//   backward  dS_i += q_i do,  dq_i = do · S_i,  dk_i = dS_i · v,  dv += k_i dS_i,
//             d log α_i = a_i (dS_i · S_i^prev),  dS_i <- a_i dS_i      (S, dS after step t)
//
// The backward needs every state in reverse order: the forward keeps the state entering every
// kGlaCheckpointSteps-th step, and the backward recomputes the steps of one such segment with
// the forward's own update function, so the recomputed states are the forward's bit for bit.
// The arithmetic of a row and head does not depend on the thread count.
#include "kernels/gated_linear_attention.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/cpu/intra_op_parallel.h"
#include "kernels/cpu/vector_math.h"

namespace recurlab::kernels::detail {
namespace {

using torch::Tensor;

struct Geometry {
  int64_t L, rows, dk, dv;  // rows: B · H, each walked alone

  int64_t keyRow(int64_t t, int64_t r) const { return (t * rows + r) * dk; }
  int64_t valueRow(int64_t t, int64_t r) const { return (t * rows + r) * dv; }
  int64_t stateSize() const { return dk * dv; }
  int64_t segments() const { return (L + kGlaCheckpointSteps - 1) / kGlaCheckpointSteps; }
};

// One step's update of a state in place: S_i <- e^{g_i} S_i + k_i v. The forward and the
// backward's recomputation both call it, so both round alike.
template <typename T>
RECURLAB_SIMD_CLONES void advanceState(T* __restrict s, const T* __restrict g,
                                       const T* __restrict k, const T* __restrict v, int64_t dk,
                                       int64_t dv) {
  for (int64_t i = 0; i < dk; ++i) {
    const T a = std::exp(g[i]), ki = k[i];
    T* __restrict row = s + i * dv;
#pragma omp simd
    for (int64_t j = 0; j < dv; ++j) row[j] = a * row[j] + ki * v[j];
  }
}

template <typename T>
RECURLAB_SIMD_CLONES void forwardRow(const Geometry& geo, int64_t r, const T* q, const T* k,
                                     const T* v, const T* g, T* __restrict o, T* __restrict state,
                                     T* __restrict checkpoints) {
  const int64_t dk = geo.dk, dv = geo.dv, size = geo.stateSize();
  for (int64_t t = 0; t < geo.L; ++t) {
    if (t % kGlaCheckpointSteps == 0)
      std::memcpy(checkpoints + ((t / kGlaCheckpointSteps) * geo.rows + r) * size, state,
                  sizeof(T) * size);
    advanceState(state, g + geo.keyRow(t, r), k + geo.keyRow(t, r), v + geo.valueRow(t, r), dk, dv);
    const T* __restrict qt = q + geo.keyRow(t, r);
    T* __restrict out = o + geo.valueRow(t, r);
    std::fill(out, out + dv, T(0));
    for (int64_t i = 0; i < dk; ++i) {
      const T qi = qt[i];
      const T* __restrict row = state + i * dv;
#pragma omp simd
      for (int64_t j = 0; j < dv; ++j) out[j] += qi * row[j];
    }
  }
}

// Where one step's gradients of q, k, v and log α go.
template <typename T>
struct StepGradients {
  T* dq;
  T* dk;
  T* dv;
  T* dg;
};

// One step backward. grad_state holds ∂loss/∂S_t from the steps after t and leaves as
// ∂loss/∂S_{t-1}; state is S_t, previous S_{t-1}.
template <typename T>
RECURLAB_SIMD_CLONES void backwardStep(int64_t dk, int64_t dv, const T* __restrict q,
                                       const T* __restrict k, const T* __restrict v,
                                       const T* __restrict g, const T* __restrict grad_o,
                                       const T* __restrict state, const T* __restrict previous,
                                       T* __restrict grad_state, const StepGradients<T>& out) {
  T* __restrict dv_out = out.dv;
  std::fill(dv_out, dv_out + dv, T(0));
  for (int64_t i = 0; i < dk; ++i) {
    const T a = std::exp(g[i]), qi = q[i], ki = k[i];
    T* __restrict ds = grad_state + i * dv;
    const T* __restrict s = state + i * dv;
    const T* __restrict sp = previous + i * dv;
    T dq = 0, dkey = 0, dgate = 0;
#pragma omp simd reduction(+ : dq, dkey, dgate)
    for (int64_t j = 0; j < dv; ++j) {
      const T d = ds[j] + qi * grad_o[j];
      dq += grad_o[j] * s[j];
      dkey += d * v[j];
      dgate += d * sp[j];
      dv_out[j] += ki * d;
      ds[j] = a * d;
    }
    out.dq[i] = dq;
    out.dk[i] = dkey;
    out.dg[i] = a * dgate;
  }
}

template <typename T>
struct BackwardPointers {
  const T* q;
  const T* k;
  const T* v;
  const T* g;
  const T* grad_o;
  const T* checkpoints;
  T* dq;
  T* dk;
  T* dv;
  T* dg;
  T* grad_state;  // in: ∂loss/∂(last state); out: ∂loss/∂s0
};

template <typename T>
void backwardRow(const Geometry& geo, int64_t r, const BackwardPointers<T>& p) {
  const int64_t size = geo.stateSize();
  // states[s]: the state entering the segment's step s; states[s + 1] after it.
  std::vector<T> states((kGlaCheckpointSteps + 1) * size);
  T* grad_state = p.grad_state + r * size;
  for (int64_t n = geo.segments() - 1; n >= 0; --n) {
    const int64_t t0 = n * kGlaCheckpointSteps;
    const int64_t steps = std::min(kGlaCheckpointSteps, geo.L - t0);
    std::memcpy(states.data(), p.checkpoints + (n * geo.rows + r) * size, sizeof(T) * size);
    for (int64_t s = 0; s < steps; ++s) {
      T* next = states.data() + (s + 1) * size;
      std::memcpy(next, next - size, sizeof(T) * size);
      const int64_t t = t0 + s;
      advanceState(next, p.g + geo.keyRow(t, r), p.k + geo.keyRow(t, r), p.v + geo.valueRow(t, r),
                   geo.dk, geo.dv);
    }
    for (int64_t s = steps - 1; s >= 0; --s) {
      const int64_t t = t0 + s, key = geo.keyRow(t, r), value = geo.valueRow(t, r);
      backwardStep(geo.dk, geo.dv, p.q + key, p.k + key, p.v + value, p.g + key, p.grad_o + value,
                   states.data() + (s + 1) * size, states.data() + s * size, grad_state,
                   StepGradients<T>{p.dq + key, p.dk + key, p.dv + value, p.dg + key});
    }
  }
}

Geometry geometryOf(const Tensor& q, const Tensor& v) {
  return {q.size(0), q.size(1) * q.size(2), q.size(3), v.size(3)};
}

}  // namespace

GlaCpuForwardResult gatedLinearAttentionCpuForward(const Tensor& q, const Tensor& k,
                                                   const Tensor& v, const Tensor& log_alpha,
                                                   const Tensor& s0) {
  const Geometry geo = geometryOf(q, v);
  GlaCpuForwardResult res;
  res.o = torch::empty({q.size(0), q.size(1), q.size(2), geo.dv}, q.options());
  res.last_state = s0.clone(at::MemoryFormat::Contiguous);
  res.checkpoints =
      torch::empty({geo.segments(), q.size(1), q.size(2), geo.dk, geo.dv}, q.options());
  AT_DISPATCH_FLOATING_TYPES(q.scalar_type(), "gatedLinearAttentionCpuForward", [&] {
    const scalar_t *qp = q.data_ptr<scalar_t>(), *kp = k.data_ptr<scalar_t>(),
                   *vp = v.data_ptr<scalar_t>(), *gp = log_alpha.data_ptr<scalar_t>();
    scalar_t *op = res.o.data_ptr<scalar_t>(), *sp = res.last_state.data_ptr<scalar_t>(),
             *cp = res.checkpoints.data_ptr<scalar_t>();
    at::parallel_for(0, geo.rows, 1, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r)
        forwardRow(geo, r, qp, kp, vp, gp, op, sp + r * geo.stateSize(), cp);
    });
  });
  return res;
}

std::vector<Tensor> gatedLinearAttentionCpuBackward(const Tensor& grad_o,
                                                    const Tensor& grad_last_state, const Tensor& q,
                                                    const Tensor& k, const Tensor& v,
                                                    const Tensor& log_alpha,
                                                    const Tensor& checkpoints) {
  const Geometry geo = geometryOf(q, v);
  Tensor dq = torch::empty_like(q), dk = torch::empty_like(k), dv = torch::empty_like(v),
         dg = torch::empty_like(log_alpha);
  Tensor grad_state = grad_last_state.clone(at::MemoryFormat::Contiguous);
  AT_DISPATCH_FLOATING_TYPES(q.scalar_type(), "gatedLinearAttentionCpuBackward", [&] {
    const BackwardPointers<scalar_t> p{
        q.data_ptr<scalar_t>(),         k.data_ptr<scalar_t>(),
        v.data_ptr<scalar_t>(),         log_alpha.data_ptr<scalar_t>(),
        grad_o.data_ptr<scalar_t>(),    checkpoints.data_ptr<scalar_t>(),
        dq.data_ptr<scalar_t>(),        dk.data_ptr<scalar_t>(),
        dv.data_ptr<scalar_t>(),        dg.data_ptr<scalar_t>(),
        grad_state.data_ptr<scalar_t>()};
    at::parallel_for(0, geo.rows, 1, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) backwardRow(geo, r, p);
    });
  });
  return {dq, dk, dv, dg, grad_state};
}

}  // namespace recurlab::kernels::detail
