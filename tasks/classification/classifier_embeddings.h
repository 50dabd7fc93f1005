#pragma once
// The vocabulary and embedding start of one classification unit (Lei et al. 2018, App. B.1, Kim 2014):
// without word vectors, the training split's words, embeddings trained from random init;
// with them, also dev/test words that have a vector, the vectors kept fixed and
// out-of-vocabulary words drawn from U(-0.25, 0.25).
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "tasks/classification/classification_datasets.h"
#include "experiments/data/vocabulary.h"
#include "experiments/data/word_vectors.h"

namespace recurlab::experiments {

struct ClassifierEmbedding {
  Vocabulary vocabulary;
  int64_t dim = 0;
  at::Tensor pretrained;         // (vocabulary, dim) or undefined
  int64_t pretrained_words = 0;  // rows taken from the vectors
};

// `vectors` null = no pretrained vectors (dim = embed_dim). The OOV draws use oov_seed.
ClassifierEmbedding classifierEmbeddings(const ClassificationSplit& split,
                                         const WordVectors* vectors, int64_t embed_dim,
                                         uint64_t oov_seed);

}  // namespace recurlab::experiments
