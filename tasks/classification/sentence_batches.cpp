#include "tasks/classification/sentence_batches.h"

#include <torch/torch.h>

#include <algorithm>
#include <stdexcept>

#include "experiments/data/vocabulary.h"

namespace recurlab::experiments {

std::vector<SentenceBatch> makeSentenceBatches(const std::vector<EncodedSentence>& sentences,
                                               const std::vector<size_t>& order,
                                               int64_t batch_size) {
  if (batch_size < 1) throw std::invalid_argument("makeSentenceBatches: batch_size < 1");
  std::vector<SentenceBatch> batches;
  for (size_t start = 0; start < order.size(); start += static_cast<size_t>(batch_size)) {
    const size_t end = std::min(order.size(), start + static_cast<size_t>(batch_size));
    const int64_t b = static_cast<int64_t>(end - start);
    int64_t max_len = 1;
    for (size_t i = start; i < end; ++i)
      max_len = std::max<int64_t>(max_len, sentences.at(order[i]).ids.size());
    auto tokens = torch::full({max_len, b}, Vocabulary::kPad, torch::kInt64);
    auto lengths = torch::empty({b}, torch::kInt64);
    auto labels = torch::empty({b}, torch::kInt64);
    auto tok = tokens.accessor<int64_t, 2>();
    for (int64_t j = 0; j < b; ++j) {
      const auto& s = sentences[order[start + static_cast<size_t>(j)]];
      for (size_t t = 0; t < s.ids.size(); ++t) tok[static_cast<int64_t>(t)][j] = s.ids[t];
      // An empty sentence still gets one (pad) step so pooling is defined.
      lengths[j] = std::max<int64_t>(1, s.ids.size());
      labels[j] = s.label;
    }
    auto steps = torch::arange(max_len, torch::kInt64).unsqueeze(1);
    batches.push_back({tokens, steps >= lengths.unsqueeze(0), lengths, labels});
  }
  return batches;
}

}  // namespace recurlab::experiments
