#include "tasks/mt/token_batches.h"

#include <torch/torch.h>

#include <algorithm>
#include <stdexcept>

#include "experiments/search/seed_sequence.h"

namespace recurlab::experiments {
namespace {

int64_t exampleTokens(const EncodedPair& p) {
  return static_cast<int64_t>(std::max(p.source.size(), p.target.size())) + 1;  // + eos
}

}  // namespace

std::vector<std::vector<int64_t>> cutTokenBatches(const std::vector<EncodedPair>& pairs,
                                                  int64_t max_tokens, uint64_t seed) {
  const auto permutation = seededPermutation(pairs.size(), deriveSeed(seed, "token-batches"));
  std::vector<int64_t> order(permutation.begin(), permutation.end());
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return pairs[a].target.size() < pairs[b].target.size();
  });
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return pairs[a].source.size() < pairs[b].source.size();
  });
  constexpr size_t kMultiple = 8;
  std::vector<std::vector<int64_t>> batches;
  std::vector<int64_t> batch, lengths;
  int64_t longest = 0;
  for (int64_t index : order) {
    const int64_t tokens = exampleTokens(pairs[index]);
    if (tokens > max_tokens)
      throw std::invalid_argument("a sentence pair of " + std::to_string(tokens) +
                                  " tokens exceeds max_tokens = " + std::to_string(max_tokens) +
                                  " (raise train.max_tokens or lower data.max_length)");
    longest = std::max(longest, tokens);
    if (!batch.empty() && static_cast<int64_t>(batch.size() + 1) * longest > max_tokens) {
      // Full: emit a multiple of 8 sentences when there are 8 or more, carry the rest over.
      const size_t keep = batch.size() >= kMultiple ? kMultiple * (batch.size() / kMultiple)
                                                    : batch.size();
      batches.emplace_back(batch.begin(), batch.begin() + static_cast<int64_t>(keep));
      batch.erase(batch.begin(), batch.begin() + static_cast<int64_t>(keep));
      lengths.erase(lengths.begin(), lengths.begin() + static_cast<int64_t>(keep));
      longest = tokens;
      for (auto l : lengths) longest = std::max(longest, l);
    }
    batch.push_back(index);
    lengths.push_back(tokens);
  }
  if (!batch.empty()) batches.push_back(batch);
  return batches;
}

TranslationBatch makeTranslationBatch(const std::vector<EncodedPair>& pairs,
                                      const std::vector<int64_t>& indices, const SpecialIds& ids) {
  const auto b = static_cast<int64_t>(indices.size());
  size_t s_max = 0, t_max = 0;
  for (auto i : indices) {
    s_max = std::max(s_max, pairs[i].source.size());
    t_max = std::max(t_max, pairs[i].target.size());
  }
  const auto S = static_cast<int64_t>(s_max) + 1, T = static_cast<int64_t>(t_max) + 1;
  auto source = torch::full({S, b}, ids.pad, torch::kLong);
  auto target_in = torch::full({T, b}, ids.pad, torch::kLong);
  auto target_out = torch::full({T, b}, ids.pad, torch::kLong);
  auto src = source.accessor<int64_t, 2>();
  auto tin = target_in.accessor<int64_t, 2>();
  auto tout = target_out.accessor<int64_t, 2>();
  TranslationBatch batch;
  for (int64_t j = 0; j < b; ++j) {
    const auto& p = pairs[indices[j]];
    const auto n = static_cast<int64_t>(p.source.size());
    for (int64_t t = 0; t < n; ++t) src[t][j] = p.source[t];
    src[n][j] = ids.eos;
    const auto m = static_cast<int64_t>(p.target.size());
    tin[0][j] = ids.bos;
    for (int64_t t = 0; t < m; ++t) {
      tin[t + 1][j] = p.target[t];
      tout[t][j] = p.target[t];
    }
    tout[m][j] = ids.eos;
    batch.target_tokens += m + 1;
  }
  batch.source_pad = source.eq(ids.pad);
  batch.target_pad = target_out.eq(ids.pad);
  batch.source = source;
  batch.target_in = target_in;
  batch.target_out = target_out;
  batch.indices = indices;
  return batch;
}

std::vector<int64_t> batchOrder(int64_t count, uint64_t seed, int64_t epoch) {
  const auto order = seededPermutation(static_cast<size_t>(count),
                                       deriveSeed(seed, "batch-order/" + std::to_string(epoch)));
  return {order.begin(), order.end()};
}

}  // namespace recurlab::experiments
