#include "models/registry.h"

#include <torch/torch.h>

#include <map>
#include <mutex>
#include <stdexcept>

#include "models/encoders/builtin_encoders.h"

namespace recurlab::models {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, EncoderEntry> entries;
  bool builtins_loaded = false;
};

Registry& registry() {
  static Registry r;
  return r;
}

void ensureBuiltins() {
  static std::once_flag once;
  std::call_once(once, [] { addBuiltinEncoders(registerEncoder); });
}

}  // namespace

void registerEncoder(const std::string& name, const std::string& description,
                     EncoderFactory factory) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.entries.count(name))
    throw std::logic_error("model registry: '" + name + "' is registered twice");
  r.entries[name] = EncoderEntry{name, description, std::move(factory)};
}

std::vector<std::string> encoderNames() {
  ensureBuiltins();
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, entry] : r.entries) names.push_back(name);
  return names;
}

std::string encoderDescription(const std::string& name) {
  ensureBuiltins();
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.entries.find(name);
  return it == r.entries.end() ? std::string() : it->second.description;
}

std::string encoderListing() {
  std::string text =
      "Encoders (config key models.<name>.encoder; its keys go in models.<name>.config):\n"
      "  (dropout: on each layer's output but the last's: for sru a variational mask on the\n"
      "  r*c part of h, as asappresearch/sru; for the others plain dropout between layers.\n"
      "  rnn_dropout: a variational mask on each layer's input, the same in every stack.)\n";
  for (const auto& name : encoderNames()) text += "  " + name + ": " + encoderDescription(name) + "\n";
  return text;
}

std::shared_ptr<SequenceEncoder> makeEncoder(const std::string& name,
                                             const nlohmann::json& config, int64_t input_size) {
  ensureBuiltins();
  EncoderFactory factory;
  {
    auto& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.entries.find(name);
    if (it == r.entries.end()) {
      std::string known;
      for (const auto& [n, e] : r.entries) known += (known.empty() ? "'" : ", '") + n + "'";
      throw std::invalid_argument("unknown model '" + name + "'; known models: " + known);
    }
    factory = it->second.factory;
  }
  return factory(config, input_size);
}

}  // namespace recurlab::models
