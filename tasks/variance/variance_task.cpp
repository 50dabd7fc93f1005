#include "tasks/variance/variance_task.h"

#include <torch/torch.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "common/config_json.h"
#include "experiments/data/word_vectors.h"
#include "tasks/variance/glu_variance_study.h"
#include "tasks/variance/sru_variance_study.h"

namespace recurlab::experiments {
namespace {

const std::string kSruGroup = "/variance/sru/";
const std::string kGluGroup = "/variance/glu";

// Small sizes for a smoke run (seconds instead of minutes), for the keys not set otherwise.
void applyQuick(nlohmann::json& config) {
  for (const char* s : {"sru.layers=4", "sru.hidden=64", "sru.length=64", "sru.samples=16",
                        "sru.batch=8", "sru.burn_in=16", "sru.sentences=64", "glu.layers=4",
                        "glu.channels=32", "glu.length=32", "glu.batch=8"}) {
    const std::string a = s;
    const std::string key = a.substr(0, a.find('='));
    const std::string group = key.substr(0, key.find('.')), name = key.substr(key.find('.') + 1);
    if (!config.contains(group) || !config[group].contains(name)) applyOverride(config, a);
  }
}

bool contains(const std::vector<std::string>& xs, const std::string& x) {
  return std::find(xs.begin(), xs.end(), x) != xs.end();
}

}  // namespace

VarianceTask::VarianceTask(const ExperimentCommandLine& cl) {
  nlohmann::json config = cl.config;
  if (cl.has("quick")) applyQuick(config);
  if (cl.has("data-dir")) config["data_dir"] = cl.data_dir;
  options_ = VarianceStudyOptions::fromJson(config);
  auto& inputs = options_.sru.inputs;
  if (!options_.embeddings.empty() && !contains(inputs, "pretrained")) inputs.push_back("pretrained");
  if (contains(inputs, "pretrained") && options_.embeddings.empty())
    throw std::invalid_argument("input 'pretrained' needs --embeddings FILE");
}

std::string VarianceTask::describe() const {
  return std::to_string(options_.sru.layers) + "-layer SRU on " +
         std::to_string(options_.sru.inputs.size()) + " inputs" +
         (options_.glu.enabled ? ", " + std::to_string(options_.glu.layers) + "-layer gated-conv stack"
                               : std::string());
}

void VarianceTask::checkData() {
  const auto& s = options_.sru;
  if (contains(s.inputs, "sentences") || contains(s.inputs, "pretrained"))
    sentences_ = readSentenceSample(findMrFile(options_.data_dir), s.sentences, options_.seed);
}

std::vector<Unit> VarianceTask::units() const {
  std::vector<Unit> units;
  for (const auto& input : options_.sru.inputs)
    units.push_back({Unit::Kind::Final, kSruGroup + input, "SRU, input " + input,
                     "sru/" + input, 0, "sru/" + input});
  if (options_.glu.enabled)
    units.push_back({Unit::Kind::Final, kGluGroup, "gated-conv stack", "glu", 0, "glu"});
  return units;
}

nlohmann::json VarianceTask::unitTemplate(const Unit& unit) const {
  const auto all = options_.toJson();
  return unit.group == kGluGroup ? all.at("glu") : all.at("sru");
}

std::unique_ptr<VarianceInputSource> VarianceTask::makeInput(const std::string& kind) {
  const auto& s = options_.sru;
  if (kind == "iid")
    return makeIidInput(s.hidden, s.length, s.samples, s.batch, s.burn_in, s.input_std,
                        options_.seed);
  if (kind == "correlated")
    return makeCorrelatedInput(s.hidden, s.length, s.samples, s.batch, s.burn_in, s.input_std,
                               options_.seed);
  if (kind == "sentences")
    return makeRandomEmbeddingInput(sentences_, s.hidden, s.batch, s.input_std, options_.seed);
  std::unordered_set<std::string> vocab;
  for (const auto& sentence : sentences_.sentences) vocab.insert(sentence.begin(), sentence.end());
  WordVectorLoadOptions load;
  load.vocabulary = &vocab;
  const WordVectors vectors = loadWordVectors(options_.embeddings, load);
  std::cout << "loaded " << vectors.size() << " vectors (" << vectors.dim << "d, "
            << toString(vectors.format) << ") from " << options_.embeddings << std::endl;
  return makePretrainedInput(sentences_, vectors, options_.embeddings, s.batch);
}

UnitResult VarianceTask::runUnit(const Unit& unit, UnitContext& ctx) {
  auto progress = [](const std::string& line) { std::cout << line << std::endl; };
  if (unit.group == kGluGroup) {
    runGluVarianceStudy(options_.glu, options_.seed, ctx.log, progress);
  } else {
    const auto input = makeInput(unit.group.substr(kSruGroup.size()));
    std::cout << "input " << input->name() << ": " << input->description() << std::endl;
    runSruVarianceStudy(options_.sru, *input, options_.seed, ctx.log, progress);
  }
  UnitResult result;
  result.stop_reason = "measured";
  return result;
}

}  // namespace recurlab::experiments
