#pragma once
// The recall tasks of the synthetic suite (docs/synthetic.md gives each definition and its
// source): multi-query associative recall (Arora et al. 2023), selective copying (Gu and Dao
// 2023) and induction heads (Olsson et al. 2022). Each has a builder from its random choices,
// which the tests check on hand-written cases, and a sampler drawing those choices.
#include <cstdint>
#include <random>
#include <vector>

#include "tasks/synthetic/synthetic_sequence.h"

namespace recurlab::experiments {

// MQAR. Vocabulary V: token 0 fills the query region, keys come from [1, V/2), values from
// [V/2, V). The context is k_1 v_1 ... k_D v_D; the query region (length - 2D tokens) is zeros
// except that key k_i sits at query_slots[i] * 2 of it, where its target is v_i.
SyntheticSequence mqarSequence(const std::vector<int64_t>& keys, const std::vector<int64_t>& values,
                               const std::vector<int64_t>& query_slots, int64_t length);
// D distinct keys, D distinct values, and query slots drawn without replacement from the
// (length - 2D) / 2 slots with probability proportional to slot^(power - 1) (slot from 1), so
// that most queries come soon after the context (Arora et al. 2023 use power 0.01).
SyntheticSequence sampleMqar(std::mt19937_64& rng, int64_t vocabulary, int64_t length,
                             int64_t pairs, double power);

// Selective copying. Token 0 is noise, token 1 the marker, data tokens are 2..V-1: the data
// tokens sit at `positions` (increasing) of `length` noise tokens, then one marker per data
// token follows, where the target is the data tokens in order. Length + data.size() tokens.
SyntheticSequence selectiveCopySequence(const std::vector<int64_t>& data,
                                        const std::vector<int64_t>& positions, int64_t length);
SyntheticSequence sampleSelectiveCopy(std::mt19937_64& rng, int64_t vocabulary, int64_t length,
                                      int64_t count);

// Induction heads. Token 0 is the trigger, 1..V-1 ordinary tokens: `filler` (length - 1
// ordinary tokens) with the trigger at `trigger_at` followed by `answer`, then the trigger
// again as the last token, whose target is `answer`.
SyntheticSequence inductionSequence(std::vector<int64_t> filler, int64_t trigger_at,
                                    int64_t answer);
SyntheticSequence sampleInduction(std::mt19937_64& rng, int64_t vocabulary, int64_t length);

// A draw uniform in [low, high] from `rng` (std::uniform_int_distribution's output is not
// fixed by the standard; this one is, so a seed gives the same data everywhere).
int64_t uniformInt(std::mt19937_64& rng, int64_t low, int64_t high);

}  // namespace recurlab::experiments
