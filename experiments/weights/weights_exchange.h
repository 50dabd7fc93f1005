#pragma once
// A model's weights to and from safetensors (experiments/weights/safetensors_file.h) under
// exchange names (docs/weights.md): recurlab's own parameter and buffer names, less a prefix
// where recurlab wraps a module that has a PyTorch reference (the "sru" encoder's "sru."
// before asappresearch/sru's `SRU` names "rnn_lst.0.weight", ...), or the reference's names
// and layouts where the encoder's layers have one (experiments/weights/reference_layouts.h).
//
// Import is strict, like PyTorch's load_state_dict(strict=True), and checks everything before
// it copies anything: every parameter and buffer must be in the file with the model's shape,
// no tensor may be left over, and floating-point weights must be floating-point (F64, F32,
// F16 and BF16 convert to the model's dtype). The SRU's scale_x buffer is not copied: recurlab
// derives the skip scale from the options; where it is used (k = 3 sub-matrices), the file's
// value must equal the model's, so a reference SRU built with other rescale/highway_bias
// options is refused instead of giving other outputs.
#include <torch/torch.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "experiments/weights/safetensors_file.h"

namespace recurlab::experiments::weights {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

SafetensorsTensor toSafetensorsTensor(const std::string& name, const torch::Tensor& tensor);
// A CPU tensor of the file's dtype and shape (a copy of the data).
torch::Tensor toTorchTensor(const SafetensorsTensor& tensor);

// The module's parameters, then its buffers, under recurlab's names.
NamedTensors namedWeights(const torch::nn::Module& module);

// `prefix` is taken off every name on export and put back on import ("" for none).
SafetensorsContents exportModuleWeights(const torch::nn::Module& module,
                                        const std::string& prefix = "",
                                        const std::map<std::string, std::string>& metadata = {});
// `source` names the file in errors.
void importModuleWeights(torch::nn::Module& module, const SafetensorsContents& contents,
                         const std::string& source, const std::string& prefix = "");

// The prefix before the reference's names in a registry encoder of that name ("sru" -> "sru.");
// "" for encoders without a PyTorch reference (their names are recurlab's own).
std::string referencePrefix(const std::string& encoder_name);

// The registry's encoder `encoder_name` under its reference's names: through its reference
// layout (experiments/weights/reference_layouts.h: min_gru, min_lstm, hgrn, gla), else under
// referencePrefix. Both throw, naming the option, when the encoder's options give a model its
// reference cannot compute. Import is as strict as importModuleWeights, checked on the
// reference's names and shapes before anything is copied.
SafetensorsContents exportEncoderWeights(const torch::nn::Module& encoder,
                                         const std::string& encoder_name,
                                         const std::map<std::string, std::string>& metadata = {});
void importEncoderWeights(torch::nn::Module& encoder, const std::string& encoder_name,
                          const SafetensorsContents& contents, const std::string& source);

// A LibTorch archive with one entry per dotted name (a kept model's weights.pt).
NamedTensors readTensorArchive(const std::string& path);
void writeTensorArchive(const std::string& path, const NamedTensors& tensors);

}  // namespace recurlab::experiments::weights
