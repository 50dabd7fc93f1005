#include "tasks/classification/classify_command.h"

#include <torch/torch.h>

#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "tasks/classification/sentence_batches.h"
#include "experiments/harness/command_input.h"
#include "experiments/kept_model/kept_model.h"
#include "models/heads/pooling.h"
#include "models/registry.h"

namespace recurlab::experiments {

KeptClassifier loadKeptClassifier(const std::string& dir) {
  const auto kept = openKeptModel(dir, "classification", {kClassifierVocabularyFile});
  const std::string vocabulary_path = kept.path(kClassifierVocabularyFile);
  KeptClassifier c;
  c.vocabulary = readVocabularyFile(vocabulary_path);
  try {
    const auto& j = kept.config;
    const int64_t size = j.at("vocabulary").get<int64_t>();
    if (size != c.vocabulary.size())
      throw std::runtime_error(vocabulary_path + ": " + std::to_string(c.vocabulary.size()) +
                               " words, the model's vocabulary has " + std::to_string(size));
    const std::string encoder = j.at("encoder").get<std::string>();
    models::TextClassifierOptions head;
    head.vocab_size = size;
    head.embed_dim = j.at("embed_dim").get<int64_t>();
    head.num_classes = j.at("classes").get<int64_t>();
    head.pooling = models::choosePooling(j.at("pooling").get<std::string>(), encoder, j.at("config"));
    c.batch_size = j.at("batch_size").get<int64_t>();
    c.model = models::TextClassifier(
        head, models::makeEncoder(encoder, j.at("config"), head.embed_dim));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(kept.path("config.json") + ": not a classifier config (" + e.what() + ")");
  }
  loadKeptWeights(*c.model, kept);
  c.model->eval();
  return c;
}

std::vector<std::string> sentenceTokens(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> tokens;
  std::string t;
  while (in >> t) tokens.push_back(t);
  return tokens;
}

std::vector<int64_t> classifySentences(KeptClassifier& classifier,
                                       const std::vector<std::vector<std::string>>& sentences,
                                       int64_t batch_size, const std::string& where) {
  std::vector<EncodedSentence> encoded;
  for (size_t i = 0; i < sentences.size(); ++i) {
    if (sentences[i].empty())
      throw std::runtime_error(where + ":" + std::to_string(i + 1) + ": an empty sentence (one sentence a line)");
    encoded.push_back({classifier.vocabulary.encode(sentences[i]), 0});
  }
  std::vector<size_t> order(encoded.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return encoded[a].ids.size() < encoded[b].ids.size(); });
  torch::NoGradGuard no_grad;
  classifier.model->eval();
  const auto parameters = classifier.model->parameters();
  const torch::Device device =
      parameters.empty() ? torch::Device(torch::kCPU) : parameters.front().device();
  std::vector<int64_t> labels(encoded.size());
  size_t next = 0;
  for (const auto& b : makeSentenceBatches(encoded, order, batch_size)) {
    const auto predicted = classifier.model
                               ->forward(b.tokens.to(device), b.mask_pad.to(device),
                                         b.lengths.to(device))
                               .argmax(1)
                               .cpu();
    for (int64_t k = 0; k < predicted.size(0); ++k) labels[order[next++]] = predicted[k].item<int64_t>();
  }
  return labels;
}

namespace {

int runClassify(const ModelCommandLine& cl) {
  auto classifier = loadKeptClassifier(cl.model);
  classifier.model->to(torch::Device(cl.device));
  std::vector<std::vector<std::string>> sentences;
  for (const auto& line : readCommandInputLines(cl.input)) sentences.push_back(sentenceTokens(line));
  const auto labels = classifySentences(classifier, sentences,
                                        cl.batch_size > 0 ? cl.batch_size : classifier.batch_size,
                                        inputName(cl.input));
  std::string text;
  for (const auto l : labels) text += std::to_string(l) + "\n";
  writeCommandOutput(cl.output, text);
  return 0;
}

}  // namespace

ModelCommandSpec classifyCommand() {
  return {"classify",
          "recurlab_classification classify: one sentence a line (whitespace-separated tokens, as\n"
          "in the datasets' files) -> its label (0..K-1, the labels of the training files) a line.",
          {"input,i", "output,o", "batch-size"}, runClassify};
}

}  // namespace recurlab::experiments
