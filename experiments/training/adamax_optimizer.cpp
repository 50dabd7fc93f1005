#include "experiments/training/adamax_optimizer.h"

#include <torch/torch.h>

#include "common/runtime/torch_build.h"

namespace recurlab::experiments {

void AdamaxOptions::serialize(torch::serialize::OutputArchive& archive) const {
  archive.write("lr", c10::IValue(lr()));
  archive.write("beta1", c10::IValue(std::get<0>(betas())));
  archive.write("beta2", c10::IValue(std::get<1>(betas())));
  archive.write("eps", c10::IValue(eps()));
  archive.write("weight_decay", c10::IValue(weight_decay()));
}

void AdamaxOptions::serialize(torch::serialize::InputArchive& archive) {
  c10::IValue v;
  archive.read("lr", v);
  lr(v.toDouble());
  double b1 = 0, b2 = 0;
  archive.read("beta1", v);
  b1 = v.toDouble();
  archive.read("beta2", v);
  b2 = v.toDouble();
  betas(std::make_tuple(b1, b2));
  archive.read("eps", v);
  eps(v.toDouble());
  archive.read("weight_decay", v);
  weight_decay(v.toDouble());
}

void AdamaxParamState::serialize(torch::serialize::OutputArchive& archive) const {
  archive.write("step", c10::IValue(step()));
  archive.write("exp_avg", exp_avg(), /*is_buffer=*/true);
  archive.write("exp_inf", exp_inf(), /*is_buffer=*/true);
}

void AdamaxParamState::serialize(torch::serialize::InputArchive& archive) {
  c10::IValue v;
  archive.read("step", v);
  step(v.toInt());
  // Two fresh tensors: InputArchive::read into a defined tensor set_()s that tensor in place.
  torch::Tensor m, u;
  archive.read("exp_avg", m, /*is_buffer=*/true);
  archive.read("exp_inf", u, /*is_buffer=*/true);
  exp_avg(m);
  exp_inf(u);
}

Adamax::Adamax(std::vector<torch::Tensor> params, AdamaxOptions defaults)
    : torch::optim::Optimizer({torch::optim::OptimizerParamGroup(std::move(params))},
                              std::make_unique<AdamaxOptions>(defaults)) {
  TORCH_CHECK(defaults.lr() >= 0, "Adamax: invalid learning rate ", defaults.lr());
  TORCH_CHECK(defaults.eps() >= 0, "Adamax: invalid eps ", defaults.eps());
  const auto [b1, b2] = defaults.betas();
  TORCH_CHECK(b1 >= 0 && b1 < 1, "Adamax: beta1 must be in [0, 1), got ", b1);
  TORCH_CHECK(b2 >= 0 && b2 < 1, "Adamax: beta2 must be in [0, 1), got ", b2);
  TORCH_CHECK(defaults.weight_decay() >= 0, "Adamax: invalid weight_decay ",
              defaults.weight_decay());
}

torch::Tensor Adamax::step(LossClosure closure) {
  torch::NoGradGuard no_grad;
  torch::Tensor loss = {};
  if (closure != nullptr) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const AdamaxOptions&>(group.options());
    const auto [beta1, beta2] = o.betas();
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto grad = p.grad();
      TORCH_CHECK(!grad.is_sparse(), "Adamax does not support sparse gradients");
      const auto key = optimizerStateKey(p.unsafeGetTensorImpl());
      auto it = state_.find(key);
      if (it == state_.end()) {
        auto s = std::make_unique<AdamaxParamState>();
        s->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        s->exp_inf(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        it = state_.emplace(key, std::move(s)).first;
      }
      auto& s = static_cast<AdamaxParamState&>(*it->second);
      s.step(s.step() + 1);
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      s.exp_avg().mul_(beta1).add_(grad, 1 - beta1);
      // max(β2·u, |g| + eps), elementwise, in place.
      torch::maximum_out(s.exp_inf(), s.exp_inf().mul_(beta2), grad.abs().add_(o.eps()));
      const double clr = o.lr() / (1 - std::pow(beta1, static_cast<double>(s.step())));
      p.addcdiv_(s.exp_avg(), s.exp_inf(), -clr);
    }
  }
  return loss;
}

void Adamax::save(torch::serialize::OutputArchive& archive) const {
  torch::optim::serialize<AdamaxParamState, AdamaxOptions>(archive, *this);
}

void Adamax::load(torch::serialize::InputArchive& archive) {
  torch::optim::serialize<AdamaxParamState, AdamaxOptions>(archive, *this);
}

}  // namespace recurlab::experiments
