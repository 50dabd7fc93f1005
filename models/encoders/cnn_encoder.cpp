// Adds "cnn": Kim (2014)'s sentence CNN as a SequenceEncoder. One Conv1d per window
// width, ReLU; the classifier head max-pools over time. Looks ahead (not causal), carries no
// state.
#include <torch/torch.h>

#include "common/json_options.h"
#include "models/encoders/builtin_encoders.h"

namespace recurlab::models {
namespace {

class CnnEncoder : public SequenceEncoder {
 public:
  CnnEncoder(int64_t input_size, std::vector<int64_t> widths, int64_t maps)
      : widths_(std::move(widths)), maps_(maps) {
    for (size_t i = 0; i < widths_.size(); ++i)
      convs_.push_back(register_module(
          "conv" + std::to_string(i),
          torch::nn::Conv1d(torch::nn::Conv1dOptions(input_size, maps_, widths_[i]))));
  }

  // Each width w sees the input right-padded with w-1 zero steps, so every width yields one
  // feature per input step (position t covers steps t..t+w-1) and sentences shorter than w
  // still get features. Features at pad steps are zeroed; after ReLU they are >= 0, so they
  // never win the max over time either.
  int64_t outputSize() const override { return maps_ * static_cast<int64_t>(widths_.size()); }
  bool causal() const override { return false; }

 protected:
  SequenceOutput encodeSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                const SequenceState& state) override {
    TORCH_CHECK(state.empty(), "cnn: the sentence CNN looks ahead and carries no state, but "
                               "got one");
    auto x = input.permute({1, 2, 0});  // (B, in, L)
    if (mask_pad.defined()) x = x.masked_fill(mask_pad.t().unsqueeze(1), 0.0);
    std::vector<torch::Tensor> features;
    for (size_t i = 0; i < convs_.size(); ++i) {
      auto padded = torch::constant_pad_nd(x, {0, widths_[i] - 1});
      features.push_back(torch::relu(convs_[i]->forward(padded)));  // (B, maps, L)
    }
    auto h = torch::cat(features, 1).permute({2, 0, 1});  // (L, B, maps * widths)
    if (mask_pad.defined()) h = h.masked_fill(mask_pad.unsqueeze(2), 0.0);
    return {h, {}};
  }

 private:
  std::vector<int64_t> widths_;
  int64_t maps_;
  std::vector<torch::nn::Conv1d> convs_;
};

}  // namespace

void addCnnEncoders(const EncoderSink& add) {
  add(
      "cnn", "Kim (2014) sentence CNN: one convolution per window width, ReLU, max over "
             "time; keys: widths (default [3,4,5]), maps (default 100)",
      [](const nlohmann::json& config, int64_t input_size) -> std::shared_ptr<SequenceEncoder> {
        JsonOptions j(config, "model 'cnn'");
        auto widths = j.getIntList("widths", {3, 4, 5}, 1, 64);
        const int64_t maps = j.getInt("maps", 100, 1, 1 << 16);
        j.finish();
        return std::make_shared<CnnEncoder>(input_size, widths, maps);
      });
}

}  // namespace recurlab::models
