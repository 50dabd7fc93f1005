#include "experiments/search/search_space.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "experiments/search/seed_sequence.h"

namespace recurlab::experiments {
namespace {

const auto kConfig = nlohmann::json::parse(R"({
  "lr": {"loguniform": [1e-4, 1e-2]}, "dropout": {"uniform": [0.0, 0.5]},
  "model": {"hidden": {"int": [100, 300]}, "kind": {"choice": ["a", "b", "c"]}, "layers": 2}
})");

TEST(SearchSpace, SamplesStayInRangeAndAreDeterministic) {
  std::set<std::string> kinds;
  double log_sum = 0;
  const int n = 400;
  for (int i = 0; i < n; ++i) {
    const auto s = sampleSearchSpaces(kConfig, deriveSeed(1, "t" + std::to_string(i)));
    EXPECT_EQ(s, sampleSearchSpaces(kConfig, deriveSeed(1, "t" + std::to_string(i))));
    const double lr = s["lr"].get<double>();
    EXPECT_GE(lr, 1e-4);
    EXPECT_LE(lr, 1e-2);
    log_sum += std::log10(lr);
    EXPECT_GE(s["dropout"].get<double>(), 0.0);
    EXPECT_LE(s["dropout"].get<double>(), 0.5);
    ASSERT_TRUE(s["model"]["hidden"].is_number_integer());
    EXPECT_GE(s["model"]["hidden"].get<int>(), 100);
    EXPECT_LE(s["model"]["hidden"].get<int>(), 300);
    EXPECT_EQ(s["model"]["layers"], 2);
    kinds.insert(s["model"]["kind"].get<std::string>());
  }
  EXPECT_EQ(kinds.size(), 3u);
  // log10(lr) ~ U(-4, -2): mean -3, sd 0.577/sqrt(400) = 0.029; 5 sd = 0.15.
  EXPECT_NEAR(log_sum / n, -3.0, 0.15);
  EXPECT_FALSE(hasSearchSpace(sampleSearchSpaces(kConfig, 3)));
  EXPECT_TRUE(hasSearchSpace(kConfig));
}

TEST(SearchSpace, MalformedSpacesNameTheKey) {
  auto message = [](const char* text) {
    try {
      validateSearchSpaces(nlohmann::json::parse(text), "cfg");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message(R"({"a": {"uniform": [0, 1]}})"), "");
  EXPECT_NE(message(R"({"train": {"lr": {"loguniform": [0, 1]}}})").find("cfg: key 'train.lr'"), std::string::npos);
  EXPECT_NE(message(R"({"x": {"uniform": [2, 1]}})").find("a <= b"), std::string::npos);
  EXPECT_NE(message(R"({"x": {"int": [1.5, 3]}})").find("both integers"), std::string::npos);
  EXPECT_NE(message(R"({"x": {"choice": []}})").find("key 'x'"), std::string::npos);
  const auto corners = searchSpaceCorners(kConfig);
  ASSERT_EQ(corners.size(), 6u);  // two ends x three choices
  EXPECT_DOUBLE_EQ(corners[0]["lr"].get<double>(), 1e-4);
  EXPECT_EQ(corners[3]["model"]["hidden"], 300);
}

// Found by fuzz/search_space_fuzzer: b - a overflowed int64_t (undefined behaviour) for the
// full int64_t range; integers above INT64_MAX and a uniform span of inf went through.
TEST(SearchSpace, ExtremeIntegerRangesSampleWithoutOverflow) {
  const auto full = nlohmann::json::parse(
      R"({"a": {"int": [-9223372036854775808, 9223372036854775807]}, "b": {"int": [-5, 9223372036854775807]}})");
  validateSearchSpaces(full, "test");
  std::set<int64_t> seen;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const auto s = sampleSearchSpaces(full, seed);
    seen.insert(s["a"].get<int64_t>());
    EXPECT_GE(s["b"].get<int64_t>(), -5);
  }
  EXPECT_GT(seen.size(), 15u);
  const auto one = sampleSearchSpaces(nlohmann::json::parse(R"({"a": {"int": [7, 7]}})"), 3);
  EXPECT_EQ(one["a"].get<int64_t>(), 7);
  EXPECT_THROW(validateSearchSpaces(nlohmann::json::parse(R"({"a": {"int": [0, 18446744073709551615]}})"), "t"),
               std::invalid_argument);
  EXPECT_THROW(validateSearchSpaces(nlohmann::json::parse(R"({"a": {"uniform": [-1e308, 1e308]}})"), "t"),
               std::invalid_argument);
}

TEST(SeedSequence, PermutationsAreSeededAndComplete) {
  const auto p = seededPermutation(50, 9);
  EXPECT_EQ(p, seededPermutation(50, 9));
  EXPECT_NE(p, seededPermutation(50, 10));
  EXPECT_EQ(std::set<size_t>(p.begin(), p.end()).size(), 50u);
  EXPECT_NE(deriveSeed(1, "a"), deriveSeed(1, "b"));
  EXPECT_LT(deriveSeed(1, "a"), 1ULL << 53);
}

}  // namespace
}  // namespace recurlab::experiments
