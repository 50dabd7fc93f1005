#include "tasks/mt/corpus_translation.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <numeric>

#include "common/runtime/kill_point.h"
#include "models/seq2seq/beam_search.h"
#include "models/seq2seq/seq2seq_model.h"

namespace recurlab::experiments {

double CorpusTranslation::sentencesPerSecond() const {
  return seconds > 0 ? static_cast<double>(hypotheses.size()) / seconds : 0.0;
}

CorpusTranslation translateCorpus(models::Seq2SeqModel& model, const std::vector<EncodedPair>& pairs,
                                  const SpecialIds& ids, const TranslationOptions& options) {
  CorpusTranslation result;
  result.hypotheses.resize(pairs.size());
  result.nbest.resize(pairs.size());
  if (pairs.empty()) return result;
  torch::NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  const auto parameters = model.parameters();
  const torch::Device device =
      parameters.empty() ? torch::Device(torch::kCPU) : parameters.front().device();
  std::vector<int64_t> order(pairs.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return pairs[a].source.size() < pairs[b].source.size();
  });
  const auto start = std::chrono::steady_clock::now();
  for (size_t first = 0; first < order.size(); first += static_cast<size_t>(options.batch_sentences)) {
    const size_t last = std::min(order.size(), first + static_cast<size_t>(options.batch_sentences));
    const std::vector<int64_t> indices(order.begin() + static_cast<int64_t>(first),
                                       order.begin() + static_cast<int64_t>(last));
    auto batch = makeTranslationBatch(pairs, indices, ids);
    batch.source = batch.source.to(device);
    batch.source_pad = batch.source_pad.to(device);
    std::vector<std::vector<models::Hypothesis>> nbest;
    std::vector<models::Hypothesis> best;
    if (options.nbest > 1) {
      nbest = models::beamSearchNBest(model, batch.source, batch.source_pad, options, options.nbest);
      for (const auto& n : nbest) best.push_back(n.empty() ? models::Hypothesis{} : n.front());
    } else if (options.beam <= 1) {
      best = models::greedyDecode(model, batch.source, batch.source_pad, options.max_length_b,
                                  options.max_length_a);
    } else {
      best = models::beamSearch(model, batch.source, batch.source_pad, options);
    }
    for (size_t j = 0; j < indices.size(); ++j) {
      result.hypotheses[indices[j]] = best[j].tokens;
      auto& scored = result.nbest[indices[j]];
      if (nbest.empty()) {
        scored.push_back({best[j].tokens, options.beam <= 1 ? best[j].log_probability : best[j].score});
      } else {
        for (const auto& h : nbest[j]) scored.push_back({h.tokens, h.score});
      }
    }
    killPoint("translate-batch");
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  model.train(was_training);
  return result;
}

}  // namespace recurlab::experiments
