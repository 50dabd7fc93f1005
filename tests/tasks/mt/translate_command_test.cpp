// MT's kept model and `translate`: a tiny Transformer trained in-process on a slice of Multi30k
// leaves <run>/models/<model>/ with the averaged weights the test used; translating the test
// sources with it gives the run's own test translations (same beam), n-best lists start with
// that translation, best first; the binary does the same from a file, and refuses bad input
// (an empty file, a folder of another task, a subword model that does not fit, --nbest above
// the beam) with exit 2 naming the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/log/hdf5_run_log.h"
#include "common/runtime/thread_count.h"
#include "tasks/mt/mt_task.h"
#include "tasks/mt/parallel_corpus.h"
#include "tasks/mt/translate_command.h"
#include "tasks/mt/translation_training.h"
#include "tests/experiments/kept_model/kept_model_test_support.h"
#include "tests/support/child_process.h"
#include "tests/support/in_process_run.h"
#include "tests/support/required.h"
#include "tests/support/temp_root.h"
#include "tests/support/tiny_multi30k.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;
using recurlab::testing::fileText;

std::vector<std::string> linesOf(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

struct TrainedMt {
  recurlab::testing::TempRoot temp{"recurlab_mt_translate"};
  std::string model_dir, test_sources_file;
  std::vector<std::string> test_sources, test_translations;
  double final_valid_nll = 0;
  int64_t unit_seed = 0;

  TrainedMt() {
    const fs::path& root = temp.root;
    recurlab::testing::writeTinyMulti30k(root / "data");  // 160 train, 20 valid, 10 test
    test_sources_file = (root / "data" / "test.en").string();
    const auto config = MtConfig::fromJson(recurlab::testing::tinyMtConfig());
    MtTask task(config, (root / "data").string());
    recurlab::testing::trainInProcess(task, "mt", (root / "run").string(), 3,
                                      [&](const Hdf5RunLog& log) {
                                        test_sources = linesOf(log.readText("/tiny/test_sources"));
                                        test_translations =
                                            linesOf(log.readText("/tiny/test_translations"));
                                        final_valid_nll =
                                            log.doubleAttribute("/tiny", "final_valid_nll");
                                        unit_seed = log.intAttribute("/tiny", "seed");
                                      });
    model_dir = (root / "run" / "models" / "tiny").string();
  }
};

TrainedMt& trained() {
  static TrainedMt mt;
  return mt;
}

TEST(MtTranslate, KeptModelTranslatesTheTestSetAsTheRunDid) {
  RECURLAB_REQUIRE_OR_SKIP(recurlab::testing::tinyMulti30kUnavailableReason());
  recurlab::applyThreadCount(1);
  auto& t = trained();
  const auto manifest = recurlab::testing::readJsonAt(t.model_dir + "/manifest.json");
  EXPECT_EQ(manifest.at("weights"), "averaged");
  EXPECT_EQ(manifest.at("metric"), "test_bleu");
  auto model = loadKeptTranslationModel(t.model_dir);
  EXPECT_EQ(model.decode.beam, 3);
  ASSERT_EQ(t.test_sources.size(), 10u);
  const auto one = translateLines(model, t.test_sources, model.decode);
  ASSERT_EQ(one.size(), t.test_translations.size());
  for (size_t i = 0; i < one.size(); ++i) EXPECT_EQ(one[i].front().second, t.test_translations[i]) << i;
  // The weights are the averaged model's: the valid NLL the run measured with it after
  // averaging (the same batches), which a single epoch's weights do not reach.
  TranslationData valid;
  valid.ids = model.ids;
  const auto corpus = loadParallelCorpus((t.temp.root / "data" / "valid.en").string(),
                                         (t.temp.root / "data" / "valid.de").string(), EmptyLinePolicy::Skip);
  for (const auto& p : corpus.pairs)
    valid.valid.push_back({model.subwords->encode(p.source), model.subwords->encode(p.target)});
  valid.train = valid.valid;
  TranslationTrainingOptions nll_options;
  nll_options.max_tokens = 600;
  TranslationTraining nll(model.model, valid, *model.subwords, nll_options, static_cast<uint64_t>(t.unit_seed));
  EXPECT_NEAR(nll.meanNll(valid.valid), t.final_valid_nll, 1e-9 * t.final_valid_nll);
  auto options = model.decode;
  options.nbest = 3;
  const auto three = translateLines(model, t.test_sources, options);
  size_t full = 0;
  for (size_t i = 0; i < three.size(); ++i) {
    ASSERT_FALSE(three[i].empty());
    EXPECT_LE(three[i].size(), 3u);
    full += three[i].size() == 3;
    EXPECT_EQ(three[i].front().second, t.test_translations[i]) << i;
    EXPECT_EQ(three[i].front().first, one[i].front().first) << i;
    for (size_t k = 1; k < three[i].size(); ++k) EXPECT_LE(three[i][k].first, three[i][k - 1].first);
  }
  EXPECT_GT(full, 0u);
}

TEST(MtTranslate, TheBinaryTranslatesAFileAndRefusesBadInputNamingTheFile) {
  RECURLAB_REQUIRE_OR_SKIP(recurlab::testing::tinyMulti30kUnavailableReason());
  auto& t = trained();
  const std::string program = recurlab::testing::siblingBinary("recurlab_mt");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  const fs::path& root = t.temp.root;
  const std::string out = (root / "out.txt").string();
  const recurlab::testing::ModelCommandRuns commands(program, (root / "commands.txt").string());
  ASSERT_EQ(commands.run({"translate", "--model", t.model_dir, "-i", t.test_sources_file, "-o", out, "--threads", "1"}), 0)
      << commands.said();
  EXPECT_EQ(linesOf(fileText(out)), t.test_translations);
  ASSERT_EQ(commands.run({"translate", "--model", t.model_dir, "-i", t.test_sources_file, "-o", out, "--nbest", "2"}), 0)
      << commands.said();
  const auto nbest = linesOf(fileText(out));
  ASSERT_FALSE(nbest.empty());
  EXPECT_EQ(nbest[0].rfind("1\t", 0), 0u) << nbest[0];
  EXPECT_EQ(nbest[0].substr(nbest[0].rfind('\t') + 1), t.test_translations[0]);

  std::ofstream(root / "empty.txt");
  commands.expectRefused({"translate", "--model", t.model_dir, "-i", (root / "empty.txt").string()},
          (root / "empty.txt").string() + ": empty input");
  commands.expectRefused({"translate", "--model", t.model_dir, "-i", t.test_sources_file, "--nbest", "4"},
          "--nbest 4 exceeds the beam (3)");
  const std::string copy = (root / "copy").string();
  fs::copy(t.model_dir, copy);
  auto config = recurlab::testing::readJsonAt(copy + "/config.json");
  config["vocabulary"] = 299;
  recurlab::testing::replaceKeptFile(copy, "config.json", config.dump());
  commands.expectRefused({"translate", "--model", copy, "-i", t.test_sources_file},
          copy + "/subwords.model: 300 pieces, the model's vocabulary has 299");
  auto manifest = recurlab::testing::readJsonAt(copy + "/manifest.json");
  manifest["task"] = "lm";
  recurlab::testing::writeJsonAt(copy + "/manifest.json", manifest);
  commands.expectRefused({"translate", "--model", copy, "-i", t.test_sources_file},
          copy + "/manifest.json: a model of task 'lm', not 'mt'");
}

}  // namespace
}  // namespace recurlab::experiments
