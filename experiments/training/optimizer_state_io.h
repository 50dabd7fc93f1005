#pragma once
// A dense optimizer's state in a checkpoint, readable by every LibTorch recurlab builds
// against. torch's own Optimizer::save keys each parameter's state by its TensorImpl address,
// printed in hexadecimal by LibTorch 1.13 and in decimal by 2.x, and 2.x's load parses the key
// as a decimal number: a checkpoint written on a CPU machine (Debian's 1.13) and resumed on a
// GPU machine (PyTorch 2.x) would hand every parameter the same, wrong state. Here a
// parameter's state is keyed by its group and its position in the group, as the optimizer
// was built (OptimizerSet keeps module order), and each group's options (the learning rate a
// schedule set) beside it.
#include <torch/torch.h>

namespace recurlab::experiments {

// Adam, AdamW, SGD and recurlab's Adamax; another optimizer is a std::logic_error.
void saveOptimizerState(const torch::optim::Optimizer& optimizer,
                        torch::serialize::OutputArchive& archive);

// Reads what saveOptimizerState wrote, or an archive of torch's own Optimizer::save (the
// checkpoints written before this format, read by the same LibTorch that wrote them).
// A checkpoint of another optimizer or parameter layout is a std::runtime_error naming it.
void loadOptimizerState(torch::optim::Optimizer& optimizer,
                        torch::serialize::InputArchive& archive);

}  // namespace recurlab::experiments
