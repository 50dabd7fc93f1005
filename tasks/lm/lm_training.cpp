#include "tasks/lm/lm_training.h"

#include <torch/torch.h>

#include <limits>

#include "experiments/training/trainer.h"

namespace recurlab::experiments {
namespace {

struct LmBatch : TrainBatch {
  int64_t epoch = 0, index = 0;
  BpttSegment segment;

  // Streams i*B/n .. (i+1)*B/n of the segment for data-parallel rank i of n: each rank
  // carries the state of its own streams from segment to segment.
  std::unique_ptr<TrainBatch> part(int i, int n) const override {
    const int64_t b = segment.inputs.size(1), from = b * i / n, to = b * (i + 1) / n;
    auto p = std::make_unique<LmBatch>();
    p->epoch = epoch;
    p->index = index;
    p->segment = {segment.inputs.narrow(1, from, to - from),
                  segment.targets.narrow(1, from, to - from)};
    return p;
  }
  bool empty() const override { return segment.inputs.size(1) == 0; }
};

void flatten(const models::SequenceState& s, std::vector<torch::Tensor>& out) {
  for (const auto& t : s.tensors) out.push_back(t);
  for (const auto& c : s.children) flatten(c, out);
}

models::SequenceState unflatten(const models::SequenceState& shape,
                                const std::vector<torch::Tensor>& flat, size_t& i) {
  models::SequenceState s;
  for (size_t k = 0; k < shape.tensors.size(); ++k) s.tensors.push_back(flat.at(i++));
  for (const auto& c : shape.children) s.children.push_back(unflatten(c, flat, i));
  return s;
}

}  // namespace

double meanNats(LanguageModel& model, const BpttStreams& streams, torch::Device device) {
  torch::NoGradGuard no_grad;
  const bool was_training = model->is_training();
  model->eval();
  models::SequenceState state;
  // Summed on the device in float64 (each segment's sum as the float it is), read once.
  auto nats = torch::zeros({}, torch::TensorOptions().dtype(torch::kDouble).device(device));
  for (int64_t k = 0; k < streams.segments(); ++k) {
    const auto seg = streams.segment(k);
    auto [logits, next] = model->forward(seg.inputs.to(device), state);
    nats += torch::nn::functional::cross_entropy(
                logits.reshape({-1, logits.size(2)}), seg.targets.to(device).reshape({-1}),
                torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                .to(torch::kDouble);
    state = std::move(next);
  }
  model->train(was_training);
  return nats.item<double>() / static_cast<double>(streams.targets());
}

LmTrainingModuleImpl::LmTrainingModuleImpl(LanguageModel model)
    : lm(register_module("lm", std::move(model))) {
  {  // the state's structure, from one step of one stream
    torch::NoGradGuard no_grad;
    const bool was_training = lm->is_training();
    lm->eval();
    shape_ = lm->forward(torch::zeros({1, 1}, torch::kLong), {}).second;
    lm->train(was_training);
  }
  std::vector<torch::Tensor> flat;
  flatten(shape_, flat);
  for (size_t i = 0; i < flat.size(); ++i)
    state_.push_back(register_buffer("carried_state_" + std::to_string(i), torch::zeros({0})));
  position_ = register_buffer("carried_position", torch::tensor({int64_t{0}, int64_t{-1}}));
  best = register_buffer("best_valid_test",
                         torch::tensor({std::numeric_limits<double>::infinity(),
                                        std::numeric_limits<double>::quiet_NaN()},
                                       torch::kDouble));
}

std::vector<torch::Tensor> LmTrainingModuleImpl::carriedBuffers() const {
  std::vector<torch::Tensor> own = state_;
  own.push_back(position_);
  return own;
}

models::SequenceState LmTrainingModuleImpl::carried(int64_t epoch, int64_t index) const {
  if (index == 0 || state_.empty()) return {};
  if (!host_position_) {
    const auto p = position_.to(torch::kCPU);
    host_position_ = std::array<int64_t, 2>{p[0].item<int64_t>(), p[1].item<int64_t>()};
  }
  if ((*host_position_)[0] != epoch || (*host_position_)[1] != index) return {};
  // Copies: carry() replaces the buffers while this segment's graph still holds its input.
  std::vector<torch::Tensor> copies;
  for (const auto& t : state_) copies.push_back(t.clone());
  size_t i = 0;
  return unflatten(shape_, copies, i);
}

void LmTrainingModuleImpl::carry(const models::SequenceState& state, int64_t epoch,
                                 int64_t next_index) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> flat;
  flatten(state.detached(), flat);
  TORCH_CHECK(flat.size() == state_.size(), "language model: the encoder's state has ",
              flat.size(), " tensors, expected ", state_.size());
  for (size_t i = 0; i < flat.size(); ++i) {
    // Kept in float32 (the buffers' dtype) when autocast gave a bfloat16/float16 state: exact,
    // and set_ would otherwise read its storage as float32.
    const auto type = flat[i].scalar_type();
    const bool reduced = type == torch::kBFloat16 || type == torch::kHalf;
    state_[i].set_((reduced ? flat[i].to(torch::kFloat) : flat[i]).contiguous());
  }
  position_[0].fill_(epoch);
  position_[1].fill_(next_index);
  host_position_ = std::array<int64_t, 2>{epoch, next_index};
}

LmTraining::LmTraining(LanguageModel lm, const BpttStreams& train, const BpttStreams& valid,
                       const BpttStreams& test, torch::Device device)
    : module_(std::move(lm)), train_(train), valid_(valid), test_(test), device_(device) {}

std::unique_ptr<TrainBatch> LmTraining::batch(int64_t epoch, int64_t index) {
  auto b = std::make_unique<LmBatch>();
  b->epoch = epoch;
  b->index = index;
  b->segment = train_.segment(index);
  return b;
}

StepOutput LmTraining::forward(const TrainBatch& batch) {
  const auto& b = static_cast<const LmBatch&>(batch);
  auto [logits, next] = module_->lm->forward(b.segment.inputs.to(device_),
                                             module_->carried(b.epoch, b.index));
  module_->carry(next, b.epoch, b.index + 1);
  StepOutput out;
  out.loss = torch::nn::functional::cross_entropy(logits.reshape({-1, logits.size(2)}),
                                                  b.segment.targets.to(device_).reshape({-1}));
  out.examples = b.segment.targets.numel();
  out.tally_values = (out.loss.detach().to(torch::kDouble) * static_cast<double>(out.examples))
                         .reshape({1});
  return out;
}

std::vector<double> LmTraining::evaluate() {
  const double valid = meanNats(module_->lm, valid_, device_);
  auto& best = module_->best;
  if (valid < best[0].item<double>()) {
    const double test = meanNats(module_->lm, test_, device_);
    torch::NoGradGuard no_grad;
    best[0].fill_(valid);
    best[1].fill_(test);
  }
  return {valid, best[1].item<double>()};
}

}  // namespace recurlab::experiments
