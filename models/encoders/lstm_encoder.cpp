// Adds "lstm": torch::nn::LSTM as a SequenceEncoder (cuDNN's on a GPU).
#include <torch/torch.h>

#include "common/json_options.h"
#include "models/encoders/builtin_encoders.h"

namespace recurlab::models {
namespace {

class LstmEncoder : public SequenceEncoder {
 public:
  LstmEncoder(int64_t input_size, int64_t hidden, int64_t layers, bool bidirectional,
              double dropout)
      : lstm_(register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(input_size, hidden)
                                                          .num_layers(layers)
                                                          .bidirectional(bidirectional)
                                                          .dropout(dropout)))),
        out_((bidirectional ? 2 : 1) * hidden),
        layers_(layers),
        hidden_(hidden),
        bidirectional_(bidirectional) {}

  int64_t outputSize() const override { return out_; }
  bool causal() const override { return !bidirectional_; }

 protected:
  // State (unidirectional only): [h, c], each (B, layers, hidden) after each sequence's last
  // real step. With pads the steps are packed, so that a sequence's state stops at its end.
  SequenceOutput encodeSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                const SequenceState& state) override {
    if (bidirectional_) {
      TORCH_CHECK(state.empty(), "lstm: a bidirectional LSTM looks ahead and carries no state, "
                                 "but got one");
      // With pads the steps are packed, so that the backward direction starts at each
      // sequence's last real step (run on the padded batch, it would read the pads first).
      if (!mask_pad.defined() || !mask_pad.any().item<bool>())
        return {std::get<0>(lstm_->forward(input)), {}};
      if (input.device().is_cpu()) return {bidirectionalOnPaddedCpu(input, mask_pad), {}};
      const torch::Tensor lengths = mask_pad.logical_not().sum(0).to(torch::kCPU, torch::kLong);
      auto packed = torch::nn::utils::rnn::pack_padded_sequence(input, lengths.clamp_min(1),
                                                                /*batch_first=*/false,
                                                                /*enforce_sorted=*/false);
      const torch::Tensor h = std::get<0>(torch::nn::utils::rnn::pad_packed_sequence(
          std::get<0>(lstm_->forward_with_packed_input(packed)), /*batch_first=*/false,
          /*padding_value=*/0.0, /*total_length=*/input.size(0)));
      return {h.masked_fill(mask_pad.unsqueeze(2), 0.0), {}};
    }
    const int64_t L = input.size(0), B = input.size(1);
    torch::optional<std::tuple<torch::Tensor, torch::Tensor>> hx;
    if (!state.empty()) {
      const torch::Tensor h0 = state.tensor(0, "lstm"), c0 = state.tensor(1, "lstm");
      const std::vector<int64_t> want{B, layers_, hidden_};
      TORCH_CHECK(h0.sizes() == c10::IntArrayRef(want) && c0.sizes() == c10::IntArrayRef(want),
                  "lstm: the state's h and c must be (batch, layers, hidden) = ", want,
                  ", got ", h0.sizes(), " and ", c0.sizes());
      hx = std::make_tuple(h0.transpose(0, 1).contiguous(), c0.transpose(0, 1).contiguous());
    }
    const bool padded = mask_pad.defined() && mask_pad.any().item<bool>();
    torch::Tensor features, h_n, c_n;
    if (!padded) {
      auto [out, last] = lstm_->forward(input, hx);
      features = out;
      std::tie(h_n, c_n) = last;
    } else {
      // A sequence with no real step in this segment keeps its state (its length is raised to
      // one for packing, and its new state discarded below).
      const torch::Tensor lengths = mask_pad.logical_not().sum(0).to(torch::kCPU, torch::kLong);
      const torch::Tensor empty_rows = lengths.eq(0).to(input.device());
      auto packed = torch::nn::utils::rnn::pack_padded_sequence(input, lengths.clamp_min(1),
                                                                /*batch_first=*/false,
                                                                /*enforce_sorted=*/false);
      auto [out, last] = lstm_->forward_with_packed_input(packed, hx);
      features = std::get<0>(torch::nn::utils::rnn::pad_packed_sequence(
          out, /*batch_first=*/false, /*padding_value=*/0.0, /*total_length=*/L));
      features = features.masked_fill(mask_pad.unsqueeze(2), 0.0);
      std::tie(h_n, c_n) = last;
      if (hx && empty_rows.any().item<bool>()) {
        const torch::Tensor keep_old = empty_rows.view({1, B, 1});
        h_n = torch::where(keep_old, std::get<0>(*hx), h_n);
        c_n = torch::where(keep_old, std::get<1>(*hx), c_n);
      }
    }
    return {features, SequenceState{{h_n.transpose(0, 1), c_n.transpose(0, 1)}, {}}};
  }

 private:
  // The packed steps of a bidirectional LSTM on a CPU without packing: ATen's CPU LSTM over a
  // packed sequence takes each step as a slice of the packed input, and each slice's backward
  // zero-fills a tensor the size of the whole input: O(L²) per layer and direction (a DrQA
  // reader's 3-layer LSTM spent most of its epoch in those fills). Here each layer runs its
  // forward direction on the padded batch (pads come after every real step, so they reach no
  // real output) and its reverse direction on a copy with each sequence's real steps reversed
  // in place (pads stay behind them), then reverses back: the packed result, in O(L).
  torch::Tensor bidirectionalOnPaddedCpu(const torch::Tensor& input,
                                         const torch::Tensor& mask_pad) {
    const int64_t L = input.size(0), B = input.size(1);
    const torch::Tensor lengths = mask_pad.logical_not().sum(0).to(torch::kLong);  // (B)
    const torch::Tensor t = torch::arange(L, lengths.options()).unsqueeze(1);   // (L, 1)
    // rev[t, b] = len_b - 1 - t on real steps, t on pads: its own inverse.
    const torch::Tensor rev = torch::where(t < lengths.unsqueeze(0), lengths.unsqueeze(0) - 1 - t,
                                           t.expand({L, B}));
    auto params = lstm_->named_parameters(/*recurse=*/false);
    auto direction = [&](int64_t layer, const char* suffix) {
      const std::string l = std::to_string(layer) + suffix;
      return std::vector<torch::Tensor>{params["weight_ih_l" + l], params["weight_hh_l" + l],
                                        params["bias_ih_l" + l], params["bias_hh_l" + l]};
    };
    const double dropout = is_training() ? lstm_->options.dropout() : 0.0;
    torch::Tensor x = input;
    for (int64_t layer = 0; layer < layers_; ++layer) {
      if (layer > 0 && dropout > 0) x = torch::dropout(x, dropout, /*train=*/true);
      const torch::Tensor zeros = torch::zeros({1, B, hidden_}, x.options());
      const auto run = [&](const torch::Tensor& in, const std::vector<torch::Tensor>& w) {
        return std::get<0>(at::lstm(in, {zeros, zeros}, w, /*has_biases=*/true,
                                    /*num_layers=*/1, /*dropout=*/0.0, is_training(),
                                    /*bidirectional=*/false, /*batch_first=*/false));
      };
      const torch::Tensor idx_in = rev.unsqueeze(2).expand({L, B, x.size(2)});
      const torch::Tensor idx_out = rev.unsqueeze(2).expand({L, B, hidden_});
      const torch::Tensor forward = run(x, direction(layer, ""));
      const torch::Tensor backward =
          run(x.gather(0, idx_in), direction(layer, "_reverse")).gather(0, idx_out);
      x = torch::cat({forward, backward}, 2);
    }
    return x.masked_fill(mask_pad.unsqueeze(2), 0.0);
  }

  torch::nn::LSTM lstm_;
  int64_t out_, layers_, hidden_;
  bool bidirectional_;
};

}  // namespace

void addLstmEncoders(const EncoderSink& add) {
  add(
      "lstm", "LSTM baseline (torch::nn::LSTM); keys: layers, hidden, bidirectional, dropout",
      [](const nlohmann::json& config, int64_t input_size) -> std::shared_ptr<SequenceEncoder> {
        JsonOptions j(config, "model 'lstm'");
        const int64_t layers = j.getInt("layers", 1, 1, 64);
        const int64_t hidden = j.getInt("hidden", 256, 1, 1 << 16);
        const bool bidir = j.getBool("bidirectional", false);
        const double dropout = j.getDouble("dropout", 0.0, 0.0, 0.99);
        j.finish();
        return std::make_shared<LstmEncoder>(input_size, hidden, layers, bidir, dropout);
      });
}

}  // namespace recurlab::models
