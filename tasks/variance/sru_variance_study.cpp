#include "tasks/variance/sru_variance_study.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <sstream>

#include "common/log/hdf5_run_log.h"
#include "tasks/variance/variance_inputs.h"
#include "kernels/sru_recurrence.h"
#include "models/layers/sru.h"

namespace recurlab::experiments {

double SruDerivedVariance::alphaSquared() const {
  return alpha ? 1.0 + 2.0 * std::exp(highway_bias) : 1.0;
}

double SruDerivedVariance::h(double c_over_x) const {
  const double eb = std::exp(highway_bias);
  return (eb * eb * c_over_x + alphaSquared()) / ((eb + 1.0) * (eb + 1.0));
}

double SruDerivedVariance::r_sq() const {
  const double eb = std::exp(highway_bias);
  return eb * eb / ((eb + 1.0) * (eb + 1.0));
}

namespace {

// Ratio sum(a)/sum(b) over independent sequences and its delta-method standard error.
std::pair<double, double> ratioWithError(const std::vector<double>& a,
                                         const std::vector<double>& b) {
  double sa = 0, sb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sa += a[i];
    sb += b[i];
  }
  const double r = sa / sb;
  const double n = static_cast<double>(a.size());
  double ss = 0;
  for (size_t i = 0; i < a.size(); ++i) ss += (a[i] - r * b[i]) * (a[i] - r * b[i]);
  const double se = n > 1 ? std::sqrt(n / (n - 1) * ss) / sb : 0.0;
  return {r, se};
}

std::vector<double> toVector(const torch::Tensor& t) {
  const auto d = t.to(torch::kDouble).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}

void append(std::vector<double>& to, const torch::Tensor& t) {
  const auto v = toVector(t);
  to.insert(to.end(), v.begin(), v.end());
}

}  // namespace

SruLayerStates runSruLayerWithStates(models::SruLayerImpl& layer, const at::Tensor& x,
                                     const at::Tensor& mask_pad) {
  const auto& lo = layer.options();
  TORCH_CHECK(!lo.usesProjection() && !lo.layer_norm && !lo.bidirectional &&
                  lo.has_skip_term && lo.numMatrices() == 3,
              "runSruLayerWithStates: needs a unidirectional layer with the alpha*x skip, no "
              "projection and no layer norm");
  TORCH_CHECK(x.dim() == 3 && x.size(2) == lo.input_size, "runSruLayerWithStates: input must be "
              "(length, batch, ", lo.input_size, "), got ", x.sizes());
  const int64_t L = x.size(0), B = x.size(1), d = lo.hidden_size;
  SruLayerStates out;
  out.u = x.reshape({L * B, d}).mm(layer.weight).view({L, B, 3 * d});
  kernels::SruRecurrenceOptions ko;
  ko.hidden_size = d;
  ko.skip = kernels::SruSkip::ScaledInput;
  ko.alpha = lo.alpha();
  auto res = kernels::sruRecurrenceForward(out.u, x, layer.weight_c, layer.bias, {}, {},
                                           mask_pad, ko);
  out.h = res.h;
  out.c = res.c;
  return out;
}

std::vector<SruLayerVariance> measureSruVariance(models::SruImpl& sru,
                                                 const VarianceInputSource& input) {
  torch::NoGradGuard no_grad;
  const int64_t layers = sru.numLayers();
  const int64_t d = sru.options().hidden_size;
  TORCH_CHECK(input.dim() == sru.options().input_size && input.dim() == d,
              "variance study: input dimension ", input.dim(), " must equal the SRU's input "
              "and hidden size (", sru.options().input_size, ", ", d, ") so every layer has the "
              "alpha*x skip");
  // Per-sequence sums of squares (weighted by the counted steps), per layer.
  std::vector<std::vector<double>> sx(layers), sc(layers), sh(layers);
  std::vector<std::vector<double>> count(layers);
  std::vector<double> f_sum(layers), f_sq(layers), r_sum(layers), r_sq(layers), n_gate(layers);
  for (int64_t bi = 0; bi < input.numBatches(); ++bi) {
    const VarianceBatch batch = input.batch(bi);
    torch::Tensor x = batch.x.contiguous();
    const int64_t L = x.size(0), B = x.size(1);
    const torch::Tensor w = batch.weight.to(torch::kFloat).unsqueeze(2);  // (L, B, 1)
    const torch::Tensor steps = batch.weight.sum(0).to(torch::kDouble) * static_cast<double>(d);
    for (int64_t l = 0; l < layers; ++l) {
      auto layer = sru.layer(l);
      const SruLayerStates res = runSruLayerWithStates(*layer, x, batch.mask_pad);
      const torch::Tensor& u = res.u;
      append(sx[l], (x.square() * w).sum(at::IntArrayRef{0, 2}));
      append(sc[l], (res.c.square() * w).sum(at::IntArrayRef{0, 2}));
      append(sh[l], (res.h.square() * w).sum(at::IntArrayRef{0, 2}));
      append(count[l], steps);
      // Gates, recomputed from U and the previous state exactly as the kernel does.
      const torch::Tensor u4 = u.view({L, B, d, 3});
      const torch::Tensor c_prev =
          torch::cat({torch::zeros({1, B, d}, x.options()), res.c.slice(0, 0, L - 1)}, 0);
      const torch::Tensor f = torch::sigmoid(u4.select(3, 1) +
                                             layer->weight_c.slice(0, 0, d) * c_prev +
                                             layer->bias.slice(0, 0, d));
      const torch::Tensor r = torch::sigmoid(u4.select(3, 2) +
                                             layer->weight_c.slice(0, d, 2 * d) * c_prev +
                                             layer->bias.slice(0, d, 2 * d));
      f_sum[l] += (f * w).sum().item<double>();
      f_sq[l] += (f.square() * w).sum().item<double>();
      r_sum[l] += (r * w).sum().item<double>();
      r_sq[l] += (r.square() * w).sum().item<double>();
      n_gate[l] += w.sum().item<double>() * static_cast<double>(d);
      x = res.h;
    }
  }
  std::vector<SruLayerVariance> out;
  for (int64_t l = 0; l < layers; ++l) {
    SruLayerVariance v;
    v.layer = l + 1;
    double n = 0, tx = 0, tc = 0, th = 0;
    for (size_t i = 0; i < sx[l].size(); ++i) {
      n += count[l][i];
      tx += sx[l][i];
      tc += sc[l][i];
      th += sh[l][i];
    }
    v.var_x = tx / n;
    v.var_c = tc / n;
    v.var_h = th / n;
    std::tie(v.c_over_x, v.c_over_x_se) = ratioWithError(sc[l], sx[l]);
    std::tie(v.h_over_x, v.h_over_x_se) = ratioWithError(sh[l], sx[l]);
    std::tie(v.h_over_input, v.h_over_input_se) = ratioWithError(sh[l], sx[0]);
    v.f_mean = f_sum[l] / n_gate[l];
    v.f_var = f_sq[l] / n_gate[l] - v.f_mean * v.f_mean;
    v.r_mean = r_sum[l] / n_gate[l];
    v.r_sq_mean = r_sq[l] / n_gate[l];
    out.push_back(v);
  }
  return out;
}

std::vector<std::string> sruVarianceColumns() {
  return {"alpha",          "highway_bias",    "layer",         "var_x",
          "var_c",          "var_h",           "c_over_x",      "c_over_x_se",
          "h_over_x",       "h_over_x_se",     "h_over_input",  "h_over_input_se",
          "f_mean",         "f_var",           "r_mean",        "r_sq_mean",
          "derived_c_low",  "derived_c_high",  "derived_h_low", "derived_h_high",
          "derived_h_eq6",  "derived_r_sq"};
}

void runSruVarianceStudy(const SruVarianceOptions& options, const VarianceInputSource& input,
                         int64_t seed, Hdf5RunLog& log,
                         const std::function<void(const std::string&)>& progress) {
  const std::string group = "/variance/sru/" + input.name();
  const std::string table = group + "/layers";
  log.createGroup(group);
  log.setAttribute(group, "description", input.description());
  log.setAttribute(group, "dim", input.dim());
  log.setAttribute(group, "layers", options.layers);
  log.setAttribute(group, "batches", input.numBatches());
  log.createTable(table, sruVarianceColumns());
  const Table done = log.readTable(table);
  for (const bool alpha : options.alphas) {
    for (const double b : options.highway_biases) {
      int64_t have = 0;
      for (const auto& row : done.rows)
        if (row[0] == (alpha ? 1.0 : 0.0) && row[1] == b) ++have;
      if (have == options.layers) continue;  // finished before an interruption
      if (have != 0)
        throw std::runtime_error("variance study: " + log.path() + ":" + table + " holds " +
                                 std::to_string(have) + " of " +
                                 std::to_string(options.layers) + " rows for alpha=" +
                                 std::to_string(alpha) + " b=" + std::to_string(b) +
                                 " (different layer count?); use a fresh run folder");
      const auto t0 = std::chrono::steady_clock::now();
      models::SruOptions so;
      so.input_size = input.dim();
      so.hidden_size = input.dim();
      so.num_layers = options.layers;
      so.rescale = alpha;
      so.highway_bias = b;
      torch::manual_seed(static_cast<uint64_t>(seed));
      models::Sru sru(so);
      sru->eval();
      const auto stats = measureSruVariance(*sru, input);
      const SruDerivedVariance derived{alpha, b};
      std::vector<std::vector<double>> rows;
      for (const auto& s : stats)
        rows.push_back({alpha ? 1.0 : 0.0, b, static_cast<double>(s.layer), s.var_x, s.var_c,
                        s.var_h, s.c_over_x, s.c_over_x_se, s.h_over_x, s.h_over_x_se,
                        s.h_over_input, s.h_over_input_se, s.f_mean, s.f_var, s.r_mean,
                        s.r_sq_mean, derived.c_low(), derived.c_high(), derived.h_low(),
                        derived.h_high(), derived.h(s.c_over_x), derived.r_sq()});
      log.appendRows(table, rows);
      if (progress) {
        const double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::ostringstream msg;
        msg.precision(3);
        msg << "sru " << input.name() << " alpha=" << (alpha ? "on " : "off") << " b=" << b
            << ": layer 1 c/x=" << stats.front().c_over_x << " h/x=" << stats.front().h_over_x
            << ", layer " << stats.back().layer << " c/x=" << stats.back().c_over_x
            << " h/x=" << stats.back().h_over_x << " h/input=" << stats.back().h_over_input
            << " (" << secs << " s)";
        progress(msg.str());
      }
    }
  }
}

}  // namespace recurlab::experiments
