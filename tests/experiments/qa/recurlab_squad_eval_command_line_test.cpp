// recurlab_squad_eval DATA PREDICTIONS as a user runs it: the official v1.1 evaluator's line
// on stdout for a hand-checked case (an exact answer, a partial one, a missing one), the
// missing question named on stderr, and wrong usage or a bad file as an error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/child_process.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments::qa {
namespace {

namespace fs = std::filesystem;

struct Run {
  int exit_code;
  std::string output;
};

Run runEval(const fs::path& scratch, const std::vector<std::string>& args) {
  const auto out = scratch / "output.txt";
  fs::remove(out);
  const auto r = recurlab::testing::runChild(
      recurlab::testing::siblingBinary("recurlab_squad_eval"), args, "", -1, out.string());
  std::ifstream in(out);
  std::stringstream s;
  s << in.rdbuf();
  return {r.exit_code, s.str()};
}

TEST(RecurlabSquadEvalCommandLine, ScoresAHandCheckedCase) {
  ASSERT_TRUE(fs::exists(recurlab::testing::siblingBinary("recurlab_squad_eval")));
  recurlab::testing::TempRoot tmp("recurlab_squad_eval_cli");
  const auto data = (tmp.root / "data.json").string();
  std::ofstream(data) << R"({"version": "1.1", "data": [{"title": "T", "paragraphs": [
    {"context": "Denver Broncos won. The cat sat.", "qas": [
      {"id": "q1", "question": "Who won?", "answers": [{"answer_start": 0, "text": "Denver Broncos"}]},
      {"id": "q2", "question": "Who sat?", "answers": [{"answer_start": 20, "text": "The cat"}]},
      {"id": "q3", "question": "What?", "answers": [{"answer_start": 0, "text": "Denver"}]}]}]}]})";
  const auto predictions = (tmp.root / "predictions.json").string();
  std::ofstream(predictions) << R"({"q1": "Denver Broncos", "q2": "a cat sat"})";
  // q1 exact; q2 "cat sat" vs "cat" after removing articles: precision 1/2, recall 1, F1 2/3;
  // q3 unanswered: 0. EM 100/3, F1 100·(1 + 2/3)/3.
  const auto r = runEval(tmp.root, {data, predictions});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("{\"exact_match\": 33.333333333333336, \"f1\": 55.55555555555555}"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("Unanswered question q3 will receive score 0."), std::string::npos)
      << r.output;
}

TEST(RecurlabSquadEvalCommandLine, WrongUsageAndBadFilesAreErrors) {
  recurlab::testing::TempRoot tmp("recurlab_squad_eval_cli_bad");
  const auto usage = runEval(tmp.root, {"only-one.json"});
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_NE(usage.output.find("usage: recurlab_squad_eval DATA.json PREDICTIONS.json"),
            std::string::npos);
  const auto help = runEval(tmp.root, {"--help"});
  EXPECT_EQ(help.exit_code, 0);
  const auto missing = (tmp.root / "none.json").string();
  const auto r = runEval(tmp.root, {missing, missing});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("recurlab_squad_eval: error: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(missing), std::string::npos) << r.output;
}

}  // namespace
}  // namespace recurlab::experiments::qa
