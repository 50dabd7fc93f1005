#pragma once
// recurlab_weights: a model's weights to and from safetensors (docs/weights.md).
//   recurlab_weights inspect FILE.safetensors
//   recurlab_weights export WEIGHTS.pt|MODEL_DIR OUT.safetensors [--model NAME
//                                      --model-config JSON --input-size N]
//   recurlab_weights import IN.safetensors WEIGHTS.pt  [same options]
// WEIGHTS.pt is a LibTorch archive with one tensor per parameter or buffer name. MODEL_DIR: a
// kept model's folder <run>/models/<unit>/, exported from the folder alone
// (experiments/weights/kept_model_exchange.h); import of its file needs no --model. Without
// --model the tensors pass one to one under their names; with --model (an encoder of the
// registry, built from its config keys) they go through the model: every name and shape is
// checked, and the names and layouts are those of the PyTorch reference where there is one
// (experiments/weights/reference_layouts.h; the SRU).
#include <ostream>
#include <string>
#include <vector>

namespace recurlab::experiments::weights {

// Returns the process's exit status: 0 done, 2 bad command line or bad input (said on `err`).
int runWeightsCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace recurlab::experiments::weights
