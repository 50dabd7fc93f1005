// The synthetic suite's kept model and `evaluate`: a tiny parity unit trained in-process with
// keep_model best leaves <run>/models/<task>/<model>/w<width>/lr<i>/seeds/<s>/; scored on the
// unit's own test split it gives the run's test accuracy; at other lengths each length's
// sequences are drawn from the seed (the same seed, the same scores) at exactly that length;
// the binary writes the CSV and refuses bad lengths and another task's folder, naming them.
// And every task kind's spec written as JSON reads back as the same spec.
#include "tasks/synthetic/evaluate_command.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "common/log/hdf5_run_log.h"
#include "common/runtime/thread_count.h"
#include "tasks/synthetic/synthetic_task.h"
#include "tasks/synthetic/synthetic_training.h"
#include "tests/experiments/kept_model/kept_model_test_support.h"
#include "tests/support/child_process.h"
#include "tests/support/error_message.h"
#include "tests/support/in_process_run.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;
using recurlab::testing::fileText;

struct TrainedMixer {
  recurlab::testing::TempRoot temp{"recurlab_synthetic_evaluate"};
  std::string model_dir;
  double test_acc = 0;
  std::unique_ptr<SyntheticTask> task;

  TrainedMixer() {
    recurlab::applyThreadCount(1);
    const nlohmann::json config = {
        {"experiment", "synthetic"}, {"seed", 3}, {"keep_model", "best"}, {"widths", {8}},
        {"learning_rates", {0.01}},
        {"tasks", {{"parity", {{"kind", "parity"}, {"train_length", 6}, {"train_min_length", 2},
                               {"test_length", 9}, {"test_min_length", 7}, {"train_examples", 64},
                               {"dev_examples", 16}, {"test_examples", 20}}}}},
        {"train", {{"optimizer", "adam"}, {"batch_size", 16}, {"max_epochs", 2}}},
        {"models", {{"lstm", {{"encoder", "lstm"}}}}}};
    task = std::make_unique<SyntheticTask>(SyntheticConfig::fromJson(config));
    const std::string group = task->units().at(0).group;
    recurlab::testing::trainInProcess(*task, "synthetic", (temp.root / "run").string(), 3,
                                      [&](const Hdf5RunLog& log) {
                                        test_acc = log.doubleAttribute(group, "test_acc");
                                      });
    model_dir = (temp.root / "run" / "models" / group.substr(1)).string();
  }
};

TrainedMixer& trained() {
  static TrainedMixer t;
  return t;
}

TEST(SyntheticEvaluate, KeptModelScoresTheUnitsTestSplitAtTheRunsTestAccuracy) {
  auto& t = trained();
  const auto manifest = recurlab::testing::readJsonAt(t.model_dir + "/manifest.json");
  EXPECT_EQ(manifest.at("weights"), "best");
  EXPECT_EQ(manifest.at("value").get<double>(), t.test_acc);
  auto mixer = loadKeptMixer(t.model_dir);
  EXPECT_EQ(mixer.task.toJson(), t.task->config().task("parity").toJson());
  const auto test = makeSyntheticTestSplit(mixer.task, t.task->dataSeed("parity", 0));
  EXPECT_DOUBLE_EQ(scoreSplit(mixer.model, test, 7).accuracy(), t.test_acc);
}

TEST(SyntheticEvaluate, EachLengthsSequencesHaveThatLengthAndComeFromTheSeed) {
  auto& t = trained();
  auto mixer = loadKeptMixer(t.model_dir);
  const auto scores = scoreAtLengths(mixer, {4, 30}, 50, 7, 16, torch::kCPU);
  ASSERT_EQ(scores.size(), 2u);
  for (const auto& s : scores) {
    EXPECT_EQ(s.sequences, 50);
    EXPECT_EQ(s.questions, 50);  // parity asks once, at the end
    EXPECT_GE(s.right, 0);
    EXPECT_LE(s.right, 50);
    EXPECT_EQ(s.exact_sequences, s.right);  // one question a sequence
    EXPECT_DOUBLE_EQ(s.accuracy(), s.right / 50.0);
  }
  EXPECT_EQ(scores[0].length, 4);
  EXPECT_EQ(scores[1].length, 30);
  // The same seed and length: the same sequences, at any batch size. The length's own stream:
  // scoring 30 alone gives what it gave after 4.
  const auto again = scoreAtLengths(mixer, {30}, 50, 7, 5, torch::kCPU);
  EXPECT_EQ(again[0].right, scores[1].right);
  // Sequences of exactly the length (parity's 30 bits and its query token): no padding.
  SyntheticTaskSpec spec = mixer.task;
  spec.test.length = spec.test.min_length = 30;
  spec.test.examples = 50;
  const auto split = makeSyntheticTestSplit(spec, 1);
  EXPECT_EQ(split.length(), 31);
  for (const int64_t l : split.lengths) EXPECT_EQ(l, 30);
  EXPECT_EQ(split.tokens.eq(spec.padToken()).sum().item<int64_t>(), 0);
}

TEST(SyntheticEvaluate, LengthsAreCommaSeparatedPositiveIntegers) {
  EXPECT_EQ(parseLengths("40,80,160"), (std::vector<int64_t>{40, 80, 160}));
  EXPECT_EQ(parseLengths("7"), (std::vector<int64_t>{7}));
  for (const std::string bad : {"", "40,,80", "40,", "abc", "0", "-3", "40x", "4 0"}) {
    SCOPED_TRACE(bad);
    EXPECT_NE(recurlab::testing::errorMessageOf([&] { parseLengths(bad); })
                  .find("--lengths: expected positive integers separated by commas"),
              std::string::npos);
  }
}

TEST(SyntheticEvaluate, ALengthTheTaskCannotHaveIsNamed) {
  KeptMixer mixer;
  mixer.task = SyntheticTaskSpec::fromJson(
      "expr", {{"kind", "arithmetic"}, {"train_length", 5}, {"train_examples", 4}}, "test");
  const auto message = recurlab::testing::errorMessageOf(
      [&] { scoreAtLengths(mixer, {6}, 4, 1, 4, torch::kCPU); });
  EXPECT_NE(message.find("--lengths: the task expr (arithmetic) cannot have length 6"),
            std::string::npos)
      << message;
}

TEST(SyntheticEvaluate, EveryKindsSpecReadsBackFromItsJson) {
  for (const std::string& kind : syntheticTaskKinds()) {
    SCOPED_TRACE(kind);
    nlohmann::json keys = {{"kind", kind},           {"train_length", 41},  {"test_length", 81},
                           {"test_min_length", 61},  {"dev_length", 71},    {"dev_min_length", 51},
                           {"train_examples", 9},    {"dev_examples", 3},   {"test_examples", 5}};
    if (kind == "mqar" || kind == "selective_copy" || kind == "induction") keys["vocabulary"] = 40;
    if (kind == "mqar")
      keys["power"] = 0.5, keys["train_count"] = 3, keys["dev_count"] = 4, keys["test_count"] = 5;
    if (kind == "majority") keys["symbols"] = 4;
    const auto spec = SyntheticTaskSpec::fromJson(kind + "-task", keys, "test");
    const auto again = SyntheticTaskSpec::fromJson(spec.name, spec.toJson(), "again");
    EXPECT_EQ(again.toJson(), spec.toJson());
    EXPECT_EQ(again.inputVocabulary(), spec.inputVocabulary());
    EXPECT_EQ(again.outputClasses(), spec.outputClasses());
    for (const auto& [key, value] : keys.items()) EXPECT_EQ(spec.toJson().at(key), value) << key;
  }
}

TEST(SyntheticEvaluate, TheBinaryWritesOneRowPerLengthAndRefusesBadInputNamingIt) {
  auto& t = trained();
  const std::string program = recurlab::testing::siblingBinary("recurlab_synthetic");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  const fs::path& root = t.temp.root;
  const std::string out = (root / "lengths.csv").string();
  const recurlab::testing::ModelCommandRuns commands(program, (root / "commands.txt").string());
  ASSERT_EQ(commands.run({"evaluate", "--model", t.model_dir, "--lengths", "4,30", "--examples",
                          "50", "--seed", "7", "-o", out}),
            0)
      << commands.said();
  auto mixer = loadKeptMixer(t.model_dir);
  std::string expected = "length,sequences,questions,right,exact_sequences,accuracy,exact_match\n";
  for (const auto& s : scoreAtLengths(mixer, {4, 30}, 50, 7, 16, torch::kCPU)) {
    // The rates to six digits: n / 50 needs at most four.
    std::ostringstream rate;
    rate << s.right / 50.0;
    expected += std::to_string(s.length) + ",50,50," + std::to_string(s.right) + "," +
                std::to_string(s.right) + "," + rate.str() + "," + rate.str() + "\n";
  }
  EXPECT_EQ(fileText(out), expected);
  // Without --lengths: the task's train and test lengths.
  ASSERT_EQ(commands.run({"evaluate", "--model", t.model_dir, "--examples", "10", "-o", out}), 0)
      << commands.said();
  const std::string text = fileText(out);
  EXPECT_NE(text.find("\n6,10,10,"), std::string::npos) << text;
  EXPECT_NE(text.find("\n9,10,10,"), std::string::npos) << text;

  commands.expectRefused({"evaluate", "--model", t.model_dir, "--lengths", "4,,8"},
                         "--lengths: expected positive integers separated by commas");
  commands.expectRefused({"evaluate", "--model", t.model_dir, "--examples", "0"},
                         "--examples must be >= 1");
  const std::string copy = (root / "copy").string();
  fs::copy(t.model_dir, copy);
  auto manifest = recurlab::testing::readJsonAt(copy + "/manifest.json");
  manifest["task"] = "lm";
  recurlab::testing::writeJsonAt(copy + "/manifest.json", manifest);
  commands.expectRefused({"evaluate", "--model", copy},
                         copy + "/manifest.json: a model of task 'lm', not 'synthetic'");
}

}  // namespace
}  // namespace recurlab::experiments
