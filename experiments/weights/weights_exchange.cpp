#include "experiments/weights/weights_exchange.h"

#include <cmath>
#include <cstring>
#include <set>
#include <sstream>
#include <stdexcept>

#include "common/atomic_file.h"
#include "experiments/weights/reference_layouts.h"
#include "models/layers/sru_layer.h"

namespace recurlab::experiments::weights {
namespace {

const std::vector<std::pair<torch::ScalarType, SafetensorsDtype>>& dtypePairs() {
  static const std::vector<std::pair<torch::ScalarType, SafetensorsDtype>> pairs = {
      {torch::kDouble, SafetensorsDtype::F64}, {torch::kFloat, SafetensorsDtype::F32},
      {torch::kHalf, SafetensorsDtype::F16},   {torch::kBFloat16, SafetensorsDtype::BF16},
      {torch::kLong, SafetensorsDtype::I64},   {torch::kInt, SafetensorsDtype::I32},
      {torch::kShort, SafetensorsDtype::I16},  {torch::kChar, SafetensorsDtype::I8},
      {torch::kByte, SafetensorsDtype::U8},    {torch::kBool, SafetensorsDtype::BOOL}};
  return pairs;
}

// The safetensors dtype of a torch dtype; throws for those the format cannot hold.
SafetensorsDtype safetensorsDtypeOf(torch::ScalarType scalar, const std::string& name) {
  for (const auto& [s, dtype] : dtypePairs())
    if (s == scalar) return dtype;
  throw std::invalid_argument("weights: tensor '" + name + "' has dtype " +
                              std::string(c10::toString(scalar)) +
                              ", which safetensors cannot hold");
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < shape.size(); ++i) s << (i ? ", " : "") << shape[i];
  s << "]";
  return s.str();
}

// The SRU layers inside `module`, by the dotted path of their module ("" for the module itself).
void collectSruLayers(const torch::nn::Module& module, const std::string& path,
                      std::map<std::string, const models::SruLayerImpl*>& layers) {
  if (const auto* layer = dynamic_cast<const models::SruLayerImpl*>(&module))
    layers[path] = layer;
  for (const auto& child : module.named_children())
    collectSruLayers(*child.value(), path + child.key() + ".", layers);
}

// scale_x as asappresearch/sru 2.6 stores it: sqrt(1 + 2 exp(highway_bias)) when rescale and
// the skip term are on, else 1, whatever the number of sub-matrices (with k = 4 the reference
// folds the scale into W's fourth sub-matrix and never reads the buffer).
double referenceScaleX(const models::SruLayerOptions& o) {
  return o.rescale && o.has_skip_term ? std::sqrt(1.0 + 2.0 * std::exp(o.highway_bias)) : 1.0;
}

// Where recurlab's SRU reads the scale: k = 3 with the skip term (α times the input).
bool scaleXIsUsed(const models::SruLayerOptions& o) {
  return o.has_skip_term && o.numMatrices() == 3;
}

// The file's tensor `key` for the model's `target` (`what` in errors: "the model's 'NAME'"),
// checked: present, with the target's shape, floating point where the target is (else the
// same dtype).
const SafetensorsTensor& checkedTensor(const SafetensorsContents& contents, const std::string& key,
                                       const torch::Tensor& target, const std::string& what,
                                       const std::string& source) {
  const SafetensorsTensor* stored = contents.find(key);
  const std::vector<int64_t> shape(target.sizes().begin(), target.sizes().end());
  if (!stored)
    throw std::runtime_error(source + ": no tensor '" + key + "' for " + what + " (shape " +
                             shapeText(shape) + ")");
  if (stored->shape != shape)
    throw std::runtime_error(source + ": tensor '" + key + "' has shape " +
                             shapeText(stored->shape) + ", " + what + " has shape " +
                             shapeText(shape));
  const bool model_floating = torch::isFloatingType(target.scalar_type());
  // Floating point converts to the model's precision; anything else must be the same type.
  if (model_floating != isFloatingDtype(stored->dtype) ||
      (!model_floating && safetensorsDtypeOf(target.scalar_type(), key) != stored->dtype))
    throw std::runtime_error(source + ": tensor '" + key + "' has dtype " +
                             dtypeName(stored->dtype) + ", " + what + " is " +
                             std::string(c10::toString(target.scalar_type())));
  return *stored;
}

void refuseLeftovers(const SafetensorsContents& contents, const std::set<std::string>& used,
                     const std::string& source, const std::string& where) {
  for (const auto& t : contents.tensors)
    if (!used.count(t.name))
      throw std::runtime_error(source + ": tensor '" + t.name + "' matches no " + where);
}

std::string exchangeName(const std::string& name, const std::string& prefix) {
  if (name.compare(0, prefix.size(), prefix) != 0)
    throw std::logic_error("weights: parameter '" + name + "' lacks the prefix '" + prefix + "'");
  return name.substr(prefix.size());
}

}  // namespace

SafetensorsTensor toSafetensorsTensor(const std::string& name, const torch::Tensor& tensor) {
  SafetensorsTensor out;
  out.name = name;
  out.dtype = safetensorsDtypeOf(tensor.scalar_type(), name);
  const torch::Tensor host = tensor.detach().to(torch::kCPU).contiguous();
  out.shape.assign(host.sizes().begin(), host.sizes().end());
  out.data.assign(static_cast<const char*>(host.data_ptr()), host.nbytes());
  return out;
}

torch::Tensor toTorchTensor(const SafetensorsTensor& tensor) {
  torch::ScalarType scalar = torch::kFloat;
  for (const auto& [s, dtype] : dtypePairs())
    if (dtype == tensor.dtype) scalar = s;
  torch::Tensor out = torch::empty(tensor.shape, torch::TensorOptions().dtype(scalar));
  if (out.nbytes() != tensor.data.size())
    throw std::invalid_argument("weights: tensor '" + tensor.name + "' has " +
                                std::to_string(tensor.data.size()) + " bytes for " +
                                std::to_string(out.nbytes()));
  if (!tensor.data.empty()) std::memcpy(out.data_ptr(), tensor.data.data(), tensor.data.size());
  return out;
}

NamedTensors namedWeights(const torch::nn::Module& module) {
  NamedTensors out;
  for (const auto& p : module.named_parameters()) out.emplace_back(p.key(), p.value());
  for (const auto& b : module.named_buffers()) out.emplace_back(b.key(), b.value());
  return out;
}

SafetensorsContents exportModuleWeights(const torch::nn::Module& module, const std::string& prefix,
                                        const std::map<std::string, std::string>& metadata) {
  std::map<std::string, const models::SruLayerImpl*> sru_layers;
  collectSruLayers(module, "", sru_layers);
  SafetensorsContents contents;
  contents.metadata = metadata;
  for (const auto& [name, tensor] : namedWeights(module)) {
    torch::Tensor value = tensor;
    for (const auto& [path, layer] : sru_layers)
      if (name == path + "scale_x")
        value = torch::full({1}, referenceScaleX(layer->options()), tensor.options());
    contents.tensors.push_back(toSafetensorsTensor(exchangeName(name, prefix), value));
  }
  return contents;
}

void importModuleWeights(torch::nn::Module& module, const SafetensorsContents& contents,
                         const std::string& source, const std::string& prefix) {
  std::map<std::string, const models::SruLayerImpl*> sru_layers;
  collectSruLayers(module, "", sru_layers);
  std::set<std::string> used;
  std::vector<std::pair<torch::Tensor, torch::Tensor>> copies;  // (model's, file's)
  for (const auto& [name, target] : namedWeights(module)) {
    const std::string key = exchangeName(name, prefix);
    const SafetensorsTensor* stored =
        &checkedTensor(contents, key, target, "the model's '" + name + "'", source);
    used.insert(key);
    const torch::Tensor value = toTorchTensor(*stored);
    bool is_scale_x = false;
    for (const auto& [path, layer] : sru_layers) {
      if (name != path + "scale_x") continue;
      is_scale_x = true;
      const double expected = layer->alpha(), got = value.to(torch::kDouble).item<double>();
      if (scaleXIsUsed(layer->options()) && std::abs(got - expected) > 1e-6 * expected)
        throw std::runtime_error(
            source + ": tensor '" + key + "' (the skip scale) is " + std::to_string(got) +
            ", the model's options give " + std::to_string(expected) +
            " (rescale and highway_bias must be those the weights were trained with)");
    }
    if (!is_scale_x) copies.emplace_back(target, value);
  }
  refuseLeftovers(contents, used, source,
                  "parameter or buffer of the model" +
                      (prefix.empty() ? std::string() : " (under the prefix '" + prefix + "')"));
  torch::NoGradGuard no_grad;
  for (auto& [target, value] : copies) target.copy_(value);
}

std::string referencePrefix(const std::string& encoder_name) {
  return encoder_name == "sru" ? "sru." : "";
}

SafetensorsContents exportEncoderWeights(const torch::nn::Module& encoder,
                                         const std::string& encoder_name,
                                         const std::map<std::string, std::string>& metadata) {
  const auto layout = referenceLayout(encoder_name, encoder);
  if (!layout) return exportModuleWeights(encoder, referencePrefix(encoder_name), metadata);
  SafetensorsContents contents;
  contents.metadata = metadata;
  for (const auto& [name, tensor] : toReference(*layout, namedWeights(encoder)))
    contents.tensors.push_back(toSafetensorsTensor(name, tensor));
  return contents;
}

void importEncoderWeights(torch::nn::Module& encoder, const std::string& encoder_name,
                          const SafetensorsContents& contents, const std::string& source) {
  const auto layout = referenceLayout(encoder_name, encoder);
  if (!layout) return importModuleWeights(encoder, contents, source, referencePrefix(encoder_name));
  // The reference's tensors as the model's would be exported: the names and shapes wanted.
  const NamedTensors model = namedWeights(encoder);
  std::set<std::string> used;
  NamedTensors reference;
  for (const auto& [key, target] : toReference(*layout, model)) {
    const auto& stored = checkedTensor(
        contents, key, target,
        "the model's '" + key + "' (" + encoder_name + " as " + layout->reference + ")", source);
    used.insert(key);
    reference.emplace_back(key, toTorchTensor(stored).to(target.scalar_type()));
  }
  refuseLeftovers(contents, used, source,
                  "tensor of the model (" + encoder_name + " as " + layout->reference + ")");
  const NamedTensors values = fromReference(*layout, reference, model, source);
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < model.size(); ++i) model[i].second.copy_(values[i].second);
}

NamedTensors readTensorArchive(const std::string& path) {
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
  } catch (const c10::Error& e) {
    throw std::runtime_error(path + ": not a LibTorch archive of named tensors (" +
                             e.what_without_backtrace() + ")");
  }
  NamedTensors out;
  for (const auto& key : archive.keys()) {
    torch::Tensor t;
    if (!archive.try_read(key, t))
      throw std::runtime_error(path + ": entry '" + key + "' is not a tensor");
    out.emplace_back(key, t);
  }
  return out;
}

void writeTensorArchive(const std::string& path, const NamedTensors& tensors) {
  torch::serialize::OutputArchive archive;
  for (const auto& [name, tensor] : tensors) archive.write(name, tensor.detach());
  writeFileAtomically(path, [&](const std::string& temporary) { archive.save_to(temporary); });
}

}  // namespace recurlab::experiments::weights
