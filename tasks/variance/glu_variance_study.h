#pragma once
// Variance through a stack of gated convolutions at initialization (Gehring et al. 2017, App. A):
// forward, the activations x_l entering each block; backward, the gradients of a random
// linear loss with respect to them. With W ~ N(0, sqrt(4p/n)) both stay constant through
// depth, with and without dropout (A.3); the naive N(0, sqrt(1/n)) shrinks them by a factor
// 1/(4p) per block (or (1 + 1/(4p))/2 with the sqrt(0.5) residual).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tasks/variance/variance_study_options.h"
#include "models/layers/gated_conv_block.h"

namespace recurlab::experiments {

class Hdf5RunLog;

struct GluLayerVariance {
  int64_t layer = 0;  // 1 = the stack's input, layers + 1 = its output
  double var_act = 0, act_ratio = 0;    // Var[x_l], Var[x_l] / Var[x_1]
  double var_grad = 0, grad_ratio = 0;  // Var[dLoss/dx_l], ... / Var[dLoss/dx_{layers+1}]
  double derived_act_ratio = 0, derived_grad_ratio = 0;
};

// Per-block factor the appendix predicts for Var (forward and backward alike).
double gluDerivedFactor(models::GluInit init, double retain, bool residual);

// One stack, one forward and backward pass in training mode (dropout on when retain < 1).
// Statistics use interior steps only, `layers·(width-1)` steps away from both ends, where the
// zero padding of the sequence ends cannot reach.
std::vector<GluLayerVariance> measureGluVariance(const GluVarianceOptions& options,
                                                 models::GluInit init, double retain,
                                                 int64_t seed);

std::vector<std::string> gluVarianceColumns();

// Both inits x every retain probability into /variance/glu/layers; skips finished ones.
void runGluVarianceStudy(const GluVarianceOptions& options, int64_t seed, Hdf5RunLog& log,
                         const std::function<void(const std::string&)>& progress = {});

}  // namespace recurlab::experiments
