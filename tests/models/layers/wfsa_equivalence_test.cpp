// Peng et al. (2018), Propositions 11-13: a 2-window QRNN, the n-gram RCNN and the single-layer
// ISAN (the tests' IsanLayer) each compute, per unit, the forward algorithm of a small WFSA
// over the real semiring. We build those WFSAs for concrete inputs (a 3-symbol alphabet with
// fixed embeddings) from the layers' own parameters and compare the forward-algorithm scores
// with the layers' outputs in double.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>

#include "tests/support/isan_layer.h"
#include "models/layers/ngram_rcnn_layer.h"
#include "models/layers/qrnn_layer.h"

namespace recurlab::models {
namespace {

constexpr int64_t kSymbols = 3, kInput = 5, kHidden = 4;
// The forward algorithm and the fused kernels sum the same few products in different orders.
constexpr double kTol = 1e-10;

// A WFSA over the real semiring whose transition matrix may depend on the position (it is
// built for one input string): score_t = λᵀ T_1 ... T_t ρ.
struct Wfsa {
  torch::Tensor initial, final;                          // (N)
  std::function<torch::Tensor(int64_t t)> transition;   // (N, N) for the symbol at step t

  std::vector<double> prefixScores(int64_t length) const {
    std::vector<double> out;
    torch::Tensor alpha = initial.unsqueeze(0);
    for (int64_t t = 0; t < length; ++t) {
      alpha = alpha.mm(transition(t));
      out.push_back(alpha.mv(final).item<double>());
    }
    return out;
  }
};

torch::Tensor embeddings() {
  torch::manual_seed(5);
  return torch::randn({kSymbols, kInput}, torch::kDouble);
}

const std::vector<std::vector<int64_t>> kStrings = {{0, 1, 2, 2, 1, 0, 0}, {2, 2, 0, 1, 1, 2, 1}};

torch::Tensor embed(const torch::Tensor& E, const std::vector<int64_t>& s) {
  return E.index_select(0, torch::tensor(s, torch::kLong)).unsqueeze(1);  // (T, 1, input)
}

// Proposition 11: single-layer 2-window QRNN with f-pooling, c_t = f_t c_{t-1} + u_t,
// u_t = (1 - f_t) tanh(V_u v_{t-1} + W_u v_t + b_u). States: q0 (initial), p_α (the last symbol
// was α, nothing counted yet), q_α (final, last symbol α). The proof's construction needs an
// x_{t-1} for every counted step; our QRNN zero-pads x_0, so we add arcs q0 -> q_β weighted by
// μ_BOS(β), the update computed with the zero vector as previous input.
TEST(WfsaEquivalence, TwoWindowQrnnIsProposition11Wfsa) {
  QrnnLayer qrnn(QrnnLayerOptions{kInput, kHidden, 2, false, 0.0});
  qrnn->to(torch::kDouble);
  qrnn->eval();
  torch::NoGradGuard no_grad;
  {  // nonzero biases so the test sees them
    qrnn->bias.uniform_(-0.5, 0.5);
  }
  const torch::Tensor E = embeddings();
  // Gate values for (previous symbol α or BOS = kSymbols, current symbol β).
  auto gates = [&](int64_t alpha, int64_t beta) {
    torch::Tensor u;
    if (alpha == kSymbols) {
      u = qrnn->preActivations(E[beta].view({1, 1, kInput}))[0][0];
    } else {
      u = qrnn->preActivations(torch::stack({E[alpha], E[beta]}).unsqueeze(1))[1][0];
    }
    u = u.view({kHidden, 2});
    const torch::Tensor f = torch::sigmoid(u.select(1, 1));
    return std::make_pair((1 - f) * torch::tanh(u.select(1, 0)), f);  // (μ, φ) per unit
  };
  const int64_t N = 2 * kSymbols + 1;
  auto p = [](int64_t a) { return 1 + a; };
  auto q = [](int64_t a) { return 1 + kSymbols + a; };
  for (const auto& s : kStrings) {
    const torch::Tensor h = qrnn->forward(embed(E, s)).first;  // f-pooling: h = c
    for (int64_t i = 0; i < kHidden; ++i) {
      Wfsa w;
      w.initial = torch::zeros({N}, torch::kDouble);
      w.initial[0] = 1.0;
      w.final = torch::zeros({N}, torch::kDouble);
      for (int64_t a = 0; a < kSymbols; ++a) w.final[q(a)] = 1.0;
      w.transition = [&](int64_t t) {
        const int64_t beta = s[t];
        torch::Tensor T = torch::zeros({N, N}, torch::kDouble);
        T[0][p(beta)] = 1.0;
        T[0][q(beta)] = gates(kSymbols, beta).first[i];
        for (int64_t a = 0; a < kSymbols; ++a) {
          const auto [mu, phi] = gates(a, beta);
          T[p(a)][p(beta)] = 1.0;
          T[p(a)][q(beta)] = mu[i];
          T[q(a)][q(beta)] = phi[i];
        }
        return T;
      };
      const auto scores = w.prefixScores(static_cast<int64_t>(s.size()));
      for (size_t t = 0; t < s.size(); ++t)
        EXPECT_NEAR(h[t][0][i].item<double>(), scores[t], kTol) << "t " << t << " unit " << i;
    }
  }
}

// Proposition 12: the (n+1)-state WFSA q0 -> q1 -> ... -> qn with loops 1 on q0 and φ on
// q1..qn, arcs q_{j-1} -> q_j weighted μ_j; q_n final. Its score is c^(n); the layer's output
// without the gate is tanh(c^(n)).
TEST(WfsaEquivalence, NgramRcnnIsProposition12Wfsa) {
  const torch::Tensor E = embeddings();
  for (int64_t n = 1; n <= 4; ++n) {
    NgramRcnnLayer layer(NgramRcnnLayerOptions{kInput, kHidden, n, false});
    layer->to(torch::kDouble);
    torch::NoGradGuard no_grad;
    layer->gate_bias.uniform_(-0.5, 0.5);
    for (const auto& s : kStrings) {
      const auto [h, last] = layer->forward(embed(E, s));
      const torch::Tensor U = layer->preActivations(embed(E, s)).view({-1, kHidden, n + 1});
      for (int64_t i = 0; i < kHidden; ++i) {
        Wfsa w;
        w.initial = torch::zeros({n + 1}, torch::kDouble);
        w.initial[0] = 1.0;
        w.final = torch::zeros({n + 1}, torch::kDouble);
        w.final[n] = 1.0;
        w.transition = [&](int64_t t) {
          const torch::Tensor u = U[t][i];
          const double phi = torch::sigmoid(u[n]).item<double>();
          torch::Tensor T = torch::zeros({n + 1, n + 1}, torch::kDouble);
          T[0][0] = 1.0;
          for (int64_t j = 1; j <= n; ++j) {
            T[j][j] = phi;
            T[j - 1][j] = (1.0 - phi) * u[j - 1].item<double>();  // μ_j
          }
          return T;
        };
        const auto scores = w.prefixScores(static_cast<int64_t>(s.size()));
        for (size_t t = 0; t < s.size(); ++t)
          EXPECT_NEAR(h[t][0][i].item<double>(), std::tanh(scores[t]), kTol)
              << "n " << n << " t " << t << " unit " << i;
        EXPECT_NEAR(last[0][(n - 1) * kHidden + i].item<double>(), scores.back(), kTol);
      }
    }
  }
}

// Proposition 13: 2d states; Q2 = {q_{d+1..2d}} initial with loops 1 and arcs q_{j+d} -> q_j
// weighted η_j = [b_α]_j; Q1 = {q_1..q_d} with arcs q_i -> q_j weighted [W_α]_{j,i}; G_i has
// q_i as its only final state.
// The layer is the tests' IsanLayer (tests/support/isan_layer.h), read one string at a time.
TEST(WfsaEquivalence, IsanIsProposition13Wfsa) {
  torch::manual_seed(6);
  const int64_t d = kHidden;
  IsanLayer layer(IsanLayerOptions{kSymbols, d});
  layer->to(torch::kDouble);
  torch::NoGradGuard no_grad;
  layer->weight.normal_(0.0, 0.5);  // larger than the init, so every arc weight matters
  layer->bias.normal_(0.0, 1.0);
  const torch::Tensor W = layer->weight, b = layer->bias;
  for (const auto& s : kStrings) {
    const torch::Tensor h =
        layer->forward(torch::tensor(s, torch::kLong).unsqueeze(1)).first.select(1, 0);  // (T, d)
    for (int64_t i = 0; i < d; ++i) {
      Wfsa w;
      w.initial = torch::cat({torch::zeros({d}, torch::kDouble), torch::ones({d}, torch::kDouble)});
      w.final = torch::zeros({2 * d}, torch::kDouble);
      w.final[i] = 1.0;
      w.transition = [&](int64_t t) {
        const int64_t a = s[t];
        torch::Tensor T = torch::zeros({2 * d, 2 * d}, torch::kDouble);
        for (int64_t j = 0; j < d; ++j) {
          T[d + j][d + j] = 1.0;
          T[d + j][j] = b[a][j];
          for (int64_t k = 0; k < d; ++k) T[k][j] = W[a][j][k];
        }
        return T;
      };
      const auto scores = w.prefixScores(static_cast<int64_t>(s.size()));
      for (size_t t = 0; t < s.size(); ++t)
        EXPECT_NEAR(h[t][i].item<double>(), scores[t], kTol) << "t " << t << " unit " << i;
    }
  }
}

}  // namespace
}  // namespace recurlab::models
