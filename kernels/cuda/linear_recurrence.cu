// The elementwise linear recurrence h_t = a_t ⊙ h_{t-1} + b_t on CUDA: the twin of
// kernels/cpu/linear_recurrence.cpp, with the same walks (state_s = m_s ⊙ state_{s-1} + x_s;
// the backward walks the other way in time with m_s = a of the step it came from) and the same
// arithmetic per column, the state in the accumulator type (float for half/bfloat16).
//
// Sequential walk: one thread per column. Chunked scan (few columns, many steps): one thread
// per (chunk, column) summarizes its chunk from a zero state (product of multipliers, last
// state) into the workspace; one thread per column turns the summaries into each chunk's
// incoming state; one thread per (chunk, column) walks its chunk again from it. Consecutive
// threads are consecutive columns, so every step's reads and writes are coalesced.
#include "kernels/cuda/linear_recurrence_launch.h"

#include "kernels/cuda/device_math.cuh"

namespace recurlab::kernels::cuda {
namespace {

// Where one column lives: its offset in a (B, out) tensor, its batch row, and whether its
// forward walk descends in time (the second direction).
struct ColumnPlace {
  int64_t col, row;
  bool second_direction;
};

struct Sizes {
  int64_t L, B, d, out;

  __device__ __forceinline__ ColumnPlace place(int64_t col) const {
    const int64_t row = col / out;
    return {col, row, col - row * out >= d};
  }
  __device__ __forceinline__ int64_t offset(int64_t t, int64_t col) const {
    return t * B * out + col;
  }
};

template <typename T>
struct ForwardColumn {
  using A = AccOf<T>;
  const T* __restrict__ a;
  const T* __restrict__ b;
  const T* __restrict__ h0;
  const uint8_t* __restrict__ pad;
  T* __restrict__ h;
  T* __restrict__ last_h;
  Sizes n;
  ColumnPlace p;

  __device__ __forceinline__ int64_t timeOf(int64_t s) const {
    return p.second_direction ? n.L - 1 - s : s;
  }
  __device__ __forceinline__ bool isPad(int64_t t) const { return pad && pad[t * n.B + p.row]; }
  __device__ __forceinline__ A initial() const { return loadOr(h0, p.col, A(0)); }
  __device__ __forceinline__ A multiplier(int64_t s) const {
    const int64_t t = timeOf(s);
    return isPad(t) ? A(1) : toAcc(a[n.offset(t, p.col)]);
  }
  __device__ __forceinline__ A input(int64_t s) const {
    const int64_t t = timeOf(s);
    return isPad(t) ? A(0) : toAcc(b[n.offset(t, p.col)]);
  }
  __device__ __forceinline__ void emit(int64_t s, A state) const {
    storeAcc(h + n.offset(timeOf(s), p.col), state);
  }
  __device__ __forceinline__ void finish(A state) const { storeAcc(last_h + p.col, state); }
};

template <typename T>
struct BackwardColumn {
  using A = AccOf<T>;
  const T* __restrict__ a;
  const T* __restrict__ h0;
  const uint8_t* __restrict__ pad;
  const T* __restrict__ h;
  const T* __restrict__ grad_h;
  const T* __restrict__ grad_last_h;
  T* __restrict__ grad_a;
  T* __restrict__ grad_b;
  T* __restrict__ grad_h0;
  Sizes n;
  ColumnPlace p;

  __device__ __forceinline__ int64_t timeOf(int64_t s) const {
    return p.second_direction ? s : n.L - 1 - s;
  }
  __device__ __forceinline__ bool isPad(int64_t t) const { return pad && pad[t * n.B + p.row]; }
  __device__ __forceinline__ A initial() const { return loadOr(grad_last_h, p.col, A(0)); }
  // a_{t+1} in forward time: the coefficient of walk step s - 1 (1 before the first).
  __device__ __forceinline__ A multiplier(int64_t s) const {
    if (s == 0) return A(1);
    const int64_t t = timeOf(s - 1);
    return isPad(t) ? A(1) : toAcc(a[n.offset(t, p.col)]);
  }
  __device__ __forceinline__ A input(int64_t s) const {
    return loadOr(grad_h, n.offset(timeOf(s), p.col), A(0));
  }
  __device__ __forceinline__ void emit(int64_t s, A state) const {
    const int64_t t = timeOf(s), off = n.offset(t, p.col);
    if (isPad(t)) {
      storeAcc(grad_a + off, A(0));
      storeAcc(grad_b + off, A(0));
      return;
    }
    // h_{t-1} in forward time: the state of walk step s + 1, or h0.
    const A previous = s + 1 < n.L ? toAcc(h[n.offset(timeOf(s + 1), p.col)])
                                   : loadOr(h0, p.col, A(0));
    storeAcc(grad_b + off, state);
    storeAcc(grad_a + off, state * previous);
  }
  // ∂loss/∂h0 = a_1 ⊙ g_1: the multiplier of the step after the last one.
  __device__ __forceinline__ void finish(A state) const {
    storeAcc(grad_h0 + p.col, multiplier(n.L) * state);
  }
};

// Walks steps [s0, s1) of one column; Emit writes each step's outputs, Track multiplies the
// multipliers into prod.
template <bool Emit, bool Track, typename Column, typename A>
__device__ __forceinline__ void walkSteps(const Column& c, int64_t s0, int64_t s1, A& state,
                                          A& prod) {
  for (int64_t s = s0; s < s1; ++s) {
    const A m = c.multiplier(s);
    if (Track) prod *= m;
    state = m * state + c.input(s);
    if (Emit) c.emit(s, state);
  }
}

__device__ __forceinline__ int64_t threadIndex() {
  return blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
}

template <typename Column>
__global__ void walkSequentiallyKernel(Column c) {
  using A = typename Column::A;
  const int64_t col = threadIndex();
  if (col >= c.n.B * c.n.out) return;
  c.p = c.n.place(col);
  A state = c.initial(), unused = A(1);
  walkSteps<true, false>(c, 0, c.n.L, state, unused);
  c.finish(state);
}

// Workspace: products (chunks, cols), then states (chunks, cols).
template <typename Column>
__global__ void summarizeChunksKernel(Column c, int64_t chunk_length, int64_t chunks,
                                      typename Column::A* __restrict__ workspace) {
  using A = typename Column::A;
  const int64_t cols = c.n.B * c.n.out, item = threadIndex();
  if (item >= chunks * cols) return;
  const int64_t chunk = item / cols, col = item - chunk * cols;
  c.p = c.n.place(col);
  const int64_t s0 = chunk * chunk_length;
  const int64_t s1 = s0 + chunk_length < c.n.L ? s0 + chunk_length : c.n.L;
  A state = A(0), prod = A(1);
  walkSteps<false, true>(c, s0, s1, state, prod);
  workspace[item] = prod;
  workspace[chunks * cols + item] = state;
}

// Replaces each chunk's state by its incoming state and finishes the column.
template <typename Column>
__global__ void carryAcrossChunksKernel(Column c, int64_t chunks,
                                        typename Column::A* __restrict__ workspace) {
  using A = typename Column::A;
  const int64_t cols = c.n.B * c.n.out, col = threadIndex();
  if (col >= cols) return;
  c.p = c.n.place(col);
  A carry = c.initial();
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    const A product = workspace[chunk * cols + col];
    A* state = workspace + (chunks + chunk) * cols + col;
    const A last = *state;
    *state = carry;
    carry = product * carry + last;
  }
  c.finish(carry);
}

template <typename Column>
__global__ void walkChunksKernel(Column c, int64_t chunk_length, int64_t chunks,
                                 const typename Column::A* __restrict__ workspace) {
  using A = typename Column::A;
  const int64_t cols = c.n.B * c.n.out, item = threadIndex();
  if (item >= chunks * cols) return;
  const int64_t chunk = item / cols, col = item - chunk * cols;
  c.p = c.n.place(col);
  const int64_t s0 = chunk * chunk_length;
  const int64_t s1 = s0 + chunk_length < c.n.L ? s0 + chunk_length : c.n.L;
  A state = workspace[chunks * cols + item], unused = A(1);
  walkSteps<true, false>(c, s0, s1, state, unused);
}

template <typename Column>
void launchWalks(const Column& c, const LinearRecurrenceCudaGeometry& g, void* workspace,
                 Stream stream) {
  using A = typename Column::A;
  const int64_t cols = g.columns();
  if (g.chunk_length <= 0) {
    const int threads = threadsPerBlockFor(cols);
    RECURLAB_LAUNCH(blocksFor(cols, threads), threads, stream, walkSequentiallyKernel<Column>)(c);
    return;
  }
  if (workspace == nullptr && g.workspaceElements() > 0)
    throw std::invalid_argument("recurlab CUDA linear recurrence: the chunked scan needs a "
                                "workspace of workspaceElements() accumulators");
  const int64_t chunks = g.chunks(), items = chunks * cols;
  A* ws = static_cast<A*>(workspace);
  if (items > 0) {
    const int threads = threadsPerBlockFor(items);
    RECURLAB_LAUNCH(blocksFor(items, threads), threads, stream, summarizeChunksKernel<Column>)(
        c, g.chunk_length, chunks, ws);
  }
  const int col_threads = threadsPerBlockFor(cols);
  RECURLAB_LAUNCH(blocksFor(cols, col_threads), col_threads, stream,
                  carryAcrossChunksKernel<Column>)(c, chunks, ws);
  if (items > 0) {
    const int threads = threadsPerBlockFor(items);
    RECURLAB_LAUNCH(blocksFor(items, threads), threads, stream, walkChunksKernel<Column>)(
        c, g.chunk_length, chunks, ws);
  }
}

void checkGeometry(const LinearRecurrenceCudaGeometry& g) {
  if (g.length < 0 || g.batch < 0 || g.hidden_size <= 0 || g.chunk_length < 0)
    throw std::invalid_argument("recurlab CUDA linear recurrence: bad sizes (length " +
                                std::to_string(g.length) + ", batch " +
                                std::to_string(g.batch) + ", hidden " +
                                std::to_string(g.hidden_size) + ", chunk length " +
                                std::to_string(g.chunk_length) + ")");
}

Sizes sizesOf(const LinearRecurrenceCudaGeometry& g) {
  return {g.length, g.batch, g.hidden_size, g.outputSize()};
}

}  // namespace

void launchLinearRecurrenceForward(const LinearRecurrenceCudaForwardArgs& a, Stream stream) {
  const LinearRecurrenceCudaGeometry& g = a.geometry;
  checkGeometry(g);
  if (g.columns() == 0) return;
  withElementType(a.scalar, [&](auto tag) {
    using T = decltype(tag);
    const ForwardColumn<T> c{static_cast<const T*>(a.a), static_cast<const T*>(a.b),
                             static_cast<const T*>(a.h0), a.mask_pad,
                             static_cast<T*>(a.h), static_cast<T*>(a.last_h),
                             sizesOf(g), ColumnPlace{}};
    launchWalks(c, g, a.workspace, stream);
  });
  throwIfLaunchFailed("the linear recurrence forward kernels");
}

void launchLinearRecurrenceBackward(const LinearRecurrenceCudaBackwardArgs& a, Stream stream) {
  const LinearRecurrenceCudaGeometry& g = a.geometry;
  checkGeometry(g);
  if (g.columns() == 0) return;
  withElementType(a.scalar, [&](auto tag) {
    using T = decltype(tag);
    const BackwardColumn<T> c{static_cast<const T*>(a.a),
                              static_cast<const T*>(a.h0),
                              a.mask_pad,
                              static_cast<const T*>(a.h),
                              static_cast<const T*>(a.grad_h),
                              static_cast<const T*>(a.grad_last_h),
                              static_cast<T*>(a.grad_a),
                              static_cast<T*>(a.grad_b),
                              static_cast<T*>(a.grad_h0),
                              sizesOf(g),
                              ColumnPlace{}};
    launchWalks(c, g, a.workspace, stream);
  });
  throwIfLaunchFailed("the linear recurrence backward kernels");
}

}  // namespace recurlab::kernels::cuda
