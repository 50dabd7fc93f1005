#include "tasks/qa/predict_command.h"

#include <torch/torch.h>

#include <iostream>
#include <stdexcept>
#include <vector>

#include "common/atomic_file.h"
#include "experiments/harness/command_input.h"
#include "experiments/kept_model/kept_model.h"
#include "tasks/qa/qa_examples.h"
#include "tasks/qa/qa_task.h"
#include "tasks/qa/reader_training.h"
#include "tasks/qa/squad_evaluation.h"

namespace recurlab::experiments::qa {

KeptReader loadKeptReader(const std::string& dir) {
  const auto kept = openKeptModel(dir, "qa", {kQaVocabularyFile});
  const std::string vocabulary_path = kept.path(kQaVocabularyFile);
  KeptReader r;
  r.vocabulary = readVocabularyFile(vocabulary_path);
  try {
    const auto& c = kept.config;
    const int64_t size = c.at("vocabulary").get<int64_t>();
    if (size != r.vocabulary.size())
      throw std::runtime_error(vocabulary_path + ": " + std::to_string(r.vocabulary.size()) +
                               " words, the model's vocabulary has " + std::to_string(size));
    DocumentReaderOptions o;
    o.vocab_size = size;
    o.embed_dim = c.at("embed_dim").get<int64_t>();
    o.features = c.at("features").get<int64_t>();
    o.embed_dropout = c.at("embed_dropout").get<double>();
    o.output_dropout = c.at("output_dropout").get<double>();
    o.tune_top = c.at("tune_top").get<int64_t>();
    const auto& e = c.at("encoder");
    o.encoder.encoder = e.at("encoder").get<std::string>();
    o.encoder.config = e.at("config");
    o.encoder.concat_layers = e.at("concat_layers").get<bool>();
    o.encoder.layers = e.at("layers").get<int64_t>();
    o.encoder.layer_dropout = e.at("layer_dropout").get<double>();
    r.max_span = c.at("max_span").get<int64_t>();
    r.max_context_chars = c.at("max_context_chars").get<int64_t>();
    r.model = DocumentReader(o);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(kept.path("config.json") + ": not a reader config (" + e.what() + ")");
  }
  loadKeptWeights(*r.model, kept);
  r.model->eval();
  return r;
}

std::map<std::string, std::string> predictDataset(KeptReader& reader, const SquadDataset& data,
                                                  int64_t batch_size) {
  const auto tokens = tokenizeDataset(data);
  std::vector<QaExample> examples;
  examples.reserve(data.questions.size());
  for (size_t q = 0; q < data.questions.size(); ++q)
    examples.push_back(makeExample(data, tokens, static_cast<int64_t>(q), reader.vocabulary));
  return predictAnswers(reader.model, examples, data, tokens, reader.max_span, batch_size);
}

namespace {

int runPredict(const ModelCommandLine& cl) {
  auto reader = loadKeptReader(cl.model);
  reader.model->to(torch::Device(cl.device));  // predictAnswers follows the weights
  SquadLoadOptions load;
  load.max_context_chars = reader.max_context_chars;
  const auto data = parseSquad(readCommandInput(cl.input), inputName(cl.input), load);
  if (data.questions.empty()) throw std::runtime_error(inputName(cl.input) + ": no questions");
  const auto predictions = predictDataset(reader, data, cl.batch_size > 0 ? cl.batch_size : 64);
  if (cl.output == "-") {
    std::cout << nlohmann::json(predictions).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
  } else {
    writeFileAtomically(cl.output, [&](const std::string& temporary) { writePredictions(predictions, temporary); });
  }
  return 0;
}

}  // namespace

ModelCommandSpec qaPredictCommand() {
  return {"predict",
          "recurlab_qa predict: answers every question of a SQuAD-format JSON file (v1.1 layout;\n"
          "answers, when present, are ignored) in the official predictions format {id: text}.",
          {"input,i", "output,o", "batch-size"}, runPredict};
}

}  // namespace recurlab::experiments::qa
