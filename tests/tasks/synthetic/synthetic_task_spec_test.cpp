// A task's lengths: fixed (no draw, the data as they always were) or drawn per sequence from a
// range (Deletang et al.'s training lengths 1 to 40), shorter sequences padded after their end
// and asked nothing there, so that a causal mixer reads a padded sequence as if alone.
#include "tasks/synthetic/synthetic_task_spec.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <set>

#include "experiments/search/seed_sequence.h"
#include "models/registry.h"
#include "tasks/synthetic/state_tracking_tasks.h"
#include "tasks/synthetic/token_mixer_model.h"
#include "tests/support/error_message.h"

namespace recurlab::experiments {
namespace {

SyntheticTaskSpec specOf(nlohmann::json json) {
  json["train_examples"] = json.value("train_examples", 200);
  json["dev_examples"] = 4;
  json["test_examples"] = 4;
  return SyntheticTaskSpec::fromJson("t", json, "tasks.t");
}

// The real length of a row: up to its last non-pad token.
int64_t realLength(const torch::Tensor& row, int64_t pad) {
  int64_t n = row.size(0);
  while (n > 0 && row[n - 1].item<int64_t>() == pad) --n;
  return n;
}

TEST(SyntheticTaskSpec, FixedLengthsDrawNoLengthAndPadNothing) {
  const auto spec = specOf({{"kind", "parity"}, {"train_length", 7}});
  EXPECT_FALSE(spec.lengthsVary());
  EXPECT_EQ(spec.inputVocabulary(), 3);  // 0, 1 and the query token: no pad token
  const auto data = makeSyntheticData(spec, 5);
  ASSERT_EQ(data.train.length(), 8);
  // The first training sequence is the sampler's first, from the split's own seed.
  std::mt19937_64 rng(deriveSeed(5, "train"));
  const auto first = sampleParity(rng, 7);
  EXPECT_EQ(data.train.tokens[0].equal(torch::tensor(first.tokens, torch::kInt64)), true);
  EXPECT_EQ(data.train.targets[0].equal(torch::tensor(first.targets, torch::kInt64)), true);
  EXPECT_EQ(data.train.lengths, std::vector<int64_t>(200, 7));
}

TEST(SyntheticTaskSpec, DrawnLengthsCoverTheRangeAndArePaddedAfterTheQuery) {
  const auto spec = specOf({{"kind", "parity"}, {"train_min_length", 1}, {"train_length", 6},
                            {"test_min_length", 7}, {"test_length", 9}});
  ASSERT_TRUE(spec.lengthsVary());
  EXPECT_EQ(spec.padToken(), 3);
  EXPECT_EQ(spec.inputVocabulary(), 4);
  const auto data = makeSyntheticData(spec, 3);
  EXPECT_EQ(data.train.length(), 7);  // 6 bits and the query
  EXPECT_EQ(data.test.length(), 10);
  std::set<int64_t> seen;
  for (int64_t i = 0; i < data.train.size(); ++i) {
    const auto tokens = data.train.tokens[i], targets = data.train.targets[i];
    const int64_t n = realLength(tokens, spec.padToken());
    seen.insert(n - 1);
    EXPECT_EQ(data.train.lengths.at(static_cast<size_t>(i)), n - 1) << "row " << i;
    ASSERT_GE(n, 2);
    ASSERT_EQ(tokens[n - 1].item<int64_t>(), 2) << "row " << i << ": the query ends the sequence";
    std::vector<int64_t> bits(tokens.data_ptr<int64_t>(), tokens.data_ptr<int64_t>() + n - 1);
    EXPECT_EQ(targets[n - 1].item<int64_t>(), parityLabel(bits)) << "row " << i;
    for (int64_t t = 0; t < tokens.size(0); ++t) {
      if (t == n - 1) continue;
      EXPECT_EQ(targets[t].item<int64_t>(), kNoTarget) << "row " << i << " t " << t;
    }
  }
  EXPECT_EQ(seen, (std::set<int64_t>{1, 2, 3, 4, 5, 6}));
  for (int64_t i = 0; i < data.test.size(); ++i) {
    const int64_t bits = realLength(data.test.tokens[i], spec.padToken()) - 1;
    EXPECT_TRUE(bits >= 7 && bits <= 9) << "test row " << i << " has " << bits << " bits";
  }
}

TEST(SyntheticTaskSpec, ArithmeticDrawsOnlyOddLengths) {
  const auto spec = specOf({{"kind", "arithmetic"}, {"train_min_length", 2}, {"train_length", 9}});
  const auto data = makeSyntheticData(spec, 4);
  std::set<int64_t> seen;
  for (int64_t i = 0; i < data.train.size(); ++i)
    seen.insert(realLength(data.train.tokens[i], spec.padToken()) - 1);  // without '='
  EXPECT_EQ(seen, (std::set<int64_t>{3, 5, 7, 9}));
}

TEST(SyntheticTaskSpec, ABadRangeIsRefusedNamingTheKey) {
  using recurlab::testing::errorMessageOf;
  const auto refused = [](nlohmann::json json) {
    return errorMessageOf([&] { specOf(std::move(json)); });
  };
  EXPECT_NE(refused({{"kind", "parity"}, {"train_length", 6}, {"train_min_length", 7}})
                .find("tasks.t: key 'train_min_length' = 7 is invalid; expected an integer in [1, 6]"),
            std::string::npos);
  EXPECT_NE(refused({{"kind", "cycle"}, {"train_length", 6}, {"test_min_length", 0}})
                .find("tasks.t: key 'test_min_length' = 0 is invalid"),
            std::string::npos);
  // MQAR's shortest sequence must still hold its pairs: checked at both ends of the range.
  const auto mqar = refused({{"kind", "mqar"}, {"vocabulary", 64}, {"train_length", 32},
                             {"train_count", 4}, {"train_min_length", 6}});
  EXPECT_NE(mqar.find("tasks.t"), std::string::npos) << mqar;
}

// Without the dev keys the dev split is what it always was (the train range, its own stream);
// with them, dev sequences are drawn from their range and the train and test splits are the
// same sequences as without.
TEST(SyntheticTaskSpec, DevSequencesHaveTheTrainRangeUnlessTheDevKeysSayOtherwise) {
  const nlohmann::json keys = {{"kind", "parity"}, {"train_min_length", 1}, {"train_length", 6},
                               {"test_min_length", 12}, {"test_length", 20}};
  const auto plain = specOf(keys);
  EXPECT_EQ(plain.dev.min_length, 1);
  EXPECT_EQ(plain.dev.length, 6);
  auto explicit_keys = keys;
  explicit_keys["dev_min_length"] = 1, explicit_keys["dev_length"] = 6;
  const auto a = makeSyntheticData(plain, 8), b = makeSyntheticData(specOf(explicit_keys), 8);
  EXPECT_TRUE(a.dev.tokens.equal(b.dev.tokens));
  EXPECT_TRUE(a.dev.targets.equal(b.dev.targets));

  auto longer = keys;
  longer["dev_min_length"] = 12, longer["dev_length"] = 20, longer["dev_examples"] = 64;
  auto spec = SyntheticTaskSpec::fromJson("t", longer, "tasks.t");
  spec.train.examples = 200, spec.test.examples = 4;
  const auto c = makeSyntheticData(spec, 8);
  EXPECT_TRUE(c.train.tokens.equal(a.train.tokens));
  EXPECT_TRUE(c.test.tokens.equal(a.test.tokens));
  ASSERT_EQ(c.dev.size(), 64);
  std::set<int64_t> seen;
  for (int64_t i = 0; i < c.dev.size(); ++i) {
    const int64_t bits = realLength(c.dev.tokens[i], spec.padToken()) - 1;
    EXPECT_EQ(c.dev.lengths.at(static_cast<size_t>(i)), bits) << "dev row " << i;
    seen.insert(bits);
  }
  EXPECT_EQ(*seen.begin(), 12);
  EXPECT_EQ(*seen.rbegin(), 20);

  // dev_length alone: every dev sequence has that length, as for the train and test keys.
  const auto fixed = specOf({{"kind", "cycle"}, {"train_length", 6}, {"dev_length", 9}});
  EXPECT_EQ(fixed.dev.min_length, 9);
  EXPECT_FALSE(fixed.lengthsVary());
  EXPECT_EQ(makeSyntheticData(fixed, 2).dev.lengths, std::vector<int64_t>(4, 9));
}

TEST(SyntheticTaskSpec, ABadDevRangeOrCountIsRefusedNamingIt) {
  using recurlab::testing::errorMessageOf;
  const auto refused = [](nlohmann::json json) {
    return errorMessageOf([&] { specOf(std::move(json)); });
  };
  EXPECT_NE(refused({{"kind", "parity"}, {"train_length", 6}, {"dev_length", 8}, {"dev_min_length", 9}})
                .find("tasks.t: key 'dev_min_length' = 9 is invalid; expected an integer in [1, 8]"),
            std::string::npos);
  // Four pairs fit 32 tokens but not 6: the dev range is sampled at both ends too.
  const auto mqar = refused({{"kind", "mqar"}, {"vocabulary", 64}, {"train_length", 32},
                             {"train_count", 2}, {"dev_count", 4}, {"dev_min_length", 6},
                             {"dev_length", 32}});
  EXPECT_NE(mqar.find("tasks.t: mqar: needs 1 <= pairs and 4 * pairs <= length"), std::string::npos)
      << mqar;
  EXPECT_EQ(specOf({{"kind", "mqar"}, {"vocabulary", 64}, {"train_length", 32}, {"train_count", 2},
                    {"dev_count", 4}})
                .dev.count,
            4);
}

// What padding is for: a causal mixer's answer for a padded sequence is its answer for the
// sequence alone.
TEST(SyntheticTaskSpec, ACausalMixerReadsAPaddedSequenceAsIfAlone) {
  const auto spec = specOf({{"kind", "cycle"}, {"train_min_length", 1}, {"train_length", 12},
                            {"train_examples", 16}});
  const auto data = makeSyntheticData(spec, 9);
  torch::manual_seed(1);
  TokenMixerModel model(spec.inputVocabulary(), 8, spec.outputClasses(),
                        models::makeEncoder("lstm", nlohmann::json::object(), 8));
  model->eval();
  torch::NoGradGuard no_grad;
  const auto all = model->forward(data.train.tokens);  // (B, L, classes)
  int64_t padded_rows = 0;
  for (int64_t i = 0; i < data.train.size(); ++i) {
    const int64_t n = realLength(data.train.tokens[i], spec.padToken());
    padded_rows += n < data.train.length();
    const auto alone = model->forward(data.train.tokens[i].slice(0, 0, n).unsqueeze(0));
    EXPECT_TRUE(torch::allclose(all[i].slice(0, 0, n), alone[0], 1e-6, 1e-6)) << "row " << i;
  }
  EXPECT_GT(padded_rows, 0);
}

}  // namespace
}  // namespace recurlab::experiments
