#include "tasks/qa/reader_layers.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <vector>

#include "tasks/qa/span_decoding.h"
#include "tests/support/gradient_check.h"

namespace recurlab::experiments::qa {
namespace {

const auto kDouble = torch::TensorOptions().dtype(torch::kDouble);

// Plain-loop references in double.
std::vector<double> softmaxMasked(const std::vector<double>& s, const std::vector<bool>& pad) {
  double m = -INFINITY;
  for (size_t j = 0; j < s.size(); ++j) if (!pad[j]) m = std::max(m, s[j]);
  std::vector<double> e(s.size(), 0.0);
  double z = 0;
  for (size_t j = 0; j < s.size(); ++j) if (!pad[j]) z += (e[j] = std::exp(s[j] - m));
  for (auto& x : e) x /= z;
  return e;
}

struct Inputs {
  torch::Tensor p, q, q_pad, p_pad, W, b, w1, b1;
};

Inputs makeInputs() {
  torch::manual_seed(7);
  Inputs x;
  x.p = torch::randn({2, 4, 3}, kDouble);
  x.q = torch::randn({2, 3, 3}, kDouble);
  x.q_pad = torch::tensor({0, 0, 1, 0, 0, 0}, torch::kBool).view({2, 3});
  x.p_pad = torch::tensor({0, 0, 0, 1, 0, 0, 0, 0}, torch::kBool).view({2, 4});
  x.W = torch::randn({3, 3}, kDouble);
  x.b = torch::randn({3}, kDouble);
  x.w1 = torch::randn({1, 3}, kDouble);
  x.b1 = torch::randn({1}, kDouble);
  return x;
}

double relu(double v) { return v > 0 ? v : 0; }

TEST(ReaderLayers, AlignedQuestionEmbeddingEqualsLoops) {
  auto x = makeInputs();
  const auto got = alignedQuestionEmbedding(x.p, x.q, x.q_pad, x.W, x.b);
  auto proj = [&](const torch::Tensor& v) {  // relu(W v + b)
    std::vector<double> out(3);
    for (int i = 0; i < 3; ++i) {
      double s = x.b[i].item<double>();
      for (int k = 0; k < 3; ++k) s += x.W[i][k].item<double>() * v[k].item<double>();
      out[static_cast<size_t>(i)] = relu(s);
    }
    return out;
  };
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 4; ++i) {
      const auto pi = proj(x.p[b][i]);
      std::vector<double> s(3);
      std::vector<bool> pad(3);
      for (int j = 0; j < 3; ++j) {
        const auto qj = proj(x.q[b][j]);
        for (int k = 0; k < 3; ++k) s[static_cast<size_t>(j)] += pi[static_cast<size_t>(k)] * qj[static_cast<size_t>(k)];
        pad[static_cast<size_t>(j)] = x.q_pad[b][j].item<bool>();
      }
      const auto a = softmaxMasked(s, pad);
      for (int k = 0; k < 3; ++k) {
        double want = 0;
        for (int j = 0; j < 3; ++j) want += a[static_cast<size_t>(j)] * x.q[b][j][k].item<double>();
        EXPECT_NEAR(got[b][i][k].item<double>(), want, 1e-12) << b << " " << i << " " << k;
      }
    }
}

TEST(ReaderLayers, SelfAttentionPoolAndBilinearEqualLoops) {
  auto x = makeInputs();
  const auto pooled = selfAttentionPool(x.q, x.q_pad, x.w1, x.b1);
  for (int b = 0; b < 2; ++b) {
    std::vector<double> s(3);
    std::vector<bool> pad(3);
    for (int j = 0; j < 3; ++j) {
      s[static_cast<size_t>(j)] = x.b1[0].item<double>();
      for (int k = 0; k < 3; ++k) s[static_cast<size_t>(j)] += x.w1[0][k].item<double>() * x.q[b][j][k].item<double>();
      pad[static_cast<size_t>(j)] = x.q_pad[b][j].item<bool>();
    }
    const auto a = softmaxMasked(s, pad);
    for (int k = 0; k < 3; ++k) {
      double want = 0;
      for (int j = 0; j < 3; ++j) want += a[static_cast<size_t>(j)] * x.q[b][j][k].item<double>();
      EXPECT_NEAR(pooled[b][k].item<double>(), want, 1e-12);
    }
  }
  const auto qv = torch::randn({2, 3}, kDouble);
  const auto scores = bilinearScores(x.p, qv, x.p_pad, x.W, x.b);
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 4; ++i) {
      if (x.p_pad[b][i].item<bool>()) {
        EXPECT_TRUE(std::isinf(scores[b][i].item<double>()));
        continue;
      }
      double want = 0;
      for (int r = 0; r < 3; ++r) {
        double wq = x.b[r].item<double>();
        for (int k = 0; k < 3; ++k) wq += x.W[r][k].item<double>() * qv[b][k].item<double>();
        want += x.p[b][i][r].item<double>() * wq;
      }
      EXPECT_NEAR(scores[b][i].item<double>(), want, 1e-12);
    }
}

TEST(ReaderLayers, GradientsMatchFiniteDifferences) {
  auto x = makeInputs();
  for (auto* t : {&x.p, &x.q, &x.W, &x.b, &x.w1, &x.b1}) t->requires_grad_(true);
  const auto target = torch::randn({2, 4}, kDouble);
  auto loss = [&] {
    const auto aligned = alignedQuestionEmbedding(x.p, x.q, x.q_pad, x.W, x.b);
    const auto pooled = selfAttentionPool(x.q, x.q_pad, x.w1, x.b1);
    const auto s = bilinearScores(aligned, pooled, x.p_pad, x.W, x.b);
    // log_softmax over real tokens (the training loss's form).
    return (torch::log_softmax(s, 1).masked_fill(x.p_pad, 0.0) * target).sum();
  };
  const auto r = testing::checkGradients(loss, {x.p, x.q, x.W, x.b, x.w1, x.b1},
                                         {"p", "q", "W", "b", "w", "c"});
  EXPECT_TRUE(r.ok) << r.report;
}

TEST(SpanDecoding, BestSpanWithinMaxLengthFirstOnTies) {
  // The best product overall (0 with 3) is 4 tokens long: with max_len 3 it is excluded.
  const std::vector<double> s = {0.6, 0.1, 0.2, 0.1}, e = {0.05, 0.1, 0.05, 0.8};
  const auto all = bestSpan(s, e, 15);
  EXPECT_EQ(all.start, 0);
  EXPECT_EQ(all.end, 3);
  EXPECT_DOUBLE_EQ(all.score, 0.6 * 0.8);
  const auto capped = bestSpan(s, e, 3);
  EXPECT_EQ(capped.start, 2);  // 0.2 * 0.8 = 0.16 beats 0.1 * 0.8 and 0.6 * 0.1
  EXPECT_EQ(capped.end, 3);
  EXPECT_DOUBLE_EQ(capped.score, 0.2 * 0.8);
  // Ties: smallest start, then smallest end. End before start is never chosen.
  const auto tie = bestSpan({0.5, 0.5}, {0.5, 0.5}, 15);
  EXPECT_EQ(tie.start, 0);
  EXPECT_EQ(tie.end, 0);
  // (1, 0) would score 0.81; of the rest (0, 0) and (1, 1) tie at 0.09: the first wins.
  const auto order = bestSpan({0.1, 0.9}, {0.9, 0.1}, 15);
  EXPECT_EQ(order.start, 0);
  EXPECT_EQ(order.end, 0);
  EXPECT_DOUBLE_EQ(order.score, 0.1 * 0.9);
  EXPECT_THROW(bestSpan({0.1}, {0.1, 0.2}, 15), std::invalid_argument);
}

}  // namespace
}  // namespace recurlab::experiments::qa
