// The per-thread pool behind the CPU kernels' large outputs: a buffer comes back only when no
// tensor uses its storage any more, small requests are plain allocations.
#include "kernels/cpu/recycled_buffers.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace recurlab::kernels::detail {
namespace {

const auto kFloat = torch::TensorOptions().dtype(torch::kFloat);
constexpr int64_t kBig = 3 * kMinRecycledBytes / 4;  // floats: 3x the threshold in bytes

TEST(RecycledBuffers, AFreedBufferIsReusedAndALiveOneIsNot) {
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

TEST(RecycledBuffers, AViewKeepsItsBufferInUse) {
  torch::Tensor a = recycledEmpty({kBig}, kFloat);
  torch::Tensor view = a.narrow(0, 10, 5);
  const void* first = a.data_ptr();
  a.reset();
  torch::Tensor b = recycledEmpty({kBig}, kFloat);
  EXPECT_NE(b.data_ptr(), first) << "a buffer seen through a live view was handed out again";
}

TEST(RecycledBuffers, ASmallerRequestFitsAFreedLargerBufferButNotAnotherDtype) {
  torch::Tensor a = recycledEmpty({2 * kBig}, kFloat);
  const void* first = a.data_ptr();
  a.reset();
  torch::Tensor d = recycledEmpty({kBig}, kFloat.dtype(torch::kDouble));
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
