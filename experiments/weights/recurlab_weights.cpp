// recurlab_weights: export, import and inspect a model's weights as safetensors
// (experiments/weights/weights_command.h, docs/weights.md).
#include <iostream>
#include <string>
#include <vector>

#include "experiments/weights/weights_command.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return recurlab::experiments::weights::runWeightsCommand(args, std::cout, std::cerr);
}
