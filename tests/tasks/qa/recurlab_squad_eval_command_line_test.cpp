// recurlab_squad_eval DATA PREDICTIONS as a user runs it: the official v1.1 evaluator's line
// alone on stdout for a hand-checked case (an exact answer, a partial one, a missing one), the
// missing question named on stderr, and wrong usage or a bad file as an error on stderr.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/child_process.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments::qa {
namespace {

namespace fs = std::filesystem;

recurlab::testing::CommandOutput runEval(const fs::path& scratch,
                                         const std::vector<std::string>& args) {
  return recurlab::testing::runCommand(recurlab::testing::siblingBinary("recurlab_squad_eval"),
                                       args, scratch.string());
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
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"exact_match\": 33.333333333333336, \"f1\": 55.55555555555555}\n");
  EXPECT_NE(r.err.find("Unanswered question q3 will receive score 0."), std::string::npos)
      << r.err;
}

TEST(RecurlabSquadEvalCommandLine, WrongUsageAndBadFilesAreErrors) {
  recurlab::testing::TempRoot tmp("recurlab_squad_eval_cli_bad");
  const auto usage = runEval(tmp.root, {"only-one.json"});
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_EQ(usage.out, "");
  EXPECT_NE(usage.err.find("usage: recurlab_squad_eval DATA.json PREDICTIONS.json"),
            std::string::npos)
      << usage.err;
  const auto help = runEval(tmp.root, {"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.out.rfind("usage: recurlab_squad_eval DATA.json PREDICTIONS.json\n", 0), 0u)
      << help.out;
  const auto missing = (tmp.root / "none.json").string();
  const auto r = runEval(tmp.root, {missing, missing});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("recurlab_squad_eval: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
}

}  // namespace
}  // namespace recurlab::experiments::qa
