#pragma once
// A document reader kept by its unit (experiments/kept_model/kept_model.h): config.json holds
// the encoder spec and the reader's sizes, vocabulary.json its words. And the command on it,
// recurlab_qa predict --model DIR -i any-squad.json -o predictions.json: the answer of every
// question of a SQuAD-format file, in the official predictions format ({id: answer text}),
// which recurlab_squad_eval (and the official evaluate-v1.1.py) scores.
#include <map>
#include <string>

#include "experiments/data/vocabulary_file.h"
#include "experiments/harness/experiment_command_line.h"
#include "tasks/qa/document_reader.h"
#include "tasks/qa/squad_dataset.h"

namespace recurlab::experiments::qa {

struct KeptReader {
  DocumentReader model{nullptr};
  Vocabulary vocabulary;
  int64_t max_span = 15;
  int64_t max_context_chars = 0;
};

// Opens, checks and loads a kept reader (errors name the file and what is wrong).
KeptReader loadKeptReader(const std::string& dir);

// {question id: answer text} of every question of `data`.
std::map<std::string, std::string> predictDataset(KeptReader& reader, const SquadDataset& data,
                                                  int64_t batch_size);

ModelCommandSpec qaPredictCommand();

}  // namespace recurlab::experiments::qa
