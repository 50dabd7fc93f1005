#include "tasks/qa/squad_dataset.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "metrics/unicode_text.h"
#include "tests/support/required.h"
#include "tests/support/temp_root.h"
#include "tests/tasks/qa/squad_test_data.h"

namespace recurlab::experiments::qa {
namespace {

TEST(SquadDataset, RealDevFileCountsAndEveryAnswerAtItsOffset) {
  RECURLAB_REQUIRE_OR_SKIP(squadUnavailableReason());
  const auto& d = squadDev();
  EXPECT_EQ(d.version, "1.1");
  EXPECT_EQ(d.titles.size(), 48u);
  EXPECT_EQ(d.paragraphs.size(), 2067u);
  EXPECT_EQ(d.questions.size(), 10570u);
  EXPECT_EQ(d.answers, 34726);
  // answer_start counts code points: every answer equals the context slice at its byte offset.
  EXPECT_EQ(d.mismatched_answers, 0) << (d.mismatched_ids.empty() ? "" : d.mismatched_ids[0]);
  int64_t differ = 0;
  for (const auto& q : d.questions)
    for (const auto& a : q.answers) {
      ASSERT_TRUE(a.matches) << q.id;
      EXPECT_EQ(d.paragraphs[q.paragraph].context.substr(a.byte_begin, a.byte_end - a.byte_begin),
                a.text);
      differ += a.byte_begin != a.char_start ? 1 : 0;
    }
  // The reference note's count: read as byte offsets these 5,632 answers would not match.
  EXPECT_EQ(differ, 5632);
}

TEST(SquadDataset, MapsCodePointOffsetsToBytes) {
  const std::string file =
      R"({"version":"1.1","data":[{"title":"T","paragraphs":[{"context":"\u0141azienki Park is in Warszawa",)"
      R"("qas":[{"id":"q1","question":"Where?","answers":[{"answer_start":20,"text":"Warszawa"},)"
      R"({"answer_start":0,"text":"\u0141azienki"},{"answer_start":1,"text":"Park"}]}]}]}]})";
  const auto d = parseSquad(file, "inline.json");
  ASSERT_EQ(d.questions.size(), 1u);
  const auto& a = d.questions[0].answers;
  EXPECT_TRUE(a[0].matches);
  EXPECT_EQ(a[0].byte_begin, 21);  // 'Ł' is two bytes
  EXPECT_TRUE(a[1].matches);
  EXPECT_EQ(a[1].byte_end, 9);
  EXPECT_FALSE(a[2].matches);  // offset does not hold "Park": counted and named
  EXPECT_EQ(d.mismatched_answers, 1);
  ASSERT_EQ(d.mismatched_ids.size(), 1u);
  EXPECT_EQ(d.mismatched_ids[0], "q1");
}

TEST(SquadDataset, TruncatesLongContextsAndCountsThem) {
  const std::string file =
      R"({"version":"1.1","data":[{"title":"T","paragraphs":[{"context":"\u00e9t\u00e9 one two three",)"
      R"("qas":[{"id":"q","question":"?","answers":[{"answer_start":0,"text":"\u00e9t\u00e9"},)"
      R"({"answer_start":8,"text":"two"}]}]}]}]})";
  SquadLoadOptions o;
  o.max_context_chars = 7;
  const auto d = parseSquad(file, "inline.json", o);
  EXPECT_EQ(d.truncated_contexts, 1);
  EXPECT_EQ(d.paragraphs[0].context, "\xc3\xa9t\xc3\xa9 one");  // 7 code points, 9 bytes
  EXPECT_EQ(d.paragraphs[0].original_chars, 17);
  EXPECT_FALSE(d.questions[0].answers[0].truncated);
  EXPECT_TRUE(d.questions[0].answers[1].truncated);
  EXPECT_EQ(d.truncated_answers, 1);
}

TEST(SquadDataset, MalformedJsonNamesTheByteOffset) {
  const std::string file = R"({"data": [{"title": "x", "paragraphs": [}]})";
  try {
    parseSquad(file, "bad.json");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("bad.json"), std::string::npos) << m;
    EXPECT_NE(m.find("byte offset 40"), std::string::npos) << m;
  }
}

// Found by the squad_dataset fuzzer: a number no double holds made nlohmann's parser throw
// out_of_range, which escaped as an uncaught exception (fuzz/corpus/squad_dataset/crash_number_overflow).
TEST(SquadDataset, NumberTooLargeForADoubleNamesTheFileAndByteOffset) {
  for (const std::string& file : {std::string(R"({"version": 1e400, "data": []})"),
                                  std::string("58e61400,,,")}) {
    try {
      parseSquad(file, "huge.json");
      FAIL() << "no error for " << file;
    } catch (const std::runtime_error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("huge.json"), std::string::npos) << m;
      const std::string offset = file[0] == '{' ? "byte offset 12" : "byte offset 0";
      EXPECT_NE(m.find(offset), std::string::npos) << m;
    }
  }
}

TEST(SquadDataset, WrongLayoutNamesTheJsonPath) {
  const std::string file =
      R"({"data":[{"title":"t","paragraphs":[{"context":"abc","qas":[{"id":"q","question":"?",)"
      R"("answers":[{"answer_start":"0","text":"a"}]}]}]}]})";
  try {
    parseSquad(file, "layout.json");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("data[0].paragraphs[0].qas[0].answers[0].answer_start"), std::string::npos) << m;
    EXPECT_NE(m.find("found string"), std::string::npos) << m;
  }
  EXPECT_THROW(parseSquad(R"({"data":[{"paragraphs":[{"context":"a","qas":[{"id":"q","question":"?","answers":[]},)"
                          R"({"id":"q","question":"?","answers":[]}]}]}]})", "dup.json"),
               std::runtime_error);
  EXPECT_THROW(parseSquad("[1,2]", "array.json"), std::runtime_error);
  EXPECT_THROW(loadSquad("/nonexistent/squad.json"), std::runtime_error);
}

TEST(SquadDataset, SubsetRoundTripsThroughTheWriter) {
  RECURLAB_REQUIRE_OR_SKIP(squadUnavailableReason());
  const auto& d = squadDev();
  const std::vector<int64_t> pick = {0, 1, 500, 10569};
  const auto path = recurlab::testing::perProcessTempPath("recurlab-squad-subset-", ".json");
  writeSquadSubset(d, pick, path.string());
  const auto back = loadSquad(path.string());
  std::filesystem::remove(path);
  ASSERT_EQ(back.questions.size(), pick.size());
  for (size_t i = 0; i < pick.size(); ++i) {
    const auto& a = d.questions[pick[i]];
    const auto& b = back.questions[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.question, b.question);
    ASSERT_EQ(a.answers.size(), b.answers.size());
    for (size_t k = 0; k < a.answers.size(); ++k) {
      EXPECT_EQ(a.answers[k].text, b.answers[k].text);
      EXPECT_TRUE(b.answers[k].matches);
    }
    EXPECT_EQ(d.paragraphs[a.paragraph].context, back.paragraphs[b.paragraph].context);
  }
}

}  // namespace
}  // namespace recurlab::experiments::qa
