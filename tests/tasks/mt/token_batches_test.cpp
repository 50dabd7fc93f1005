// Token-count batches: the max_tokens bound, multiples of 8, every sentence once, determinism,
// and the tensors' layout (bos/eos/pad, right padding).
#include "tasks/mt/token_batches.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <set>

using namespace recurlab::experiments;

namespace {
std::vector<EncodedPair> randomPairs(int n) {
  std::vector<EncodedPair> pairs;
  for (int i = 0; i < n; ++i) {
    const int s = 1 + (i * 7919) % 9, t = 1 + (i * 104729) % 7;  // many ties: the seed matters
    pairs.push_back({std::vector<int64_t>(s, 10 + i % 5), std::vector<int64_t>(t, 20 + i % 3)});
  }
  return pairs;
}
}  // namespace

TEST(TokenBatches, RespectTheTokenBoundAndCoverEverySentenceOnce) {
  const auto pairs = randomPairs(500);
  const int64_t max_tokens = 256;
  const auto batches = cutTokenBatches(pairs, max_tokens, 7);
  std::multiset<int64_t> seen;
  for (const auto& b : batches) {
    int64_t longest = 0;
    for (auto i : b) {
      longest = std::max<int64_t>(longest, std::max(pairs[i].source.size(), pairs[i].target.size()) + 1);
      seen.insert(i);
    }
    EXPECT_LE(static_cast<int64_t>(b.size()) * longest, max_tokens);
  }
  EXPECT_EQ(seen.size(), 500u);
  EXPECT_EQ(std::set<int64_t>(seen.begin(), seen.end()).size(), 500u);
  // Batches cut because they were full hold a multiple of 8 sentences once 8 fit.
  for (size_t k = 0; k + 1 < batches.size(); ++k)
    if (batches[k].size() >= 8) {
      EXPECT_EQ(batches[k].size() % 8, 0u) << "batch " << k;
    }
  EXPECT_EQ(batches, cutTokenBatches(pairs, max_tokens, 7));
  EXPECT_NE(batches, cutTokenBatches(pairs, max_tokens, 8));
}

TEST(TokenBatches, SortedBySourceLengthWithinTheCut) {
  const auto pairs = randomPairs(200);
  size_t previous = 0;
  for (const auto& b : cutTokenBatches(pairs, 400, 1))
    for (auto i : b) {
      EXPECT_GE(pairs[i].source.size(), previous);
      previous = pairs[i].source.size();
    }
}

TEST(TokenBatches, AnOverlongSentenceIsAnError) {
  std::vector<EncodedPair> pairs = {{std::vector<int64_t>(40, 5), {5}}};
  try {
    cutTokenBatches(pairs, 32, 1);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("41 tokens exceeds max_tokens = 32"), std::string::npos);
  }
}

TEST(TokenBatches, EpochOrderIsAPermutationFixedByEpoch) {
  const auto a = batchOrder(50, 3, 1), b = batchOrder(50, 3, 2);
  EXPECT_EQ(a, batchOrder(50, 3, 1));
  EXPECT_NE(a, b);
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 50; ++i) EXPECT_EQ(sorted[i], i);
}

TEST(TokenBatches, TensorLayout) {
  const std::vector<EncodedPair> pairs = {{{7, 8}, {9}}, {{7}, {10, 11, 12}}};
  SpecialIds ids;  // pad 0, unk 1, bos 2, eos 3
  const auto b = makeTranslationBatch(pairs, {0, 1}, ids);
  EXPECT_TRUE(torch::equal(b.source, torch::tensor({7, 7, 8, 3, 3, 0}, torch::kLong).view({3, 2})));
  EXPECT_TRUE(torch::equal(b.target_in,
                           torch::tensor({2, 2, 9, 10, 0, 11, 0, 12}, torch::kLong).view({4, 2})));
  EXPECT_TRUE(torch::equal(b.target_out,
                           torch::tensor({9, 10, 3, 11, 0, 12, 0, 3}, torch::kLong).view({4, 2})));
  EXPECT_TRUE(torch::equal(b.target_pad, b.target_out.eq(0)));
  EXPECT_TRUE(torch::equal(b.source_pad, b.source.eq(0)));
  EXPECT_EQ(b.target_tokens, 2 + 4);
}
