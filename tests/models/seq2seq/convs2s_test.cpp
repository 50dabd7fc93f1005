#include "models/seq2seq/convs2s.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cmath>

#include "models/layers/gated_conv_block.h"

namespace recurlab::models {
namespace {

constexpr int64_t kVocabulary = 11, C = 6, E = 5, k = 3;

// The weight-normalized conv's effective weight (2C, C, k).
torch::Tensor convWeight(GatedConvBlockImpl& block) {
  const torch::Tensor v = block.conv->weight;
  return v * (block.weight_g / v.pow(2).sum({1, 2}, true).sqrt());
}

// out[t] = GLU(b + sum_j W[:, :, j] x[t + j - shift]), zero outside 0..L-1.
torch::Tensor naiveGluConv(GatedConvBlockImpl& block, const torch::Tensor& x, int64_t shift) {
  const torch::Tensor w = convWeight(block);
  std::vector<torch::Tensor> out;
  for (int64_t t = 0; t < x.size(0); ++t) {
    torch::Tensor y = block.conv->bias.clone();
    for (int64_t j = 0; j < k; ++j) {
      const int64_t s = t + j - shift;
      if (s >= 0 && s < x.size(0)) y = y + w.select(2, j).matmul(x[s]);
    }
    out.push_back(y.narrow(0, 0, C) * torch::sigmoid(y.narrow(0, C, C)));
  }
  return torch::stack(out);
}

torch::Tensor apply(torch::nn::ModuleList list, size_t i, const torch::Tensor& x) {
  return list[i]->as<WeightNormLinearImpl>()->forward(x);
}

// Gehring et al. 2017 §3 written out for one sentence, one encoder and one decoder layer,
// in double, from the model's own parameters.
TEST(ConvS2S, EqualsANaiveDoubleReferenceOfOneSentence) {
  torch::manual_seed(9);
  auto base = makeSeq2SeqModel("convs2s",
                               {{"embed_dim", E}, {"channels", C}, {"out_embed_dim", 4},
                                {"encoder_layers", 1}, {"decoder_layers", 1},
                                {"kernel_width", k}, {"dropout", 0.2}, {"max_positions", 16}},
                               kVocabulary, Seq2SeqSpecialIds{});
  auto model = std::dynamic_pointer_cast<ConvS2S>(base);
  ASSERT_TRUE(model);
  model->to(torch::kDouble);
  model->eval();
  torch::NoGradGuard no_grad;
  for (auto& p : model->parameters()) p.add_(torch::randn_like(p) * 0.05);  // nonzero biases
  const torch::Tensor source = torch::tensor({5, 7, 4, 9}, torch::kLong).view({4, 1});
  const torch::Tensor target = torch::tensor({2, 6, 8}, torch::kLong).view({3, 1});
  const int64_t S = 4, T = 3;
  const double r = std::sqrt(0.5);
  // Encoder.
  const torch::Tensor emb = model->encoder_tokens->weight.index_select(0, source.view(-1)) +
                            model->encoder_positions->weight.narrow(0, 2, S);  // (S, E)
  const torch::Tensor x0 = model->encoder_fc1->forward(emb);
  auto* encoder_conv = model->encoder_convs[0]->as<GatedConvBlockImpl>();
  const torch::Tensor x1 = (naiveGluConv(*encoder_conv, x0, 1) + x0) * r;
  const torch::Tensor keys = model->encoder_fc2->forward(x1);  // (S, E)
  const torch::Tensor values = (keys + emb) * r;
  // Decoder.
  const torch::Tensor g = model->decoder_tokens->weight.index_select(0, target.view(-1)) +
                          model->decoder_positions->weight.narrow(0, 2, T);  // (T, E)
  const torch::Tensor h0 = model->decoder_fc1->forward(g);
  auto* decoder_conv = model->decoder_convs[0]->as<GatedConvBlockImpl>();
  const torch::Tensor h = naiveGluConv(*decoder_conv, h0, k - 1);  // causal
  const torch::Tensor z = (apply(model->attention_in, 0, h) + g) * r;
  const torch::Tensor a = torch::softmax(z.matmul(keys.t()), 1);  // (T, S)
  const torch::Tensor c = a.matmul(values) * std::sqrt(static_cast<double>(S));
  const torch::Tensor x = ((apply(model->attention_out, 0, c) + h) * r + h0) * r;
  const torch::Tensor expected = model->decoder_fc3->forward(model->decoder_fc2->forward(x));

  const EncoderMemory memory = model->encode(source, torch::zeros({S, 1}, torch::kBool));
  const DecoderOutput out = model->decode(target, {}, memory, {}, true);
  EXPECT_LE((out.logits.squeeze(1) - expected).abs().max().item<double>(), 1e-12);
  EXPECT_LE((out.attention[0].squeeze(0) - a).abs().max().item<double>(), 1e-12);
}

// The encoder output carries its gradient scaled by 1 / (2 · decoder layers) (§3.4).
TEST(ConvS2S, EncoderGradientIsScaledByOneOverTwiceTheAttentionLayers) {
  for (int64_t layers : {1, 3}) {
    torch::manual_seed(3);
    auto model = std::dynamic_pointer_cast<ConvS2S>(makeSeq2SeqModel(
        "convs2s",
        {{"embed_dim", E}, {"channels", C}, {"encoder_layers", 1}, {"decoder_layers", layers},
         {"dropout", 0.0}},
        kVocabulary, Seq2SeqSpecialIds{}));
    const torch::Tensor source = torch::tensor({5, 7, 4}, torch::kLong).view({3, 1});
    const EncoderMemory memory = model->encode(source, torch::zeros({3, 1}, torch::kBool));
    memory.states.sum().backward();
    const torch::Tensor scaled = model->encoder_fc2->bias.grad().clone();
    // d(sum of fc2 outputs over 3 steps)/d bias = 3 per unit, times the scale.
    EXPECT_LE((scaled - 3.0 / (2.0 * static_cast<double>(layers))).abs().max().item<double>(),
              1e-6)
        << layers;
  }
}

}  // namespace
}  // namespace recurlab::models
