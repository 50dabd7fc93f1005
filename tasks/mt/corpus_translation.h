#pragma once
// Translating a list of encoded sentences with any Seq2SeqModel: batches of similar source
// lengths, greedy or beam search (models/seq2seq/beam_search.h), the hypotheses returned in the
// input order with the time it took.
#include <cstdint>
#include <string>
#include <vector>

#include "models/seq2seq/beam_search.h"
#include "tasks/mt/token_batches.h"

namespace recurlab::experiments {

// The beam search's options (beam 1: greedy decoding) and how a corpus is decoded with them.
struct TranslationOptions : models::BeamSearchOptions {
  int64_t batch_sentences = 64;
  int64_t nbest = 1;       // hypotheses kept per sentence (<= beam)
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
