#pragma once
// Translating a list of encoded sentences with any Seq2SeqModel: batches of similar source
// lengths, greedy or beam search (models/seq2seq/beam_search.h), the hypotheses returned in the
// input order with the time it took.
#include <cstdint>
#include <string>
#include <vector>

#include "tasks/mt/token_batches.h"

namespace recurlab::models {
class Seq2SeqModel;
}

namespace recurlab::experiments {

struct TranslationOptions {
  int64_t beam = 5;        // 1 = greedy decoding
  double alpha = 0.6;      // length penalty exponent (beam > 1)
  double max_length_a = 1.2;
  int64_t max_length_b = 10;
  int64_t batch_sentences = 64;
  int64_t nbest = 1;       // hypotheses kept per sentence (<= beam)
  std::string length_penalty = "gnmt";  // gnmt or fairseq (models/seq2seq/beam_search.h)
};

struct ScoredHypothesis {
  std::vector<int64_t> tokens;  // subword ids, without bos/eos
  double score = 0;             // log P / lp (beam), log P (greedy)
};

struct CorpusTranslation {
  std::vector<std::vector<int64_t>> hypotheses;  // subword ids, without bos/eos
  std::vector<std::vector<ScoredHypothesis>> nbest;  // per sentence, best first (the first is hypotheses')
  double seconds = 0;
  double sentencesPerSecond() const;
};

// Sources are the `source` side of `pairs`; the model is put in eval mode under no-grad and
// left as it was.
CorpusTranslation translateCorpus(models::Seq2SeqModel& model, const std::vector<EncodedPair>& pairs,
                                  const SpecialIds& ids, const TranslationOptions& options);

}  // namespace recurlab::experiments
