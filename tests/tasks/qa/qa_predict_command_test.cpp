// QA's kept model and `predict`: a tiny reader trained by recurlab_qa on the SQuAD file its
// config names (data.dev, outside --data-dir) leaves <run>/models/sru/
// (the best dev epoch's weights); predicting the run's evaluation file with it gives the run's
// own predictions file, which recurlab_squad_eval scores at the run's dev EM and F1; bad input
// (an empty file, a file that is not SQuAD JSON, a folder of another task) exits 2 naming it.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "common/log/hdf5_run_log.h"
#include "tasks/qa/squad_evaluation.h"
#include "tests/experiments/kept_model/kept_model_test_support.h"
#include "tests/support/child_process.h"
#include "tests/support/required.h"
#include "tests/support/temp_root.h"
#include "tests/tasks/qa/squad_test_data.h"

namespace recurlab::experiments::qa {
namespace {

namespace fs = std::filesystem;
using recurlab::testing::fileText;
using recurlab::testing::runChild;

TEST(QaPredict, KeptModelPredictsTheRunsPredictionsAndRefusesBadInput) {
  RECURLAB_REQUIRE_OR_SKIP(squadUnavailableReason());
  const std::string program = recurlab::testing::siblingBinary("recurlab_qa");
  const std::string evaluator = recurlab::testing::siblingBinary("recurlab_squad_eval");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  ASSERT_TRUE(fs::exists(evaluator)) << evaluator << " is not built";
  recurlab::testing::TempRoot tmp("recurlab_qa_predict");
  // The SQuAD file named in the config (data.dev), not found under --data-dir.
  const std::string dev = fs::absolute(fs::path(squadDevPath())).string();
  std::ofstream(tmp.root / "config.json") << R"({
    "experiment": "qa", "seed": 5,
    "data": {"protocol": "offline", "split_seed": 1, "dev_articles": 10, "dev": ")" << dev << R"(",
             "max_train_questions": 48, "max_dev_questions": 16},
    "reader": {"embed_dim": 8, "embed_dropout": 0.1, "output_dropout": 0.1, "max_span": 15},
    "train": {"optimizer": "adam", "lr": 0.002, "batch_size": 8, "max_epochs": 2},
    "models": {"sru": {"encoder": "sru", "config": {"layers": 1, "hidden": 8, "bidirectional": true}}}
  })";
  const std::string data = (tmp.root / "no-data").string();
  const fs::path run = tmp.root / "run";
  const std::string log = (tmp.root / "children.txt").string();
  ASSERT_EQ(runChild(program, {"--config", (tmp.root / "config.json").string(), "--data-dir", data,
                               "--out", run.string(), "--threads", "1"}, "", -1, log).exit_code, 0)
      << fileText(log);
  const std::string model = (run / "models" / "sru").string();
  const std::string predictions = (tmp.root / "predictions.json").string();
  ASSERT_EQ(runChild(program, {"predict", "--model", model, "-i", (run / "eval-data.json").string(), "-o",
                               predictions, "--threads", "1"}, "", -1, log).exit_code, 0)
      << fileText(log);
  EXPECT_EQ(loadPredictions(predictions), loadPredictions((run / "predictions-sru.json").string()));
  // The official evaluator's JSON line, at the run's best dev numbers.
  const std::string scores = (tmp.root / "scores.txt").string();
  ASSERT_EQ(runChild(evaluator, {(run / "eval-data.json").string(), predictions}, "", -1, scores).exit_code, 0);
  const std::string printed = fileText(scores);  // stderr notes, then the JSON line
  ASSERT_NE(printed.rfind("{\"exact_match\""), std::string::npos) << printed;
  const auto line = nlohmann::json::parse(printed.substr(printed.rfind("{\"exact_match\"")));
  Hdf5RunLog run_log((run / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
  EXPECT_NEAR(line.at("f1").get<double>(), run_log.doubleAttribute("/sru", "best_dev_f1"), 1e-9);
  EXPECT_NEAR(line.at("exact_match").get<double>(), run_log.doubleAttribute("/sru", "best_dev_em"), 1e-9);

  const recurlab::testing::ModelCommandRuns commands(program, log);
  std::ofstream(tmp.root / "empty.json");
  commands.expectRefused({"predict", "--model", model, "-i", (tmp.root / "empty.json").string()},
          (tmp.root / "empty.json").string() + ": empty input");
  std::ofstream(tmp.root / "not-squad.json") << R"({"version": "1.1", "data": [{"title": 3}]})";
  commands.expectRefused({"predict", "--model", model, "-i", (tmp.root / "not-squad.json").string()},
          (tmp.root / "not-squad.json").string());
  const std::string copy = (tmp.root / "copy").string();
  fs::copy(model, copy);
  auto manifest = recurlab::testing::readJsonAt(copy + "/manifest.json");
  manifest["task"] = "classification";
  recurlab::testing::writeJsonAt(copy + "/manifest.json", manifest);
  commands.expectRefused({"predict", "--model", copy, "-i", (run / "eval-data.json").string()},
          copy + "/manifest.json: a model of task 'classification', not 'qa'");
}

}  // namespace
}  // namespace recurlab::experiments::qa
