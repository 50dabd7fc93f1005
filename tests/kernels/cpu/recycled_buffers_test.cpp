// The per-thread pool behind the CPU kernels' large outputs: a buffer comes back only when no
// tensor uses its storage any more, small requests are plain allocations.
#include "kernels/cpu/recycled_buffers.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace recurlab::kernels::detail {
namespace {

const auto kFloat = torch::TensorOptions().dtype(torch::kFloat);
// Each test asks for sizes of its own (floats, multiples of the threshold), larger than any
// buffer an earlier test of the process left free in the pool, so that none can serve them.
constexpr int64_t kUnit = kMinRecycledBytes / 4;

TEST(RecycledBuffers, AFreedBufferIsReusedAndALiveOneIsNot) {
  constexpr int64_t kBig = 20 * kUnit;
  torch::Tensor a = recycledEmpty({kBig}, kFloat);
  ASSERT_EQ(a.sizes(), torch::IntArrayRef({kBig}));
  a.fill_(1.0f);
  const void* first = a.data_ptr();
  torch::Tensor b = recycledEmpty({kBig}, kFloat);
  EXPECT_NE(b.data_ptr(), first) << "a buffer still in use was handed out again";
  b.fill_(2.0f);
  EXPECT_EQ(a.min().item<float>(), 1.0f) << "writing the second buffer changed the first";
  a.reset();
  torch::Tensor c = recycledEmpty({4, kBig / 4}, kFloat);
  EXPECT_EQ(c.data_ptr(), first) << "the freed buffer was not reused";
  EXPECT_EQ(c.sizes(), torch::IntArrayRef({4, kBig / 4}));
  EXPECT_TRUE(c.is_contiguous());
}

TEST(RecycledBuffers, AViewOrAnAliasKeepsItsBufferInUse) {
  constexpr int64_t kBig = 30 * kUnit;
  torch::Tensor a = recycledEmpty({kBig}, kFloat);
  torch::Tensor view = a.narrow(0, 10, 5);
  const void* first = a.data_ptr();
  a.reset();
  torch::Tensor b = recycledEmpty({kBig}, kFloat);
  EXPECT_NE(b.data_ptr(), first) << "a buffer seen through a live view was handed out again";
  // detach() shares the storage but not the view's link to its base tensor: only the
  // storage's reference count sees it.
  torch::Tensor alias = b.detach();
  const void* second = b.data_ptr();
  b.reset();
  torch::Tensor c = recycledEmpty({kBig}, kFloat);
  EXPECT_NE(c.data_ptr(), second) << "a buffer seen through a detached alias was handed out again";
}

TEST(RecycledBuffers, ASmallerRequestFitsAFreedLargerBufferButNotAnotherDtype) {
  constexpr int64_t kBig = 40 * kUnit;
  torch::Tensor a = recycledEmpty({2 * kBig}, kFloat);
  const void* first = a.data_ptr();
  a.reset();
  torch::Tensor d = recycledEmpty({kBig / 2}, kFloat.dtype(torch::kDouble));
  EXPECT_NE(d.data_ptr(), first) << "a float buffer was handed out for doubles";
  torch::Tensor b = recycledEmpty({kBig}, kFloat);
  EXPECT_EQ(b.data_ptr(), first);
  EXPECT_EQ(b.numel(), kBig);
}

TEST(RecycledBuffers, SmallRequestsAreNotPooled) {
  const int64_t before = recycledBufferCount();
  torch::Tensor small = recycledEmpty({16, 16}, kFloat);
  EXPECT_EQ(small.sizes(), torch::IntArrayRef({16, 16}));
  EXPECT_EQ(recycledBufferCount(), before);
}

}  // namespace
}  // namespace recurlab::kernels::detail
