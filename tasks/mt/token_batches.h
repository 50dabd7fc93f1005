#pragma once
// Token-count batches as fairseq cuts them: sentences in a seeded random
// order, stably sorted by target then by source length, so that each batch holds sentences of
// similar lengths; batches cut greedily so that sentences x longest side (eos included) <=
// max_tokens, their size rounded down to a multiple of 8 once it reaches 8. The batches are
// fixed once; each epoch visits them in an order drawn from (seed, epoch), so batch `index`
// of `epoch` is a function of (epoch, index) alone (the Trainer's resume contract).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace recurlab::experiments {

struct EncodedPair {
  std::vector<int64_t> source, target;  // subword ids without bos/eos
};

// Sentence indices per batch, in cutting order.
std::vector<std::vector<int64_t>> cutTokenBatches(const std::vector<EncodedPair>& pairs,
                                                  int64_t max_tokens, uint64_t seed);

// Tensors of one batch: time-major (L, B), right-padded, pad masks true at pads.
struct TranslationBatch {
  at::Tensor source, source_pad;          // source + eos
  at::Tensor target_in, target_out, target_pad;  // bos + target, target + eos
  int64_t target_tokens = 0;              // non-pad target_out tokens (eos included)
  std::vector<int64_t> indices;           // the sentences, in batch order
};

struct SpecialIds {
  int64_t pad = 0, unk = 1, bos = 2, eos = 3;
};

TranslationBatch makeTranslationBatch(const std::vector<EncodedPair>& pairs,
                                      const std::vector<int64_t>& indices, const SpecialIds& ids);

// The visiting order of `count` batches in `epoch` (1-based).
std::vector<int64_t> batchOrder(int64_t count, uint64_t seed, int64_t epoch);

}  // namespace recurlab::experiments
