#pragma once
// A vocabulary as a file of a kept model (experiments/kept_model/kept_model.h): {"words": [...]}
// in id order, each word a string or, when it is not UTF-8, its bytes (symbol_json.h). Reading checks that every word gets back its id (errors name the file).
#include <string>

#include "experiments/data/vocabulary.h"

namespace recurlab::experiments {

void writeVocabularyFile(const Vocabulary& vocabulary, const std::string& path);
Vocabulary readVocabularyFile(const std::string& path);

}  // namespace recurlab::experiments
