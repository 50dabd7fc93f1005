// Classification's kept model and `classify`: a tiny unit trained in-process on the user's own
// labelled files (own_datasets) leaves
// <run>/models/<dataset>/<model>/folds/<f>/seeds/<s>/ with its vocabulary; classifying the
// unit's test sentences with it gives the run's test accuracy (the best dev epoch's weights);
// the binary labels a file one line each, and refuses an empty or non-UTF-8 file, an empty
// line and a folder of another task, naming the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/runtime/thread_count.h"
#include "tasks/classification/classification_task.h"
#include "tasks/classification/classify_command.h"
#include "tasks/classification/classification_datasets.h"
#include "common/log/hdf5_run_log.h"
#include "tests/experiments/kept_model/kept_model_test_support.h"
#include "tests/support/error_message.h"
#include "tests/support/child_process.h"
#include "tests/support/in_process_run.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;
using recurlab::testing::fileText;

struct TrainedClassifier {
  recurlab::testing::TempRoot temp{"recurlab_classify"};
  std::string model_dir;
  double test_acc = 0;
  ClassificationSplit split;

  TrainedClassifier() {
    const fs::path& root = temp.root;
    // The user's own labelled files (own_datasets), train and test; dev is held out of train.
    const char* filler[] = {"the", "film", "plot", "is", "a", "story", "of", "actors"};
    auto write = [&](const fs::path& path, int from, int to) {
      std::ofstream out(path);
      for (int i = from; i < to; ++i) {
        out << i % 2;
        for (int t = 0; t < 3 + i % 3; ++t) out << " " << filler[(i + 3 * t) % 8];
        out << " " << (i % 2 ? (i % 5 ? "great" : "dull") : (i % 7 ? "dull" : "fine")) << " .\n";
      }
    };
    write(root / "reviews-train.txt", 0, 80);
    write(root / "reviews-test.txt", 80, 100);
    auto json = nlohmann::json::parse(R"({
      "seed": 5, "datasets": ["reviews"], "folds": 1, "trials": 1, "seeds": 1,
      "train": {"max_epochs": 3, "embed_dim": 8, "batch_size": 16, "lr": 0.01},
      "models": {"sru": {"encoder": "sru", "config": {"layers": 1, "hidden": 8}}}
    })");
    json["own_datasets"]["reviews"] = {
        {"files", {(root / "reviews-train.txt").string(), (root / "reviews-test.txt").string()}},
        {"classes", 2}};
    const auto config = ClassificationConfig::fromJson(json);
    ClassificationTask task(config, (root / "data").string());
    recurlab::testing::trainInProcess(task, "classification", (root / "run").string(), 5,
                                      [&](const Hdf5RunLog& log) {
                                        test_acc = log.doubleAttribute(
                                            "/reviews/sru/folds/0/seeds/0", "test_acc");
                                      });
    model_dir = (root / "run" / "models" / "reviews" / "sru" / "folds" / "0" / "seeds" / "0").string();
    split = makeClassificationSplit(loadClassificationData((root / "data").string(), config.datasetSpec("reviews")), 0,
                                    static_cast<int>(config.cv_folds),
                                    static_cast<uint64_t>(config.split_seed), config.dev_fraction);
  }
};

TrainedClassifier& trained() {
  static TrainedClassifier c;
  return c;
}

TEST(Classify, KeptModelLabelsTheTestSentencesAtTheRunsTestAccuracy) {
  recurlab::applyThreadCount(1);
  auto& t = trained();
  const auto manifest = recurlab::testing::readJsonAt(t.model_dir + "/manifest.json");
  EXPECT_EQ(manifest.at("weights"), "best");
  EXPECT_EQ(manifest.at("value").get<double>(), t.test_acc);
  auto classifier = loadKeptClassifier(t.model_dir);
  std::vector<std::vector<std::string>> sentences;
  for (const auto& s : t.split.test) sentences.push_back(s.tokens);
  ASSERT_EQ(sentences.size(), 20u);  // the test file's lines
  const auto labels = classifySentences(classifier, sentences, 5, "test");
  int64_t correct = 0;
  for (size_t i = 0; i < labels.size(); ++i) correct += labels[i] == t.split.test[i].label;
  EXPECT_DOUBLE_EQ(static_cast<double>(correct) / static_cast<double>(labels.size()), t.test_acc);
}

TEST(Classify, TheBinaryLabelsAFileAndRefusesBadInputNamingTheFile) {
  auto& t = trained();
  const std::string program = recurlab::testing::siblingBinary("recurlab_classification");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  const fs::path& root = t.temp.root;
  const std::string out = (root / "out.txt").string();
  const recurlab::testing::ModelCommandRuns commands(program, (root / "commands.txt").string());
  const std::string input = (root / "sentences.txt").string();
  {
    std::ofstream in(input);
    for (const auto& s : t.split.test) {
      for (size_t k = 0; k < s.tokens.size(); ++k) in << (k ? " " : "") << s.tokens[k];
      in << "\n";
    }
  }
  ASSERT_EQ(commands.run({"classify", "--model", t.model_dir, "-i", input, "-o", out}), 0) << commands.said();
  auto classifier = loadKeptClassifier(t.model_dir);
  std::vector<std::vector<std::string>> sentences;
  for (const auto& s : t.split.test) sentences.push_back(s.tokens);
  std::string expected;
  for (const auto l : classifySentences(classifier, sentences, 50, "test")) expected += std::to_string(l) + "\n";
  EXPECT_EQ(fileText(out), expected);

  std::ofstream(root / "empty.txt");
  commands.expectRefused({"classify", "--model", t.model_dir, "-i", (root / "empty.txt").string()},
          (root / "empty.txt").string() + ": empty input");
  std::ofstream(root / "latin1.txt") << "a caf\xe9 film\n";
  commands.expectRefused({"classify", "--model", t.model_dir, "-i", (root / "latin1.txt").string()},
          (root / "latin1.txt").string() + ": not valid UTF-8: byte 0xE9 at offset 5");
  std::ofstream(root / "gap.txt") << "a film\n\nthe plot\n";
  commands.expectRefused({"classify", "--model", t.model_dir, "-i", (root / "gap.txt").string()},
          (root / "gap.txt").string() + ":2: an empty sentence");
  const std::string copy = (root / "copy").string();
  fs::copy(t.model_dir, copy);
  auto vocabulary = recurlab::testing::readJsonAt(copy + "/vocabulary.json");
  vocabulary["words"].push_back("extra");
  recurlab::testing::replaceKeptFile(copy, "vocabulary.json", vocabulary.dump());
  commands.expectRefused({"classify", "--model", copy, "-i", input}, copy + "/vocabulary.json: ");
  auto manifest = recurlab::testing::readJsonAt(copy + "/manifest.json");
  manifest["task"] = "qa";
  recurlab::testing::writeJsonAt(copy + "/manifest.json", manifest);
  commands.expectRefused({"classify", "--model", copy, "-i", input}, copy + "/manifest.json: a model of task 'qa', not 'classification'");
}

TEST(ClassificationConfig, OwnDatasetsAreCheckedAndNamedInErrors) {
  auto config = [](const nlohmann::json& own) {
    nlohmann::json j = {{"datasets", {"mine"}}, {"own_datasets", {{"mine", own}}},
                        {"models", {{"sru", {{"encoder", "sru"}}}}}};
    return recurlab::testing::errorMessageOf([&] { ClassificationConfig::fromJson(j); });
  };
  EXPECT_EQ(config({{"files", {"all.txt"}}, {"classes", 3}}), "");
  EXPECT_NE(config({{"files", {"all.txt"}}}).find("own_datasets.mine: key 'classes'"), std::string::npos);
  EXPECT_NE(config({{"files", {"a", "b", "c", "d"}}, {"classes", 2}}).find("own_datasets.mine: key 'files'"),
            std::string::npos);
  EXPECT_NE(config({{"file", {"a"}}, {"classes", 2}}).find("unknown key 'file'"), std::string::npos);
  nlohmann::json clash = {{"own_datasets", {{"MR", {{"files", {"a"}}, {"classes", 2}}}}},
                          {"models", {{"sru", {{"encoder", "sru"}}}}}};
  EXPECT_NE(recurlab::testing::errorMessageOf([&] { ClassificationConfig::fromJson(clash); })
                .find("own_datasets.MR: the name of a known benchmark"),
            std::string::npos);
  const auto c = ClassificationConfig::fromJson(
      {{"datasets", {"mine"}}, {"own_datasets", {{"mine", {{"files", {"tr", "te"}}, {"classes", 2}}}}},
       {"models", {{"sru", {{"encoder", "sru"}}}}}});
  EXPECT_FALSE(c.datasetSpec("mine").cross_validation);
  EXPECT_FALSE(c.datasetSpec("mine").given_dev);
  EXPECT_EQ(c.datasetSpec("MR").name, "MR");
}

}  // namespace
}  // namespace recurlab::experiments
