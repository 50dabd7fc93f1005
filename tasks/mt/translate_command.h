#pragma once
// recurlab_mt translate --model DIR [-i FILE] [--beam K --alpha A --nbest N]: translates one
// sentence a line with a kept translation model (docs/mt.md), in batches; with --nbest N > 1
// each line holds `N<TAB>score<TAB>translation`, N the input line, best first.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "experiments/harness/experiment_command_line.h"
#include "tasks/mt/corpus_translation.h"
#include "tasks/mt/subword_model.h"

namespace recurlab::models {
class Seq2SeqModel;
}

namespace recurlab::experiments {

struct KeptTranslationModel {
  std::shared_ptr<models::Seq2SeqModel> model;
  std::optional<SubwordModel> subwords;
  SpecialIds ids;
  TranslationOptions decode;  // the run's test decoding
};

// Opens, checks and loads a kept MT model (errors name the file and what is wrong: another
// task, a missing file, a subword model whose size or special ids differ from the model's).
KeptTranslationModel loadKeptTranslationModel(const std::string& dir);

// Detokenized translations of `lines`, `options.nbest` per line, best first.
std::vector<std::vector<std::pair<double, std::string>>> translateLines(
    KeptTranslationModel& model, const std::vector<std::string>& lines, const TranslationOptions& options);

ModelCommandSpec mtTranslateCommand();

}  // namespace recurlab::experiments
