#pragma once
// A sentence classifier kept by its unit (experiments/kept_model/kept_model.h): config.json
// holds the encoder, its config, the pooling, the embedding width, the class count and the
// vocabulary size; vocabulary.json the words in id order (0 padding, 1 unknown). And the
// command on it, recurlab_classification classify --model DIR [-i FILE]: one sentence a line
// (whitespace-separated tokens, as the datasets are) -> its label (0..K-1) a line.
#include <string>
#include <vector>

#include "experiments/data/vocabulary_file.h"
#include "experiments/harness/experiment_command_line.h"
#include "models/heads/text_classifier.h"

namespace recurlab::experiments {

inline constexpr const char* kClassifierVocabularyFile = "vocabulary.json";

struct KeptClassifier {
  models::TextClassifier model{nullptr};
  Vocabulary vocabulary;
  int64_t batch_size = 50;
};

// Opens, checks and loads a kept classifier (errors name the file and what is wrong).
KeptClassifier loadKeptClassifier(const std::string& dir);

// The label of each sentence (tokens), in their order, batched by length. A sentence without
// tokens is an error naming `where` and its line.
std::vector<int64_t> classifySentences(KeptClassifier& classifier,
                                       const std::vector<std::vector<std::string>>& sentences,
                                       int64_t batch_size, const std::string& where);

// Whitespace-separated tokens of a line.
std::vector<std::string> sentenceTokens(const std::string& line);

ModelCommandSpec classifyCommand();

}  // namespace recurlab::experiments
