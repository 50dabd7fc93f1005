#include "tasks/qa/squad_evaluation.h"

#include <gtest/gtest.h>

#include <map>

#include "metrics/unicode_text.h"
#include "tests/support/required.h"
#include "tests/tasks/qa/squad_test_data.h"

namespace recurlab::experiments::qa {
namespace {

// One question's score (EM x100, F1 x100 / 100) like the official script, by id.
std::pair<double, double> scoreOne(const std::string& id, const std::string& prediction) {
  const auto& d = squadDev();
  for (size_t i = 0; i < d.questions.size(); ++i)
    if (d.questions[i].id == id) {
      const auto s = evaluateSquad(d, {static_cast<int64_t>(i)}, {{id, prediction}});
      return {s.exact_match / 100.0, s.f1 / 100.0};
    }
  ADD_FAILURE() << "no question " << id;
  return {-1, -1};
}

TEST(SquadEvaluation, NormalizesLikeTheOfficialScript) {
  EXPECT_EQ(normalizeAnswer("The  Cat, a dog and AN apple."), "cat dog and apple");
  EXPECT_EQ(normalizeAnswer("theatre an-other"), "theatre another");  // no \b inside words
  EXPECT_EQ(normalizeAnswer("a1 the_ x"), "a1 x");  // digits are word characters; "_" is punctuation
  EXPECT_EQ(normalizeAnswer("\xce\xa3\xce\x91\xce\xa3"), "\xcf\x83\xce\xb1\xcf\x82");  // final sigma
  EXPECT_EQ(normalizeAnswer("\xc4\xb0"), "i\xcc\x87");  // İ -> i + U+0307 (SpecialCasing)
  EXPECT_EQ(normalizeAnswer("caf\xc3\x89\xe2\x80\x93" "bar"), "caf\xc3\xa9\xe2\x80\x93" "bar");  // '–' stays
  EXPECT_EQ(normalizeAnswer("x\xc2\xa0y\xe2\x80\x8bz"), "x y\xe2\x80\x8bz");  // NBSP splits, ZWSP not
  EXPECT_EQ(normalizeAnswer("  ...  "), "");
}

TEST(SquadEvaluation, TokenF1HandCases) {
  EXPECT_DOUBLE_EQ(tokenF1("the cat sat", "a cat sat down"), 2 * (1.0 * (2.0 / 3.0)) / (1.0 + 2.0 / 3.0));
  EXPECT_DOUBLE_EQ(tokenF1("", "anything"), 0.0);
  EXPECT_DOUBLE_EQ(tokenF1("", ""), 0.0);  // no common token: 0 even when both are empty
  EXPECT_DOUBLE_EQ(tokenF1("x x y", "x y y"), 2 * (2.0 / 3) * (2.0 / 3) / (4.0 / 3));  // multiset
  EXPECT_TRUE(exactMatch("The Cat.", "cat"));
  EXPECT_FALSE(exactMatch("cats", "cat"));
}

// The reference note's table: expected values of the official script on dev questions.
TEST(SquadEvaluation, ReferenceNoteCasesOnDevQuestions) {
  RECURLAB_REQUIRE_OR_SKIP(squadUnavailableReason());
  struct Case { const char* id; std::string prediction; double em, f1; };
  const Case cases[] = {
      {"57336755d058e614000b5a40", "\xc5\x82" "azienki park", 1, 1.0},
      {"57336755d058e614000b5a40", "\xc5\x81" "azienki\xc2\xa0Park", 1, 1.0},
      {"57336755d058e614000b5a40", "\xc5\x81" "azienki\xe2\x80\x8bPark", 0, 0.0},
      {"57286dfa2ca10214002da335", "battle of b\xe1\xba\xa1" "ch \xc4\x91\xe1\xba\xb1ng", 1, 1.0},
      {"5725bad5271a42140099d0c1", "renewal of hostilities in the Arab-Israeli conflict", 0,
       0.8333333333333334},
      {"57339dd94776f41900660ece", "Midsummer's Night", 0, 0.5},
      {"5727de862ca10214002d9862", "Jos\xc3\xa9 Mar\xc3\xad Figueres", 0, 0.6666666666666666},
      {"572fe60fb2c2fd140056858e",
       "47\xc2\xb0" "39\xe2\x80\xb2N 9\xc2\xb0" "19\xe2\x80\xb2" "E / 47.650\xc2\xb0N 9.317\xc2\xb0" "E / 47.650; 9.317", 0, 0.5},
      {"5730b7ce069b5314008322c4", ".", 1, 0.0},
      {"5730b7ce069b5314008322c4", "", 1, 0.0},
      {"56f8c8469e9bad19000a04ca", "1 am", 1, 1.0},
      {"5726b9e15951b619008f7bf4", "\xc3\x96gedei \xc3\x96gedei", 0, 0.6666666666666666},
      {"56e108abe3433e1400422b0f", "the \xc3\x89mile Girardeau,", 1, 1.0},
  };
  for (const auto& c : cases) {
    const auto [em, f1] = scoreOne(c.id, c.prediction);
    EXPECT_EQ(em, c.em) << c.id << " '" << c.prediction << "'";
    EXPECT_DOUBLE_EQ(f1, c.f1) << c.id << " '" << c.prediction << "'";
  }
}

// Whole-file regression values of the official script (the reference note, bit for bit).
TEST(SquadEvaluation, WholeDevFileMatchesTheOfficialTotals) {
  RECURLAB_REQUIRE_OR_SKIP(squadUnavailableReason());
  const auto& d = squadDev();
  std::map<std::string, std::string> first, empty, half, plus10;
  for (size_t i = 0; i < d.questions.size(); ++i) {
    const auto& q = d.questions[i];
    first[q.id] = q.answers[0].text;
    empty[q.id] = "";
    if (i % 2 == 0) half[q.id] = q.answers[0].text;
    const auto& context = d.paragraphs[q.paragraph].context;
    const auto cps = metrics::decodeUtf8(context);
    const auto s = static_cast<size_t>(q.answers[0].char_start);
    const auto len = metrics::decodeUtf8(q.answers[0].text).size() + 10;
    plus10[q.id] = metrics::encodeUtf8(cps.substr(s, len));
  }
  EXPECT_EQ(officialScoreLine(evaluateSquad(d, first)), R"({"exact_match": 100.0, "f1": 100.0})");
  EXPECT_EQ(officialScoreLine(evaluateSquad(d, empty)),
            R"({"exact_match": 0.02838221381267739, "f1": 0.0})");
  EXPECT_EQ(officialScoreLine(evaluateSquad(d, plus10)),
            R"({"exact_match": 5.827814569536423, "f1": 71.30748404508503})");
  const auto h = evaluateSquad(d, half);
  EXPECT_EQ(officialScoreLine(h), R"({"exact_match": 50.0, "f1": 50.0})");
  EXPECT_EQ(h.missing, 5285);
  EXPECT_EQ(h.total, 10570);
}

TEST(SquadEvaluation, PythonFloatRepr) {
  EXPECT_EQ(pythonFloat(100.0), "100.0");
  EXPECT_EQ(pythonFloat(0.0), "0.0");
  EXPECT_EQ(pythonFloat(99.96373383790603), "99.96373383790603");
  EXPECT_EQ(pythonFloat(0.5), "0.5");
}

}  // namespace
}  // namespace recurlab::experiments::qa
