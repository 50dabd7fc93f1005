#include "experiments/weights/kept_model_exchange.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>

#include "experiments/kept_model/kept_model.h"
#include "models/registry.h"

namespace recurlab::experiments::weights {
namespace {

const char* const kTaskKey = "kept_model_task";
const char* const kConfigKey = "kept_model_config";
const std::string kEncoderPrefix = "encoder.";

// The registry encoder a kept model of `task` holds as `encoder`, built from its config
// (nullptr where the task keeps none: MT's sequence-to-sequence models, QA's reader).
std::shared_ptr<torch::nn::Module> keptEncoder(const std::string& task,
                                               const nlohmann::json& config,
                                               std::string* name) {
  if (task != "classification" && task != "lm") return nullptr;
  try {
    *name = config.at("encoder").get<std::string>();
    const int64_t input_size = task == "lm" ? config.at("lm").at("embed_dim").get<int64_t>()
                                            : config.at("embed_dim").get<int64_t>();
    return models::makeEncoder(*name, config.at("config"), input_size);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("config.json: not a " + task + " model config (" + e.what() + ")");
  }
}

bool isEncoderTensor(const std::string& name) { return name.rfind(kEncoderPrefix, 0) == 0; }

}  // namespace

SafetensorsContents exportKeptModel(const std::string& dir) {
  std::string task;
  {
    std::ifstream in(dir + "/manifest.json");
    const auto manifest = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (manifest.is_object() && manifest.contains("task") && manifest["task"].is_string())
      task = manifest["task"].get<std::string>();
  }
  const auto kept = openKeptModel(dir, task);  // names what is missing or wrong
  const auto archive = readTensorArchive(kept.path("weights.pt"));
  SafetensorsContents contents;
  contents.metadata = {{"format", "pt"},
                       {"producer", "recurlab_weights"},
                       {kTaskKey, task},
                       {kConfigKey, kept.config.dump()}};
  std::string encoder_name;
  const auto encoder = keptEncoder(task, kept.config, &encoder_name);
  SafetensorsContents encoder_weights;
  for (const auto& [name, tensor] : archive) {
    if (encoder && isEncoderTensor(name))
      encoder_weights.tensors.push_back(toSafetensorsTensor(name.substr(kEncoderPrefix.size()), tensor));
    else
      contents.tensors.push_back(toSafetensorsTensor(name, tensor));
  }
  if (encoder) {
    importModuleWeights(*encoder, encoder_weights, kept.path("weights.pt") + " (its encoder)");
    for (auto t : exportEncoderWeights(*encoder, encoder_name).tensors) {
      t.name = kEncoderPrefix + t.name;
      contents.tensors.push_back(std::move(t));
    }
  }
  return contents;
}

bool isKeptModelExport(const SafetensorsContents& contents) {
  return contents.metadata.count(kTaskKey) > 0 && contents.metadata.count(kConfigKey) > 0;
}

NamedTensors importKeptModel(const SafetensorsContents& contents, const std::string& source) {
  const std::string task = contents.metadata.at(kTaskKey);
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(contents.metadata.at(kConfigKey));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(source + ": metadata " + kConfigKey + " is not JSON (" + e.what() + ")");
  }
  std::string encoder_name;
  const auto encoder = keptEncoder(task, config, &encoder_name);
  NamedTensors tensors;
  SafetensorsContents encoder_weights;
  for (const auto& t : contents.tensors) {
    if (encoder && isEncoderTensor(t.name)) {
      auto inner = t;
      inner.name = t.name.substr(kEncoderPrefix.size());
      encoder_weights.tensors.push_back(std::move(inner));
    } else {
      tensors.emplace_back(t.name, toTorchTensor(t));
    }
  }
  if (encoder) {
    importEncoderWeights(*encoder, encoder_name, encoder_weights, source + " (its encoder)");
    for (auto& [name, tensor] : namedWeights(*encoder))
      tensors.emplace_back(kEncoderPrefix + name, tensor);
  }
  return tensors;
}

}  // namespace recurlab::experiments::weights
