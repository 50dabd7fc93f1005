// Truncated BPTT: every symbol predicted once per pass; the state carried over segments gives
// exactly the features of one long sequence (SRU, QRNN window 2, LSTM); the carried state
// survives a checkpoint (resume mid-epoch); BPC and perplexity on hand-computed cases.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <numeric>
#include <set>
#include <sstream>

#include "tasks/lm/bptt_streams.h"
#include "tasks/lm/language_model.h"
#include "tasks/lm/lm_metrics.h"
#include "tasks/lm/lm_task.h"
#include "tasks/lm/lm_training.h"
#include "tasks/lm/parameter_budget.h"

namespace recurlab::experiments {
namespace {

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

TEST(BpttStreams, EverySymbolAfterTheFirstIsPredictedExactlyOncePerPass) {
  const int64_t n = 103, streams = 4, length = 7;
  const BpttStreams s(iota(n), streams, length, "test");
  EXPECT_EQ(s.rows(), 25);      // (103 - 1) div 4
  EXPECT_EQ(s.segments(), 4);   // ceil(25 / 7): 7, 7, 7, 4
  EXPECT_EQ(s.unpredicted(), 2);  // (103 - 1) mod 4
  std::vector<int> seen(static_cast<size_t>(n), 0);
  for (int64_t k = 0; k < s.segments(); ++k) {
    const auto seg = s.segment(k);
    EXPECT_EQ(seg.inputs.size(0), k < 3 ? 7 : 4);
    EXPECT_TRUE(torch::equal(seg.targets, seg.inputs + 1));  // the next symbol of its stream
    for (int64_t v : std::vector<int64_t>(seg.targets.flatten().data_ptr<int64_t>(),
                                          seg.targets.flatten().data_ptr<int64_t>() + seg.targets.numel()))
      ++seen[static_cast<size_t>(v)];
  }
  for (int64_t i = 0; i < n; ++i) EXPECT_EQ(seen[static_cast<size_t>(i)], (i >= 1 && i <= 100) ? 1 : 0) << i;
  // Stream j is contiguous: it starts at j·R.
  EXPECT_EQ(s.segment(0).inputs[0][2].item<int64_t>(), 50);
  EXPECT_EQ(s.segment(1).inputs[0][2].item<int64_t>(), 57);
}

TEST(BpttStreams, TooShortForOneSegmentPerStreamIsAnErrorNamingTheSplit) {
  EXPECT_NO_THROW(BpttStreams(iota(29), 4, 7, "corpus.train"));  // 28 targets = 4 x 7
  try {
    BpttStreams(iota(28), 4, 7, "corpus.train (t.txt)");
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("corpus.train (t.txt): 28 symbols, too short"),
              std::string::npos) << e.what();
  }
}

LanguageModel tinyModel(const std::string& encoder, nlohmann::json config, int64_t vocab = 7) {
  torch::manual_seed(3);
  LanguageModelOptions o;
  o.vocab_size = vocab;
  o.embed_dim = 5;
  nlohmann::json unit = {{"encoder", encoder}, {"config", std::move(config)}};
  return LanguageModel(buildLanguageModel(unit, o, 0));
}

TEST(LanguageModel, StateCarriedOverSegmentsEqualsOneLongSequence) {
  torch::manual_seed(0);
  const auto x = torch::randint(0, 7, {23, 3}, torch::kLong);
  for (const auto& [name, config] :
       {std::pair{"sru", nlohmann::json{{"layers", 2}, {"hidden", 6}}},
        std::pair{"qrnn", nlohmann::json{{"layers", 2}, {"hidden", 6}, {"window", 2}}},
        std::pair{"lstm", nlohmann::json{{"layers", 2}, {"hidden", 6}}},
        std::pair{"rrnn_b", nlohmann::json{{"layers", 1}, {"hidden", 6}, {"output_gate", true}}}}) {
    auto lm = tinyModel(name, config);
    lm->to(torch::kDouble);
    lm->eval();
    torch::NoGradGuard no_grad;
    const auto whole = lm->forward(x, {}).first;
    models::SequenceState state;
    std::vector<torch::Tensor> parts;
    for (int64_t from = 0; from < 23; from += 5) {
      auto [logits, next] = lm->forward(x.slice(0, from, std::min<int64_t>(from + 5, 23)), state);
      parts.push_back(logits);
      state = next.detached();
    }
    const auto pieced = torch::cat(parts, 0);
    EXPECT_LT((pieced - whole).abs().max().item<double>(), 1e-12) << name;
    // Without the state the second segment differs: the test can fail.
    const auto cold = lm->forward(x.slice(0, 5, 10), {}).first;
    EXPECT_GT((cold - whole.slice(0, 5, 10)).abs().max().item<double>(), 1e-6) << name;
  }
}

TEST(LanguageModel, BidirectionalEncodersAreRefused) {
  EXPECT_THROW(tinyModel("sru", {{"layers", 1}, {"hidden", 4}, {"bidirectional", true}}),
               std::invalid_argument);
}

TEST(LmMetrics, BpcAndPerplexityOnHandComputedCases) {
  // Probabilities 1/2, 1/4, 1/8: mean nats = (ln 2 + ln 4 + ln 8) / 3 = 2 ln 2.
  const double nats = (std::log(2.0) + std::log(4.0) + std::log(8.0)) / 3;
  EXPECT_NEAR(bitsPerSymbol(nats), 2.0, 1e-12);
  EXPECT_NEAR(perplexity(nats), 4.0, 1e-12);
  EXPECT_NEAR(bitsPerSymbol(std::log(50.0)), 5.643856189774724, 1e-12);  // uniform over 50
}

TEST(LmMetrics, MeanNatsOfAModelWithFixedOutputProbabilities) {
  // Softmax weights 0 and bias log p: every step predicts p = (1/2, 1/4, 1/8, 1/8) whatever the
  // input, so the mean nats over the targets is computable by hand.
  auto lm = tinyModel("sru", {{"layers", 1}, {"hidden", 3}}, 4);
  {
    torch::NoGradGuard no_grad;
    for (auto& p : lm->named_parameters()) {
      if (p.key() == "decoder.weight") p.value().zero_();
      if (p.key() == "decoder.bias")
        p.value().copy_(torch::log(torch::tensor({0.5, 0.25, 0.125, 0.125})));
    }
  }
  // Symbols 0 1 2 3 0 0 1, 2 streams: R = 3 rows, targets = streams [1 2 3] and [0 0 1].
  const BpttStreams s({0, 1, 2, 3, 0, 0, 1}, 2, 2, "t");
  ASSERT_EQ(s.targets(), 6);
  const double want = (std::log(4.0) + std::log(8.0) + std::log(8.0) + std::log(2.0) +
                       std::log(2.0) + std::log(4.0)) / 6;
  EXPECT_NEAR(meanNats(lm, s), want, 1e-6);
}

TEST(LmTraining, CarriedStateSurvivesACheckpoint) {
  // Segments 0 and 1 of epoch 1 trained, the module saved (as the Trainer's checkpoint does),
  // loaded into a fresh one: segment 2 sees the same state, so the same loss.
  const std::vector<int64_t> text = [] {
    std::vector<int64_t> v;
    for (int i = 0; i < 200; ++i) v.push_back((i * 7 + i / 3) % 7);
    return v;
  }();
  const BpttStreams train(text, 4, 6, "train"), held(text, 2, 6, "valid");
  auto make = [&] { return LmTraining(tinyModel("sru", {{"layers", 2}, {"hidden", 6}}), train, held, held); };
  auto a = make();
  for (int64_t i = 0; i < 2; ++i) a.forward(*a.batch(1, i)).loss.backward();
  std::stringstream saved;
  {
    torch::serialize::OutputArchive archive;
    a.module().save(archive);
    archive.save_to(saved);
  }
  const double want = a.forward(*a.batch(1, 2)).loss.item<double>();
  auto b = make();
  torch::serialize::InputArchive archive;
  archive.load_from(saved);
  b.module().load(archive);
  EXPECT_DOUBLE_EQ(b.forward(*b.batch(1, 2)).loss.item<double>(), want);
  auto cold = make();  // no checkpoint: segment 2 starts from zeros, another loss
  EXPECT_NE(cold.forward(*cold.batch(1, 2)).loss.item<double>(), want);
}

TEST(ParameterBudget, FindsTheNearestWidthAndRefusesImpossibleBudgets) {
  auto quadratic = [](int64_t w) { return 3 * w * w + 100 * w + 5000; };
  const auto fit = fitWidthToBudget(quadratic, 1000000, 0.02, "budget");
  EXPECT_EQ(fit.width, 559);  // 3·559² + 100·559 + 5000 = 998,343; 560 gives 1,001,800
  EXPECT_EQ(fit.parameters, quadratic(fit.width));
  EXPECT_EQ(fit.models_counted, 5);  // four small widths, then the chosen one
  for (int64_t w = 1; w < 2000; ++w)
    EXPECT_GE(std::abs(quadratic(w) - 1000000), std::abs(fit.parameters - 1000000));
  // A width whose count leaves the quadratic (a layer that changes shape there) is found by
  // counting real models when the quadratic would have chosen it.
  auto dip = [&](int64_t w) { return w == 559 ? quadratic(w) + 1000 : quadratic(w); };
  const auto dipped = fitWidthToBudget(dip, 1000000, 0.02, "budget");
  EXPECT_EQ(dipped.width, 559);
  EXPECT_EQ(dipped.parameters, dip(559));
  EXPECT_GT(dipped.models_counted, 5);
  // Counts that are no quadratic at all (the fourth small width disagrees): real counts only.
  auto cubic = [](int64_t w) { return w * w * w; };
  const auto c = fitWidthToBudget(cubic, 1000000, 0.02, "budget");
  EXPECT_EQ(c.width, 100);
  EXPECT_EQ(c.parameters, 1000000);
  try {
    fitWidthToBudget(quadratic, 4000, 0.02, "budget (model sru)");
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("budget (model sru) = 4000 cannot be met within 2%"),
              std::string::npos) << e.what();
  }
}

TEST(ParameterBudget, RealModelsMeetTheBudgetWithinTwoPercent) {
  LanguageModelOptions o;
  o.vocab_size = 50;
  o.embed_dim = 16;
  for (const auto& [name, config] :
       {std::pair{"sru", nlohmann::json{{"layers", 2}, {"projection", 8}}},
        std::pair{"lstm", nlohmann::json{{"layers", 1}}},
        std::pair{"qrnn", nlohmann::json{{"layers", 2}, {"window", 2}}}}) {
    const nlohmann::json unit = {{"encoder", name}, {"config", config}};
    const auto fit = fitWidthToBudget(
        [&](int64_t w) { return buildLanguageModel(unit, o, w)->trainableParameters(); }, 60000,
        0.02, "budget", 1 << 15, /*probe_from=*/17);  // above the embedding's and projection's
    // Counted here, not taken from the product's own count or relative error: every
    // parameter that is trained (tied weights once), against the budget.
    auto count = [&](int64_t width) {
      const auto model = buildLanguageModel(unit, o, width);
      int64_t counted = 0;
      std::set<const void*> seen;
      for (const auto& p : model->parameters())
        if (p.requires_grad() && seen.insert(p.unsafeGetTensorImpl()).second) counted += p.numel();
      return counted;
    };
    const int64_t counted = count(fit.width);
    EXPECT_EQ(counted, fit.parameters) << name;
    EXPECT_LE(std::abs(static_cast<double>(counted - 60000)) / 60000.0, 0.02) << name;
    EXPECT_NEAR(fit.relative_error, static_cast<double>(counted - 60000) / 60000.0, 1e-12) << name;
    EXPECT_EQ(fit.models_counted, 5) << name << ": the counts are a quadratic in the width";
    // No width nearby is nearer the budget.
    for (int64_t w = std::max<int64_t>(1, fit.width - 12); w <= fit.width + 12; ++w)
      EXPECT_GE(std::abs(count(w) - 60000), std::abs(counted - 60000)) << name << " width " << w;
  }
}

}  // namespace
}  // namespace recurlab::experiments
