#pragma once
// The translation experiment's config (configs/mt/*.json), checked in full before any work:
// unknown keys, wrong types and out-of-range values are errors naming the key.
//   data:      train/valid/test file pairs [source, target] (relative to --data-dir, or
//              absolute), max_train_pairs (a seeded subset; 0 = all), max_valid_pairs,
//              max_test_pairs (the first n; 0 = all), max_length (subwords; longer training
//              pairs are dropped and counted), empty_lines (skip | error)
//   subwords:  type (bpe | unigram), vocabulary_size
//   train:     the optimizer's and the Trainer's keys plus max_tokens, label_smoothing
//   decode:    beam, alpha, max_length_a, max_length_b, test_every_epoch (beam | greedy |
//              none), average_last (checkpoints averaged for the final test), batch_sentences,
//              attention_sentence (the test sentence whose attention maps are kept)
//   models:    name -> {"model": registry name, "config": {...}, "train": {...overrides}}
//              (every model's keys are checked by building it, before any data is read)
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "tasks/mt/corpus_translation.h"

namespace recurlab::experiments {

struct MtModelSpec {
  std::string name;       // its key in "models": label in the log and the report
  std::string model;      // makeSeq2SeqModel name
  nlohmann::json config;  // the model's keys
  nlohmann::json train;   // overrides of the shared train keys
};

struct MtFilePair {
  std::string source, target;
};

struct MtConfig {
  int64_t seed = 1;
  std::string keep_model = "averaged";  // best | last | averaged | none (experiments/kept_model/)
  std::string source_language = "en", target_language = "de";
  MtFilePair train_files, valid_files, test_files;
  int64_t max_train_pairs = 0, max_valid_pairs = 0, max_test_pairs = 0;
  int64_t max_length = 100;
  std::string empty_lines = "skip";
  std::string subword_type = "bpe";
  int64_t vocabulary_size = 8000;
  nlohmann::json train;   // shared training keys
  nlohmann::json decode;  // decoding keys
  std::vector<MtModelSpec> models;

  static MtConfig fromJson(const nlohmann::json& config);
  const MtModelSpec& model(const std::string& name) const;
  // {"model": ..., "config": {...}, "train": {...}, "decode": {...}} of one model.
  nlohmann::json unitTemplate(const MtModelSpec& model) const;
};

// A unit's "train" object: the optimizer's, the Trainer's and the task's own keys.
struct MtTrainOptions;
// A unit's "decode" object: the one struct from the config to the beam search (its
// TranslationOptions part goes to translateCorpus, its BeamSearchOptions part to the search).
struct MtDecodeOptions : TranslationOptions {
  std::string test_every_epoch = "beam";  // beam, greedy or none
  int64_t average_last = 1;               // 1 = the last epoch's weights
  int64_t attention_sentence = 0;

  static MtDecodeOptions fromJson(const nlohmann::json& decode, const std::string& where);
  // The keys a kept model records (tasks/mt/translate_command.h reads them with fromJson).
  nlohmann::json keptJson() const;
};

}  // namespace recurlab::experiments
