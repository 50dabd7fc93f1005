#pragma once
// Variance propagation through a deep SRU at initialization (Lei et al. 2018, App. A, Figure 6).
// For every layer l with input x (the previous layer's h): Var[c]/Var[x], Var[h]/Var[x] and
// Var[h_l]/Var[input of layer 1], plus gate statistics that test the derivation's assumptions.
//
// "Var" is the second moment E[z²] pooled over steps, sequences and units: at initialization
// every c and h has mean 0 over the random weights (W is symmetric around 0), so the second
// moment is the variance the derivation speaks of, and per-sequence sums give the standard
// error of each ratio (delta method over independent sequences).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tasks/variance/variance_study_options.h"

#include <ATen/core/Tensor.h>

namespace recurlab::models {
class SruImpl;
class SruLayerImpl;
}

namespace recurlab::experiments {

class Hdf5RunLog;
class VarianceInputSource;

struct SruLayerVariance {
  int64_t layer = 0;  // 1-based
  double var_x = 0, var_c = 0, var_h = 0;
  double c_over_x = 0, c_over_x_se = 0;
  double h_over_x = 0, h_over_x_se = 0;
  double h_over_input = 0, h_over_input_se = 0;  // Var[h_l] / Var[input of layer 1]
  double f_mean = 0, f_var = 0, r_mean = 0, r_sq_mean = 0;
};

// What Appendix A derives for one configuration. Var[h]/Var[x] from eq. 6:
//   (e^{2b}·Var[c]/Var[x] + α²) / (e^b + 1)²  with α² = 1 + 2e^b when rescaled, else 1,
// and 1/3 <= Var[c]/Var[x] <= 1 (eq. 5) giving the bounds.
struct SruDerivedVariance {
  bool alpha = false;
  double highway_bias = 0;
  double c_low() const { return 1.0 / 3.0; }
  double c_high() const { return 1.0; }
  double alphaSquared() const;
  double h(double c_over_x) const;  // eq. 6 at a given Var[c]/Var[x]
  double h_low() const { return h(c_low()); }
  double h_high() const { return h(c_high()); }
  double r_sq() const;  // E[r²] ≈ e^{2b}/(e^b+1)²
};

// One layer's forward pass keeping every state: the layer's own forward returns only the last
// c, so this runs the same two steps (U = X·W, then the fused recurrence) and keeps the
// kernel's full output. Only for layers without projection or layer norm whose input size
// equals the output size (the α·x skip). u is (L, B, 3·d), units interleaved as in the layer.
struct SruLayerStates {
  at::Tensor u, h, c;  // c: (L, B, d), every step
};
SruLayerStates runSruLayerWithStates(models::SruLayerImpl& layer, const at::Tensor& x,
                                     const at::Tensor& mask_pad = {});

// Measures one configuration: runs `sru` (already built, at initialization) over every batch
// of `input` under torch::NoGradGuard. Needs input.dim() == sru's input and hidden size.
std::vector<SruLayerVariance> measureSruVariance(models::SruImpl& sru,
                                                 const VarianceInputSource& input);

// The columns of the per-input table /variance/sru/<input>/layers (one row per alpha, b, layer).
std::vector<std::string> sruVarianceColumns();

// Sweeps alpha x highway bias for one input kind and appends the rows to the log. The weights
// are the same for every configuration (one seed), so curves differ by configuration only.
// Configurations already complete in the log (a resumed run) are skipped.
void runSruVarianceStudy(const SruVarianceOptions& options, const VarianceInputSource& input,
                         int64_t seed, Hdf5RunLog& log,
                         const std::function<void(const std::string&)>& progress = {});

}  // namespace recurlab::experiments
