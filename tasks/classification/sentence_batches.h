#pragma once
// Mini-batches of sentences, time-major and right-padded, with the pad mask every
// SequenceEncoder takes.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace recurlab::experiments {

struct EncodedSentence {
  std::vector<int64_t> ids;
  int64_t label = 0;
};

struct SentenceBatch {
  at::Tensor tokens;    // (L, B) int64, Vocabulary::kPad after each sentence's end
  at::Tensor mask_pad;  // (L, B) bool, true = pad
  at::Tensor lengths;   // (B) int64
  at::Tensor labels;    // (B) int64
};

// Batches of `batch_size` in the given order (the last one may be smaller).
std::vector<SentenceBatch> makeSentenceBatches(const std::vector<EncodedSentence>& sentences,
                                               const std::vector<size_t>& order,
                                               int64_t batch_size);

}  // namespace recurlab::experiments
