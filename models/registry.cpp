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
  std::call_once(once, [] {
    addBuiltinEncoders(EncoderSink{[](EncoderEntry e) {
      registerEncoder(e.name, e.description, std::move(e.factory), std::move(e.state_size));
    }});
  });
}

int64_t stateNumbers(const SequenceState& state) {
  int64_t numbers = 0;
  for (const auto& t : state.tensors)
    if (t.defined()) numbers += t.numel();
  for (const auto& child : state.children) numbers += stateNumbers(child);
  return numbers;
}

EncoderEntry findEntry(const std::string& name) {
  ensureBuiltins();
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.entries.find(name);
  if (it == r.entries.end()) {
    std::string known;
    for (const auto& [n, e] : r.entries) known += (known.empty() ? "'" : ", '") + n + "'";
    throw std::invalid_argument("unknown model '" + name + "'; known models: " + known);
  }
  return it->second;
}

}  // namespace

void registerEncoder(const std::string& name, const std::string& description,
                     EncoderFactory factory, EncoderStateSize state_size) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.entries.count(name))
    throw std::logic_error("model registry: '" + name + "' is registered twice");
  r.entries[name] = EncoderEntry{name, description, std::move(factory), std::move(state_size)};
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
  return findEntry(name).factory(config, input_size);
}

int64_t encoderStateSize(const std::string& name, const nlohmann::json& config,
                         int64_t input_size, int64_t length) {
  return encoderStateSize(findEntry(name), config, input_size, length);
}

int64_t encoderStateSize(const EncoderEntry& entry, const nlohmann::json& config,
                         int64_t input_size, int64_t length) {
  if (entry.state_size) return entry.state_size(config, input_size, length);
  auto encoder = entry.factory(config, input_size);
  encoder->eval();
  torch::NoGradGuard no_grad;
  const auto output = encoder->encode(torch::zeros({length, 1, input_size}), torch::Tensor(), {});
  return stateNumbers(output.state);
}

}  // namespace recurlab::models
