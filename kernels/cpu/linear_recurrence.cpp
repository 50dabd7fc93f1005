// The elementwise linear recurrence h_t = a_t ⊙ h_{t-1} + b_t on the CPU, forward and backward,
// as a sequential walk per run of columns or as a chunked scan over time
// (kernels/linear_recurrence.h).
//
// Both directions of the computation are one walk: state_s = m_s ⊙ state_{s-1} + x_s over walk
// steps s = 0..L-1, each step s at time t_s (ascending, or descending for the reverse
// direction). The forward walks with m_s = a(t_s) and x_s = b(t_s); the backward walks the
// other way in time with x_s = ∂loss/∂h(t_s) and m_s = a(t_{s-1}), the multiplier of the step
// it came from (1 at s = 0), so that g_t = ∂loss/∂h_t + a_{t+1} ⊙ g_{t+1}. A pad step is the
// identity (m = 1, x = 0 in the forward). The chunked scan splits the walk steps into chunks:
// pass 1 runs each chunk from a zero state (its last state E) and multiplies its multipliers
// (P); pass 2 runs, per column, carry = P_k ⊙ carry + E_k over the chunks, which gives each
// chunk's incoming state; pass 3 walks each chunk again from it, writing the outputs.
// Per column the arithmetic depends on the chunk length only, never on the thread count.
#include "kernels/linear_recurrence.h"

#include <torch/torch.h>

#include <algorithm>

#include "kernels/cpu/column_blocks.h"
#include "kernels/cpu/recycled_buffers.h"
#include "kernels/cpu/vector_math.h"

namespace recurlab::kernels {
namespace {

using detail::dataOrNull;
using detail::kBlock;
using torch::Tensor;

struct Geometry {
  int64_t L, B, d, dirs;

  int64_t width() const { return dirs * d; }
  int64_t stride() const { return B * width(); }  // from one time step to the next
  int64_t blocks() const { return (d + kBlock - 1) / kBlock; }
  int64_t runs() const { return B * dirs * blocks(); }
};

// One batch row, one direction, up to kBlock adjacent units: col0 is the offset of its first
// column in a (B, out) tensor, and of step t's in an (L, B, out) one after t·stride().
struct Run {
  int64_t b, dir, col0, n;
};

Run runAt(const Geometry& g, int64_t r) {
  const int64_t block = r % g.blocks(), dir = (r / g.blocks()) % g.dirs;
  const int64_t b = r / (g.blocks() * g.dirs);
  const int64_t j0 = block * kBlock;
  return {b, dir, b * g.width() + dir * g.d + j0, std::min(kBlock, g.d - j0)};
}

template <typename T>
struct ForwardPointers {
  const T* a;
  const T* b;
  const T* h0;
  const uint8_t* pad;
  T* h;
  T* last_h;
};

template <typename T>
struct BackwardPointers {
  const T* a;
  const T* h0;
  const T* h;
  const uint8_t* pad;
  const T* grad_h;
  const T* grad_last_h;
  T* grad_a;
  T* grad_b;
  T* grad_h0;
};

// Rows of ones and zeros standing in for a pad step's multiplier and input.
template <typename T>
struct Constants {
  T ones[kBlock], zeros[kBlock];
  Constants() {
    std::fill(ones, ones + kBlock, T(1));
    std::fill(zeros, zeros + kBlock, T(0));
  }
};

// Where the steps of one run's walk lie, in either walk: walk step s is at time t_s, ascending
// in the forward walk of the first direction and in the backward walk of the second,
// descending in the other two.
template <bool Backward>
struct RunSteps {
  const Geometry& g;
  const Run r;
  const uint8_t* pad_steps;

  int64_t timeOf(int64_t s) const { return (r.dir == 1) != Backward ? g.L - 1 - s : s; }
  int64_t rowOf(int64_t t) const { return t * g.stride() + r.col0; }
  bool pad(int64_t t) const { return pad_steps && pad_steps[t * g.B + r.b]; }
  // a_t, or 1 at a pad step (the identity).
  template <typename T>
  const T* coefficient(const T* a, const Constants<T>& k, int64_t t) const {
    return pad(t) ? k.ones : a + rowOf(t);
  }
};

// The forward walk: m_s = a(t_s), x_s = b(t_s) (0 at a pad step).
template <typename T>
struct ForwardWalk : RunSteps<false> {
  const Constants<T>& k;
  const ForwardPointers<T>& p;

  const T* initial() const { return p.h0 ? p.h0 + r.col0 : k.zeros; }
  const T* multiplier(int64_t s) const { return coefficient(p.a, k, timeOf(s)); }
  const T* input(int64_t s) const {
    const int64_t t = timeOf(s);
    return pad(t) ? k.zeros : p.b + rowOf(t);
  }
  void emit(int64_t s, const T* __restrict state) const {
    T* __restrict out = p.h + rowOf(timeOf(s));
    for (int64_t i = 0; i < r.n; ++i) out[i] = state[i];
  }
  void finish(const T* __restrict state) const {
    for (int64_t i = 0; i < r.n; ++i) p.last_h[r.col0 + i] = state[i];
  }
};

// The backward walk, the forward's steps in the opposite order: m_s = a_{t+1} in forward time,
// the coefficient of walk step s - 1 (1 at s = 0), and x_s = ∂loss/∂h(t_s).
template <typename T>
struct BackwardWalk : RunSteps<true> {
  const Constants<T>& k;
  const BackwardPointers<T>& p;

  const T* initial() const { return p.grad_last_h ? p.grad_last_h + r.col0 : k.zeros; }
  const T* multiplier(int64_t s) const {
    return s == 0 ? k.ones : coefficient(p.a, k, timeOf(s - 1));
  }
  const T* input(int64_t s) const {
    return p.grad_h ? p.grad_h + rowOf(timeOf(s)) : k.zeros;
  }
  // h_{t-1} in forward time: the state of walk step s + 1, or h0.
  const T* previousState(int64_t s) const {
    if (s + 1 < g.L) return p.h + rowOf(timeOf(s + 1));
    return p.h0 ? p.h0 + r.col0 : k.zeros;
  }
  void emit(int64_t s, const T* __restrict state) const {
    const int64_t t = timeOf(s), row = rowOf(t);
    T* __restrict ga = p.grad_a + row;
    T* __restrict gb = p.grad_b + row;
    if (pad(t)) {
      for (int64_t i = 0; i < r.n; ++i) ga[i] = gb[i] = T(0);
      return;
    }
    const T* __restrict hp = previousState(s);
#pragma omp simd
    for (int64_t i = 0; i < r.n; ++i) {
      gb[i] = state[i];
      ga[i] = state[i] * hp[i];
    }
  }
  // ∂loss/∂h0 = a_1 ⊙ g_1: the multiplier of the step after the last one.
  void finish(const T* __restrict state) const {
    const T* __restrict m = multiplier(g.L);
    for (int64_t i = 0; i < r.n; ++i) p.grad_h0[r.col0 + i] = m[i] * state[i];
  }
};

// Walks steps [s0, s1) of one run: state holds the state before s0 and after s1. Emit writes
// each step's outputs; Track multiplies the multipliers into prod.
template <typename T, bool Emit, bool Track, typename Walk>
RECURLAB_SIMD_CLONES void walkSteps(const Walk& w, int64_t s0, int64_t s1, T* __restrict state,
                                    T* __restrict prod) {
  const int64_t n = w.r.n;
  for (int64_t s = s0; s < s1; ++s) {
    const T* __restrict m = w.multiplier(s);
    const T* __restrict x = w.input(s);
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (Track) prod[i] *= m[i];
      state[i] = m[i] * state[i] + x[i];
    }
    if constexpr (Emit) w.emit(s, state);
  }
}

// One walk per run over every step.
template <typename T, typename MakeWalk>
void walkSequentially(const Geometry& g, const MakeWalk& make_walk) {
  at::parallel_for(0, g.runs(), 1, [&](int64_t begin, int64_t end) {
    const Constants<T> k;
    for (int64_t r = begin; r < end; ++r) {
      const auto w = make_walk(runAt(g, r), k);
      T state[kBlock];
      std::copy(w.initial(), w.initial() + w.r.n, state);
      walkSteps<T, true, false>(w, 0, g.L, state, nullptr);
      w.finish(state);
    }
  });
}

// The chunked scan (the file's comment). Workspace: P and E, (chunks, B, out) each.
template <typename T, typename MakeWalk>
void walkInChunks(const Geometry& g, int64_t chunk_length, const MakeWalk& make_walk) {
  const int64_t chunks = (g.L + chunk_length - 1) / chunk_length;
  const int64_t cols = g.B * g.width();
  const Tensor workspace = at::empty({2, chunks, cols}, at::TensorOptions().dtype<T>());
  T* products = workspace.data_ptr<T>();
  T* states = products + chunks * cols;  // E, then each chunk's incoming state
  const auto chunkSteps = [&](int64_t c) {
    return std::pair{c * chunk_length, std::min(g.L, (c + 1) * chunk_length)};
  };
  // Pass 1: each chunk from a zero state.
  at::parallel_for(0, g.runs() * chunks, 1, [&](int64_t begin, int64_t end) {
    const Constants<T> k;
    for (int64_t item = begin; item < end; ++item) {
      const int64_t c = item % chunks;
      const auto w = make_walk(runAt(g, item / chunks), k);
      const auto [s0, s1] = chunkSteps(c);
      T state[kBlock], prod[kBlock];
      std::fill(state, state + w.r.n, T(0));
      std::fill(prod, prod + w.r.n, T(1));
      walkSteps<T, false, true>(w, s0, s1, state, prod);
      std::copy(prod, prod + w.r.n, products + c * cols + w.r.col0);
      std::copy(state, state + w.r.n, states + c * cols + w.r.col0);
    }
  });
  // Pass 2: the carries, one column after the other per run, chunk by chunk.
  at::parallel_for(0, g.runs(), 1, [&](int64_t begin, int64_t end) {
    const Constants<T> k;
    for (int64_t r = begin; r < end; ++r) {
      const auto w = make_walk(runAt(g, r), k);
      T carry[kBlock];
      std::copy(w.initial(), w.initial() + w.r.n, carry);
      for (int64_t c = 0; c < chunks; ++c) {
        const T* __restrict pc = products + c * cols + w.r.col0;
        T* __restrict ec = states + c * cols + w.r.col0;
        for (int64_t i = 0; i < w.r.n; ++i) {
          const T last = ec[i];
          ec[i] = carry[i];
          carry[i] = pc[i] * carry[i] + last;
        }
      }
      w.finish(carry);
    }
  });
  // Pass 3: each chunk again from its incoming state, writing the outputs.
  at::parallel_for(0, g.runs() * chunks, 1, [&](int64_t begin, int64_t end) {
    const Constants<T> k;
    for (int64_t item = begin; item < end; ++item) {
      const int64_t c = item % chunks;
      const auto w = make_walk(runAt(g, item / chunks), k);
      const auto [s0, s1] = chunkSteps(c);
      T state[kBlock];
      std::copy(states + c * cols + w.r.col0, states + c * cols + w.r.col0 + w.r.n, state);
      walkSteps<T, true, false>(w, s0, s1, state, nullptr);
    }
  });
}

template <typename T, typename MakeWalk>
void walk(const Geometry& g, int64_t chunk_length, const MakeWalk& make_walk) {
  if (chunk_length > 0)
    walkInChunks<T>(g, chunk_length, make_walk);
  else
    walkSequentially<T>(g, make_walk);
}

Geometry geometryOf(const Tensor& a, const LinearRecurrenceOptions& opt) {
  return {a.size(0), a.size(1), opt.hidden_size, opt.directions()};
}

}  // namespace

LinearRecurrenceForwardResult detail::linearRecurrenceCpuForward(
    const detail::LinearRecurrenceTensors& in, const LinearRecurrenceOptions& opt) {
  const Geometry g = geometryOf(in.a, opt);
  LinearRecurrenceForwardResult res;
  res.h = detail::recycledEmpty(in.a.sizes(), in.a.options());  // every element is written
  res.last_h = at::empty({g.B, g.width()}, in.a.options());
  AT_DISPATCH_FLOATING_TYPES(in.a.scalar_type(), "linear_recurrence_forward", [&] {
    using T = scalar_t;
    const ForwardPointers<T> p{in.a.data_ptr<T>(),       in.b.data_ptr<T>(),
                              dataOrNull<T>(in.h0),     detail::padBytes(in.mask_pad),
                              res.h.data_ptr<T>(),      res.last_h.data_ptr<T>()};
    walk<T>(g, opt.chunk_length, [&](const Run r, const Constants<T>& k) {
      return ForwardWalk<T>{{g, r, p.pad}, k, p};
    });
  });
  return res;
}

LinearRecurrenceBackwardResult detail::linearRecurrenceCpuBackward(
    const detail::BackwardTensors& grads, const detail::LinearRecurrenceTensors& in,
    const LinearRecurrenceOptions& opt) {
  const Geometry g = geometryOf(in.a, opt);
  LinearRecurrenceBackwardResult res;
  res.grad_a = detail::recycledEmpty(in.a.sizes(), in.a.options());
  res.grad_b = detail::recycledEmpty(in.a.sizes(), in.a.options());
  res.grad_h0 = at::empty({g.B, g.width()}, in.a.options());
  AT_DISPATCH_FLOATING_TYPES(in.a.scalar_type(), "linear_recurrence_backward", [&] {
    using T = scalar_t;
    const BackwardPointers<T> p{in.a.data_ptr<T>(),
                               dataOrNull<T>(in.h0),
                               grads.c.data_ptr<T>(),
                               detail::padBytes(in.mask_pad),
                               dataOrNull<T>(grads.grad_h),
                               dataOrNull<T>(grads.grad_last_c),
                               res.grad_a.data_ptr<T>(),
                               res.grad_b.data_ptr<T>(),
                               res.grad_h0.data_ptr<T>()};
    walk<T>(g, opt.chunk_length, [&](const Run r, const Constants<T>& k) {
      return BackwardWalk<T>{{g, r, p.pad}, k, p};
    });
  });
  return res;
}

}  // namespace recurlab::kernels
