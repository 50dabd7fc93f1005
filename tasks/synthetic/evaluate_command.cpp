#include "tasks/synthetic/evaluate_command.h"

#include <torch/torch.h>

#include <sstream>
#include <stdexcept>

#include "experiments/harness/command_input.h"
#include "experiments/kept_model/kept_model.h"
#include "experiments/search/seed_sequence.h"
#include "models/registry.h"
#include "tasks/synthetic/synthetic_training.h"

namespace recurlab::experiments {

KeptMixer loadKeptMixer(const std::string& dir) {
  const auto kept = openKeptModel(dir, "synthetic");
  KeptMixer m;
  try {
    const auto& j = kept.config;
    m.task = SyntheticTaskSpec::fromJson(j.at("task_name").get<std::string>(), j.at("task"),
                                         kept.path("config.json") + ": task");
    const int64_t width = j.at("width").get<int64_t>();
    m.batch_size = j.at("batch_size").get<int64_t>();
    m.model = TokenMixerModel(j.at("input_vocabulary").get<int64_t>(), width,
                              j.at("output_classes").get<int64_t>(),
                              models::makeEncoder(j.at("encoder").get<std::string>(), j.at("config"), width));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(kept.path("config.json") + ": not a synthetic model's config (" +
                             e.what() + ")");
  }
  loadKeptWeights(*m.model, kept);
  m.model->eval();
  return m;
}

std::vector<LengthScore> scoreAtLengths(KeptMixer& mixer, const std::vector<int64_t>& lengths,
                                        int64_t examples, uint64_t seed, int64_t batch_size,
                                        torch::Device device) {
  std::vector<LengthScore> scores;
  for (const int64_t length : lengths) {
    SyntheticTaskSpec spec = mixer.task;
    spec.test.length = spec.test.min_length = length;
    spec.test.examples = examples;
    SyntheticSplit split;
    try {
      split = makeSyntheticTestSplit(spec, deriveSeed(seed, "length/" + std::to_string(length)));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("--lengths: the task " + spec.name + " (" + spec.kind +
                                  ") cannot have length " + std::to_string(length) + ": " + e.what());
    }
    const auto s = scoreSplit(mixer.model, split, batch_size, device);
    LengthScore score{length, split.size()};
    for (size_t i = 0; i < s.asked.size(); ++i) {
      score.questions += s.asked[i];
      score.right += s.correct[i];
      score.exact_sequences += s.correct[i] == s.asked[i];
    }
    scores.push_back(score);
  }
  return scores;
}

std::vector<int64_t> parseLengths(const std::string& text) {
  const std::string form = "--lengths: expected positive integers separated by commas, e.g. "
                           "40,80,160, got '" + text + "'";
  std::vector<int64_t> lengths;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    size_t used = 0;
    int64_t value = 0;
    try {
      value = std::stoll(item, &used);
    } catch (const std::exception&) {
      throw std::invalid_argument(form);
    }
    if (used != item.size() || value < 1 || value > (1 << 20)) throw std::invalid_argument(form);
    lengths.push_back(value);
  }
  if (lengths.empty() || text.back() == ',') throw std::invalid_argument(form);
  return lengths;
}

namespace {

int runEvaluate(const ModelCommandLine& cl) {
  auto mixer = loadKeptMixer(cl.model);
  const torch::Device device(cl.device);
  mixer.model->to(device);
  std::vector<int64_t> lengths = {mixer.task.train.length};
  if (mixer.task.test.length != mixer.task.train.length) lengths.push_back(mixer.task.test.length);
  if (cl.has("lengths")) lengths = parseLengths(cl.lengths);
  const auto scores = scoreAtLengths(mixer, lengths, cl.examples, cl.seed,
                                     cl.batch_size > 0 ? cl.batch_size : mixer.batch_size, device);
  // The counts are exact; the two rates to six digits, for reading.
  std::ostringstream text;
  text.precision(6);
  text << kLengthScoreHeader << "\n";
  for (const auto& s : scores)
    text << s.length << "," << s.sequences << "," << s.questions << "," << s.right << ","
         << s.exact_sequences << "," << s.accuracy() << "," << s.exactMatch() << "\n";
  writeCommandOutput(cl.output, text.str());
  return 0;
}

}  // namespace

ModelCommandSpec evaluateCommand() {
  return {"evaluate",
          "recurlab_synthetic evaluate: the kept model on fresh sequences of its task at each of\n"
          "--lengths (default: its train and test lengths), every sequence at exactly that\n"
          "length, drawn from --seed -> CSV: length, sequences, questions, right, exact_sequences,\n"
          "accuracy, exact_match (one row per length).",
          {"output,o", "batch-size", "lengths", "examples", "seed"}, runEvaluate};
}

}  // namespace recurlab::experiments
