// The LM's kept model and its commands: a tiny unit trained in-process leaves
// <run>/models/<corpus>/<model>/; `score` on the run's test text gives the run's test BPC
// (the best epoch's weights, the same streams), `generate` gives the same text for the same
// seed and another for another seed; bad input (an empty or non-UTF-8 file, a folder of
// another task or incomplete, a vocabulary that does not fit) exits 2 naming the file.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/log/hdf5_run_log.h"
#include "common/runtime/thread_count.h"
#include "tasks/lm/lm_commands.h"
#include "tasks/lm/lm_config.h"
#include "tasks/lm/lm_task.h"
#include "tests/experiments/kept_model/kept_model_test_support.h"
#include "tests/support/child_process.h"
#include "tests/support/in_process_run.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;
using recurlab::testing::fileText;

struct TrainedLm {
  recurlab::testing::TempRoot temp{"recurlab_lm_commands"};
  std::string model_dir, test_text;
  double test_nats = 0, test_bpc = 0;

  TrainedLm() {
    const fs::path& root = temp.root;
    std::string text;
    for (int i = 0; i < 300; ++i) text += (i % 3 ? "the cat sat " : "on a mat ") + std::string(i % 7 ? "" : "\n");
    test_text = text.substr(0, 700);
    std::ofstream(root / "train.txt") << text;
    std::ofstream(root / "valid.txt") << text.substr(100, 600);
    std::ofstream(root / "test.txt") << test_text;
    const auto config = LmConfig::fromJson({
        {"seed", 5},
        {"corpus", {{"name", "toy"}, {"format", "chars"}, {"train", (root / "train.txt").string()},
                    {"valid", (root / "valid.txt").string()}, {"test", (root / "test.txt").string()}}},
        {"lm", {{"embed_dim", 8}, {"batch_size", 4}, {"bptt", 20}, {"eval_batch_size", 3}}},
        {"train", {{"optimizer", "adam"}, {"lr", 0.01}, {"max_epochs", 3}}},
        {"models", {{"sru", {{"encoder", "sru"}, {"config", {{"layers", 2}, {"hidden", 12}, {"dropout", 0.1}}}}}}}});
    LmTask task(config, root.string());
    recurlab::testing::trainInProcess(task, "lm", (root / "run").string(), 5,
                                      [&](const Hdf5RunLog& log) {
                                        test_nats = log.doubleAttribute("/toy/sru", "test_nats");
                                        test_bpc = log.doubleAttribute("/toy/sru", "test_bpc");
                                      });
    model_dir = (root / "run" / "models" / "toy" / "sru").string();
  }
};

TrainedLm& trained() {
  static TrainedLm lm;  // trained once for the tests of this file
  return lm;
}

TEST(LmCommands, KeptModelScoresTheTestTextAtTheRunsTestBpc) {
  recurlab::applyThreadCount(1);
  auto& t = trained();
  ASSERT_TRUE(fs::exists(t.model_dir + "/manifest.json")) << t.model_dir;
  const auto manifest = recurlab::testing::readJsonAt(t.model_dir + "/manifest.json");
  EXPECT_EQ(manifest.at("weights"), "best");
  EXPECT_EQ(manifest.at("metric"), "test_bpc");
  EXPECT_EQ(manifest.at("value").get<double>(), t.test_bpc);
  EXPECT_FALSE(fs::exists(fs::path(t.model_dir).parent_path().parent_path().parent_path() / "checkpoints" / "toy_sru"))
      << "the checkpoints outlived the unit";
  auto model = loadKeptLanguageModel(t.model_dir);
  const auto score = scoreSymbols(model, model.encode(t.test_text, "test.txt"), 0, "test.txt");
  EXPECT_EQ(score.streams, 3);
  EXPECT_EQ(score.segment_length, 20);
  EXPECT_EQ(score.nats, t.test_nats);
}

TEST(LmCommands, GenerateIsFixedByItsSeed) {
  auto& t = trained();
  auto model = loadKeptLanguageModel(t.model_dir);
  SampleOptions o;
  o.length = 40;
  o.temperature = 2.5;  // flat enough that two seeds part on a text this predictable
  const auto seed_ids = model.encode("the cat", "--seed-text");
  const auto a = sampleSymbols(model, seed_ids, o);
  const auto b = sampleSymbols(model, seed_ids, o);
  o.seed = 2;
  const auto c = sampleSymbols(model, seed_ids, o);
  ASSERT_EQ(a.size(), seed_ids.size() + 40);
  EXPECT_EQ(std::vector<int64_t>(a.begin(), a.begin() + 7), seed_ids);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  o.top_k = 1;  // the most likely symbol each time: no randomness left
  const auto greedy = sampleSymbols(model, seed_ids, o);
  o.seed = 3;
  EXPECT_EQ(sampleSymbols(model, seed_ids, o), greedy);
}

TEST(LmCommands, TheBinaryScoresGeneratesAndRefusesBadInputNamingTheFile) {
  auto& t = trained();
  const std::string program = recurlab::testing::siblingBinary("recurlab_lm");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  const fs::path& root = t.temp.root;
  const recurlab::testing::ModelCommandRuns commands(program, (root / "commands.txt").string());
  const std::string out = (root / "out.txt").string();
  ASSERT_EQ(commands.run({"score", "--model", t.model_dir, "-i", (root / "test.txt").string(), "-o", out, "--threads", "1"}), 0)
      << commands.said();
  char expected[32];
  std::snprintf(expected, sizeof expected, "bpc %.4f (", t.test_bpc);
  EXPECT_EQ(fileText(out).rfind(expected, 0), 0u) << fileText(out);
  const std::vector<std::string> generate = {"generate", "--model", t.model_dir, "--seed-text", "the ",
                                             "--length", "30", "--seed", "7", "-o", out};
  ASSERT_EQ(commands.run(generate), 0) << commands.said();
  const auto first = fileText(out);
  ASSERT_EQ(commands.run(generate), 0);
  EXPECT_EQ(fileText(out), first);
  EXPECT_EQ(first.rfind("the ", 0), 0u) << first;

  std::ofstream(root / "empty.txt");
  commands.expectRefused({"score", "--model", t.model_dir, "-i", (root / "empty.txt").string()}, (root / "empty.txt").string() + ": empty input");
  std::ofstream(root / "latin1.txt") << "caf\xe9 au lait\n";
  commands.expectRefused({"score", "--model", t.model_dir, "-i", (root / "latin1.txt").string()},
          (root / "latin1.txt").string() + ": not valid UTF-8: byte 0xE9 at offset 3");
  commands.expectRefused({"score", "--model", (root / "run").string(), "-i", (root / "test.txt").string()},
          (root / "run").string() + "/manifest.json: missing");
  // A copy of the folder altered three ways: another task, a vocabulary that does not fit,
  // a file missing.
  const std::string copy = (root / "copy").string();
  auto fresh_copy = [&] {
    fs::remove_all(copy);
    fs::copy(t.model_dir, copy);
  };
  fresh_copy();
  auto manifest = recurlab::testing::readJsonAt(copy + "/manifest.json");
  manifest["task"] = "mt";
  recurlab::testing::writeJsonAt(copy + "/manifest.json", manifest);
  commands.expectRefused({"score", "--model", copy, "-i", (root / "test.txt").string()},
          copy + "/manifest.json: a model of task 'mt', not 'lm'");
  fresh_copy();
  auto vocabulary = recurlab::testing::readJsonAt(copy + "/vocabulary.json");
  vocabulary["symbols"].erase(vocabulary["symbols"].size() - 1);
  recurlab::testing::replaceKeptFile(copy, "vocabulary.json", vocabulary.dump());
  commands.expectRefused({"score", "--model", copy, "-i", (root / "test.txt").string()}, copy + "/vocabulary.json: ");
  fresh_copy();
  fs::remove(copy + "/weights.pt");
  commands.expectRefused({"generate", "--model", copy}, copy + "/weights.pt: missing");
  commands.expectRefused({"score", "--model", t.model_dir, "--beam", "3"}, "unrecognised option '--beam'");
}

}  // namespace
}  // namespace recurlab::experiments
