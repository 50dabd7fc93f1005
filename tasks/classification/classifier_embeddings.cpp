#include "tasks/classification/classifier_embeddings.h"

#include <torch/torch.h>

#include <algorithm>

namespace recurlab::experiments {

ClassifierEmbedding classifierEmbeddings(const ClassificationSplit& split,
                                         const WordVectors* vectors, int64_t embed_dim,
                                         uint64_t oov_seed) {
  ClassifierEmbedding e;
  for (const auto& s : split.train)
    for (const auto& w : s.tokens) e.vocabulary.add(w);
  if (!vectors) {
    e.dim = embed_dim;
    return e;
  }
  for (const auto* part : {&split.dev, &split.test})
    for (const auto& s : *part)
      for (const auto& w : s.tokens)
        if (vectors->find(w)) e.vocabulary.add(w);
  e.dim = vectors->dim;
  auto generator = at::detail::createCPUGenerator(oov_seed);
  auto table = torch::empty({e.vocabulary.size(), e.dim}, torch::kFloat32)
                   .uniform_(-0.25, 0.25, generator);
  table[Vocabulary::kPad].zero_();
  auto rows = table.accessor<float, 2>();
  for (int64_t id = 2; id < e.vocabulary.size(); ++id)
    if (const auto v = vectors->find(e.vocabulary.word(id))) {
      const float* src = vectors->vector(*v);
      for (int64_t j = 0; j < e.dim; ++j) rows[id][j] = src[j];
      ++e.pretrained_words;
    }
  e.pretrained = table;
  return e;
}

}  // namespace recurlab::experiments
