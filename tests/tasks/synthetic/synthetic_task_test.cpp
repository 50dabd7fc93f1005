// The synthetic suite on the harness: a tiny run logs, per unit, the accuracies, the state
// size and the test sequences' scores (the same test data for every model of a seed), a recall
// task each test question's outcome, and a bad config is refused naming the key.
#include "tasks/synthetic/synthetic_task.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/log/hdf5_run_log.h"
#include "common/runtime/thread_count.h"
#include "tests/support/in_process_run.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

nlohmann::json tinyConfig() {
  return {{"experiment", "synthetic"},
          {"seed", 3},
          {"widths", {8}},
          {"learning_rates", {0.01, 0.03}},
          {"tasks", {{"parity", {{"kind", "parity"}, {"train_length", 3}, {"test_length", 5},
                                 {"train_examples", 64}, {"dev_examples", 16}, {"test_examples", 20}}}}},
          {"train", {{"optimizer", "adam"}, {"batch_size", 16}, {"max_epochs", 2}}},
          {"models", {{"lstm", {{"encoder", "lstm"}}},
                      {"sru", {{"encoder", "sru"}, {"config", {{"layers", 2}}}}}}}};
}

std::string errorOf(const nlohmann::json& config) {
  try {
    SyntheticConfig::fromJson(config);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(SyntheticTask, ATinyRunLogsEveryUnitsScoresAndStateSize) {
  recurlab::applyThreadCount(1);
  const auto root = recurlab::testing::perProcessTempPath("recurlab_synthetic_");
  fs::remove_all(root);
  SyntheticTask task(SyntheticConfig::fromJson(tinyConfig()));
  ASSERT_EQ(task.units().size(), 4u);  // 2 models x 1 width x 2 rates x 1 seed
  EXPECT_EQ(task.units()[0].group, "/parity/lstm/w8/lr0/seeds/0");
  recurlab::testing::trainInProcess(task, "synthetic", (root / "run").string(), 3,
                                    [&](const Hdf5RunLog& log) {
    for (const auto& unit : task.units()) {
      SCOPED_TRACE(unit.group);
      const double acc = log.doubleAttribute(unit.group, "test_acc");
      EXPECT_GE(acc, 0.0);
      EXPECT_LE(acc, 1.0);
      const auto per_sequence = log.readArray(unit.group + "/test_sequence_acc");
      ASSERT_EQ(per_sequence.size(), 20u);
      // One answer per parity sequence: the accuracy is the mean of the sequences'.
      double sum = 0;
      for (double a : per_sequence) sum += a;
      EXPECT_NEAR(acc, sum / 20, 1e-12);
      EXPECT_DOUBLE_EQ(log.doubleAttribute(unit.group, "test_exact"), acc);
      EXPECT_EQ(log.readArray(unit.group + "/test_sequence_length"), std::vector<double>(20, 5.0));
      EXPECT_EQ(log.stringAttribute(unit.group, "test_scores_from"), "best");
      EXPECT_FALSE(log.exists(unit.group + "/test_question_item"));  // nothing recalled
    }
    EXPECT_EQ(log.intAttribute("/parity/lstm/w8/lr0/seeds/0", "state_size"), 2 * 8);
    EXPECT_EQ(log.intAttribute("/parity/sru/w8/lr1/seeds/0", "state_size"), 2 * 8);
    EXPECT_DOUBLE_EQ(log.doubleAttribute("/parity/sru/w8/lr1/seeds/0", "lr"), 0.03);
  });
  fs::remove_all(root);
}

TEST(SyntheticTask, ARecallTaskLogsEachTestQuestionsOutcomeItemLagAndTheItemItsAnswerNamed) {
  recurlab::applyThreadCount(1);
  const auto root = recurlab::testing::perProcessTempPath("recurlab_synthetic_recall_");
  fs::remove_all(root);
  auto config = tinyConfig();
  config["learning_rates"] = {0.01};
  config["models"] = {{"lstm", {{"encoder", "lstm"}}}};
  config["tasks"] = {{"mqar", {{"kind", "mqar"}, {"vocabulary", 16}, {"train_length", 12},
                               {"train_count", 3}, {"train_examples", 32}, {"dev_examples", 8},
                               {"test_examples", 10}}}};
  SyntheticTask task(SyntheticConfig::fromJson(config));
  ASSERT_EQ(task.units().size(), 1u);
  recurlab::testing::trainInProcess(task, "synthetic", (root / "run").string(), 3,
                                    [&](const Hdf5RunLog& log) {
    const std::string g = task.units()[0].group;
    const auto correct = log.readArray(g + "/test_question_correct");
    const auto item = log.readArray(g + "/test_question_item");
    const auto lag = log.readArray(g + "/test_question_lag");
    const auto answered = log.readArray(g + "/test_question_answered_item");
    ASSERT_EQ(correct.size(), 30u);  // 10 sequences of 3 questions
    ASSERT_EQ(item.size(), 30u);
    ASSERT_EQ(lag.size(), 30u);
    ASSERT_EQ(answered.size(), 30u);
    double right = 0;
    for (size_t i = 0; i < correct.size(); ++i) {
      right += correct[i];
      EXPECT_TRUE(correct[i] == 0 || correct[i] == 1);
      EXPECT_GE(item[i], 1);
      EXPECT_LE(item[i], 3);
      EXPECT_GE(lag[i], 1);
      // Right: its own item; wrong: another item or none of the shown answers (0).
      if (correct[i] == 1) EXPECT_EQ(answered[i], item[i]);
      else EXPECT_TRUE(answered[i] != item[i] && answered[i] >= 0 && answered[i] <= 3);
    }
    EXPECT_NEAR(right / 30, log.doubleAttribute(g, "test_acc"), 1e-12);
  });
  fs::remove_all(root);
}

TEST(SyntheticTask, EveryModelOfASeedSeesTheSameData) {
  SyntheticTask task(SyntheticConfig::fromJson(tinyConfig()));
  EXPECT_EQ(task.dataSeed("parity", 0), task.dataSeed("parity", 0));
  EXPECT_NE(task.dataSeed("parity", 0), task.dataSeed("parity", 1));
  EXPECT_NE(task.dataSeed("parity", 0), task.dataSeed("other", 0));
}

TEST(SyntheticTask, ABadConfigIsRefusedNamingTheKey) {
  auto bad = tinyConfig();
  bad["tasks"]["parity"]["kind"] = "sorting";
  EXPECT_NE(errorOf(bad).find("tasks.parity"), std::string::npos) << errorOf(bad);
  bad = tinyConfig();
  bad["tasks"]["parity"] = {{"kind", "mqar"}, {"train_length", 16}, {"train_count", 5}};
  EXPECT_NE(errorOf(bad).find("tasks.parity: mqar"), std::string::npos) << errorOf(bad);
  bad = tinyConfig();
  bad["tasks"]["parity"] = {{"kind", "arithmetic"}, {"train_length", 6}};
  EXPECT_NE(errorOf(bad).find("odd"), std::string::npos) << errorOf(bad);
  bad = tinyConfig();
  bad["models"]["lstm"]["config"] = {{"hidden", 4}};
  EXPECT_NE(errorOf(bad).find("models.lstm.config: key 'hidden'"), std::string::npos) << errorOf(bad);
  bad = tinyConfig();
  bad["train"]["lr"] = 0.1;
  EXPECT_NE(errorOf(bad).find("train.lr"), std::string::npos) << errorOf(bad);
  bad = tinyConfig();
  bad["learning_rates"] = {0.1, -1};
  EXPECT_NE(errorOf(bad).find("learning_rates"), std::string::npos) << errorOf(bad);
  bad = tinyConfig();
  bad["models"]["cnn"] = {{"encoder", "cnn"}};
  EXPECT_NE(errorOf(bad).find("models.cnn.config"), std::string::npos) << errorOf(bad);
}

}  // namespace
}  // namespace recurlab::experiments
