#include "tasks/variance/glu_variance_study.h"

#include <torch/torch.h>

#include <cmath>
#include <sstream>

#include "common/log/hdf5_run_log.h"

namespace recurlab::experiments {

double gluDerivedFactor(models::GluInit init, double retain, bool residual) {
  // Var[x_{l+1}] ≈ n·Var[w]·Var[x_l] / (4p) (eq. 32); n·Var[w] = 4p or 1.
  const double plain = init == models::GluInit::DropoutAware ? 1.0 : 1.0 / (4.0 * retain);
  return residual ? 0.5 * (plain + 1.0) : plain;
}

std::vector<GluLayerVariance> measureGluVariance(const GluVarianceOptions& o,
                                                 models::GluInit init, double retain,
                                                 int64_t seed) {
  const int64_t margin = o.layers * (o.width - 1);
  const int64_t L = o.length + 2 * margin;
  torch::manual_seed(static_cast<uint64_t>(seed));
  std::vector<models::GatedConvBlock> blocks;
  for (int64_t l = 0; l < o.layers; ++l) {
    models::GatedConvBlockOptions bo;
    bo.input_channels = o.channels;
    bo.output_channels = o.channels;
    bo.kernel_width = o.width;
    bo.dropout = 1.0 - retain;
    bo.init = init;
    bo.residual = o.residual;
    bo.padding = models::ConvPadding::Same;
    blocks.emplace_back(bo);
    blocks.back()->train();
  }
  // Inputs and the loss direction do not depend on the init, so both inits see the same ones.
  torch::manual_seed(static_cast<uint64_t>(seed) + 1000);
  torch::Tensor x = (torch::randn({L, o.batch, o.channels}) * o.input_std).requires_grad_(true);
  const torch::Tensor g = torch::randn({L, o.batch, o.channels});
  std::vector<torch::Tensor> acts{x};
  for (auto& block : blocks) {
    torch::Tensor y = block->forward(acts.back());
    y.retain_grad();
    acts.push_back(y);
  }
  (acts.back() * g).sum().backward();
  auto interior = [&](const torch::Tensor& t) {
    return t.slice(0, margin, L - margin).to(torch::kDouble).square().mean().item<double>();
  };
  const double factor = gluDerivedFactor(init, retain, o.residual);
  const double var_in = interior(acts.front().detach());
  const double grad_out = interior(acts.back().grad());
  std::vector<GluLayerVariance> out;
  const int64_t n = static_cast<int64_t>(acts.size());
  for (int64_t l = 0; l < n; ++l) {
    GluLayerVariance v;
    v.layer = l + 1;
    v.var_act = interior(acts[l].detach());
    v.act_ratio = v.var_act / var_in;
    v.var_grad = interior(acts[l].grad());
    v.grad_ratio = v.var_grad / grad_out;
    v.derived_act_ratio = std::pow(factor, static_cast<double>(l));
    v.derived_grad_ratio = std::pow(factor, static_cast<double>(n - 1 - l));
    out.push_back(v);
  }
  return out;
}

std::vector<std::string> gluVarianceColumns() {
  return {"naive_init", "retain",     "layer",          "var_act",          "act_ratio",
          "var_grad",   "grad_ratio", "derived_act_ratio", "derived_grad_ratio"};
}

void runGluVarianceStudy(const GluVarianceOptions& o, int64_t seed, Hdf5RunLog& log,
                         const std::function<void(const std::string&)>& progress) {
  const std::string group = "/variance/glu";
  const std::string table = group + "/layers";
  log.createGroup(group);
  std::ostringstream desc;
  desc << o.layers << " gated conv blocks (width " << o.width << ", " << o.channels
       << " channels, " << (o.residual ? "sqrt(0.5) residual" : "no residual")
       << "), input N(0, " << o.input_std << "^2), batch " << o.batch << ", " << o.length
       << " interior steps; loss = sum(output * g), g ~ N(0, 1)";
  log.setAttribute(group, "description", desc.str());
  log.setAttribute(group, "layers", o.layers);
  log.setAttribute(group, "residual", static_cast<int64_t>(o.residual));
  log.createTable(table, gluVarianceColumns());
  const Table done = log.readTable(table);
  for (const auto init : {models::GluInit::DropoutAware, models::GluInit::Naive}) {
    const double naive = init == models::GluInit::Naive ? 1.0 : 0.0;
    for (const double p : o.retain) {
      bool finished = false;
      for (const auto& row : done.rows) finished |= row[0] == naive && row[1] == p;
      if (finished) continue;
      const auto stats = measureGluVariance(o, init, p, seed);
      std::vector<std::vector<double>> rows;
      for (const auto& s : stats)
        rows.push_back({naive, p, static_cast<double>(s.layer), s.var_act, s.act_ratio,
                        s.var_grad, s.grad_ratio, s.derived_act_ratio, s.derived_grad_ratio});
      log.appendRows(table, rows);
      if (progress) {
        std::ostringstream msg;
        msg.precision(3);
        msg << "glu " << (naive ? "naive N(0,sqrt(1/n))" : "N(0,sqrt(4p/n))") << " p=" << p
            << ": output/input variance " << stats.back().act_ratio << " (derived "
            << stats.back().derived_act_ratio << "), input/output gradient variance "
            << stats.front().grad_ratio << " (derived " << stats.front().derived_grad_ratio
            << ")";
        progress(msg.str());
      }
    }
  }
}

}  // namespace recurlab::experiments
