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

// Where the steps of one column's walk lie, in either walk (kernels/cpu/linear_recurrence.cpp's
// RunSteps): walk step s is at time t_s, ascending in the forward walk of the first direction
// and in the backward walk of the second, descending in the other two. The kernels set p.
template <bool Backward>
struct ColumnSteps {
  Sizes n;
  ColumnPlace p;
  const uint8_t* __restrict__ pad;

  __device__ __forceinline__ int64_t timeOf(int64_t s) const {
    return p.second_direction != Backward ? n.L - 1 - s : s;
  }
  __device__ __forceinline__ bool isPad(int64_t t) const { return pad && pad[t * n.B + p.row]; }
  // a_t, or 1 at a pad step (the identity).
  template <typename T>
  __device__ __forceinline__ AccOf<T> coefficient(const T* __restrict__ a, int64_t t) const {
    return isPad(t) ? AccOf<T>(1) : toAcc(a[n.offset(t, p.col)]);
  }
};

// The forward walk: m_s = a(t_s), x_s = b(t_s) (0 at a pad step).
template <typename T>
struct ForwardColumn : ColumnSteps<false> {
  using A = AccOf<T>;
  const T* __restrict__ a;
  const T* __restrict__ b;
  const T* __restrict__ h0;
  T* __restrict__ h;
  T* __restrict__ last_h;

  __device__ __forceinline__ A initial() const { return loadOr(h0, p.col, A(0)); }
  __device__ __forceinline__ A multiplier(int64_t s) const { return coefficient(a, timeOf(s)); }
  __device__ __forceinline__ A input(int64_t s) const {
    const int64_t t = timeOf(s);
    return isPad(t) ? A(0) : toAcc(b[n.offset(t, p.col)]);
  }
  __device__ __forceinline__ void emit(int64_t s, A state) const {
    storeAcc(h + n.offset(timeOf(s), p.col), state);
  }
  __device__ __forceinline__ void finish(A state) const { storeAcc(last_h + p.col, state); }
};

// The backward walk, the forward's steps in the opposite order: m_s = a_{t+1} in forward time,
// the coefficient of walk step s - 1 (1 at s = 0), and x_s = ∂loss/∂h(t_s).
template <typename T>
struct BackwardColumn : ColumnSteps<true> {
  using A = AccOf<T>;
  const T* __restrict__ a;
  const T* __restrict__ h0;
  const T* __restrict__ h;
  const T* __restrict__ grad_h;
  const T* __restrict__ grad_last_h;
  T* __restrict__ grad_a;
  T* __restrict__ grad_b;
  T* __restrict__ grad_h0;

  __device__ __forceinline__ A initial() const { return loadOr(grad_last_h, p.col, A(0)); }
  __device__ __forceinline__ A multiplier(int64_t s) const {
    return s == 0 ? A(1) : coefficient(a, timeOf(s - 1));
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

// Checks the sizes, then runs the walks of the column that make_column(element type tag) makes
// for `scalar`'s element type; `what` names the kernels in a launch error.
template <typename MakeColumn>
void launchColumns(const LinearRecurrenceCudaGeometry& g, CudaScalar scalar, void* workspace,
                   Stream stream, const char* what, MakeColumn&& make_column) {
  checkLaunchSizes("linear recurrence", g.length, g.batch, g.hidden_size, g.chunk_length >= 0,
                   ", chunk length " + std::to_string(g.chunk_length));
  if (g.columns() == 0) return;
  withElementType(scalar, [&](auto tag) { launchWalks(make_column(tag), g, workspace, stream); });
  throwIfLaunchFailed(what);
}

Sizes sizesOf(const LinearRecurrenceCudaGeometry& g) {
  return {g.length, g.batch, g.hidden_size, g.outputSize()};
}

}  // namespace

void launchLinearRecurrenceForward(const LinearRecurrenceCudaForwardArgs& a, Stream stream) {
  const LinearRecurrenceCudaGeometry& g = a.geometry;
  launchColumns(g, a.scalar, a.workspace, stream, "the linear recurrence forward kernels",
                [&](auto tag) {
                  using T = decltype(tag);
                  return ForwardColumn<T>{{sizesOf(g), ColumnPlace{}, a.mask_pad},
                                          static_cast<const T*>(a.a),
                                          static_cast<const T*>(a.b),
                                          static_cast<const T*>(a.h0),
                                          static_cast<T*>(a.h),
                                          static_cast<T*>(a.last_h)};
                });
}

void launchLinearRecurrenceBackward(const LinearRecurrenceCudaBackwardArgs& a, Stream stream) {
  const LinearRecurrenceCudaGeometry& g = a.geometry;
  launchColumns(g, a.scalar, a.workspace, stream, "the linear recurrence backward kernels",
                [&](auto tag) {
                  using T = decltype(tag);
                  return BackwardColumn<T>{{sizesOf(g), ColumnPlace{}, a.mask_pad},
                                           static_cast<const T*>(a.a),
                                           static_cast<const T*>(a.h0),
                                           static_cast<const T*>(a.h),
                                           static_cast<const T*>(a.grad_h),
                                           static_cast<const T*>(a.grad_last_h),
                                           static_cast<T*>(a.grad_a),
                                           static_cast<T*>(a.grad_b),
                                           static_cast<T*>(a.grad_h0)};
                });
}

}  // namespace recurlab::kernels::cuda
