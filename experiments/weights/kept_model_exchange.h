#pragma once
// A kept model's weights (experiments/kept_model/kept_model.h) to and from safetensors under
// exchange names, from the folder alone: its config.json says which encoder of the registry it
// holds ("encoder" and "config" keys; the embedding width is its input size), so the encoder's
// parameters go through that encoder and take the PyTorch reference's names where there is one
// (classification and LM models hold it as `encoder`: an SRU's weights are exported as
// "encoder.rnn_lst.0.weight", ..., as a PyTorch model holding asappresearch/sru's SRU as
// `encoder` names them). The other tensors (embedding, output layers; every tensor of the
// tasks whose config names no such encoder) pass under their recurlab names. The file's
// metadata carries the kept config, so that import rebuilds recurlab's names from the file.
#include <string>

#include "experiments/weights/weights_exchange.h"

namespace recurlab::experiments::weights {

// The kept model in `dir` (checked: manifest, checksums) as safetensors contents.
SafetensorsContents exportKeptModel(const std::string& dir);

// Whether `contents` came from exportKeptModel (its metadata says so).
bool isKeptModelExport(const SafetensorsContents& contents);

// The tensors of a kept model's export under recurlab's names (its weights.pt); `source` names
// the file in errors.
NamedTensors importKeptModel(const SafetensorsContents& contents, const std::string& source);

}  // namespace recurlab::experiments::weights
