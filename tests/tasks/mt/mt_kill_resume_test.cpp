// recurlab_mt killed with SIGKILL at every stage of a run (training the subword model, after
// it, mid-epoch, between writing a checkpoint and putting it in place, while decoding the
// validation set, while decoding the test set with the averaged model) and run again each
// time ends with the uninterrupted run's tables (bit for bit), BLEU and (non-empty)
// translations; each run after a kill went on from the last checkpoint put in place before it
// (tests/support/resume_trace.h), and the stored subword model was reused,
// not retrained. The subword model itself is the same file in every process and for every seed.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "common/log/hdf5_run_log.h"
#include "experiments/harness/run_folder.h"
#include "metrics/corpus_bleu.h"
#include "tasks/mt/subword_model.h"
#include "tests/experiments/harness/run_log_summary.h"
#include "tests/support/child_process.h"
#include "tests/support/file_text.h"
#include "tests/support/required.h"
#include "tests/support/resume_trace.h"
#include "tests/support/temp_root.h"
#include "tests/support/tiny_multi30k.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;
using recurlab::testing::runChild;

// The data-parallel tests' run config (tiny_multi30k.h) with dropout, so that resuming must
// restore the random state too, and a learning rate high enough for the model to say something
// in 2 epochs (at 0.003 it still ended every test sentence at once: empty translations compared
// equal whatever the decoder did).
nlohmann::json mtKillConfig() {
  auto config = recurlab::testing::tinyMtRunConfig();
  config["train"]["lr"] = 0.03;
  config["models"]["tiny"]["config"]["dropout"] = 0.1;
  return config;
}

// A double with the 17 significant digits that tell every double apart: compared bit for bit.
std::string exactly(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

// What must not depend on kills: the epochs table without its timing columns, the final test
// BLEU lines, the translations and how many checkpoints were averaged.
std::string resultOf(const fs::path& folder) {
  Hdf5RunLog log((folder / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
  std::string s = log.stringAttribute("/tiny", "status") + "\n";
  const auto table = log.readTable("/tiny/epochs");
  for (const auto& row : table.rows) {
    for (size_t j = 0; j < row.size(); ++j)
      if (table.columns[j].find("second") == std::string::npos)
        s += table.columns[j] + "=" + exactly(row[j]) + " ";
    s += "\n";
  }
  s += log.stringAttribute("/tiny", "test_bleu_line") + "\n";
  s += log.stringAttribute("/tiny", "test_bleu_lc_line") + "\n";
  s += "averaged " + std::to_string(log.intAttribute("/tiny", "checkpoints_averaged")) + "\n";
  s += log.readText("/tiny/test_translations");
  return s;
}

// The final test translations, one per test sentence.
std::vector<std::string> testTranslations(const fs::path& folder) {
  Hdf5RunLog log((folder / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
  std::istringstream text(log.readText("/tiny/test_translations"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  return lines;
}

std::string readBytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The subword model file's identity: (inode, modification time in ns).
std::pair<uint64_t, int64_t> fileIdentity(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return {0, 0};
  return {st.st_ino, st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec};
}

TEST(MtKillResume, SigkillAtEveryStageResumesToTheUninterruptedResult) {
  RECURLAB_REQUIRE_OR_SKIP(recurlab::testing::tinyMulti30kUnavailableReason());
  const std::string program = recurlab::testing::siblingBinary("recurlab_mt");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  recurlab::testing::TempRoot tmp("recurlab_mt_kill");
  recurlab::testing::writeTinyMulti30k(tmp.root / "data");
  std::ofstream(tmp.root / "config.json") << mtKillConfig().dump();
  auto args = [&](const std::string& out) {
    return std::vector<std::string>{
        "--config", (tmp.root / "config.json").string(), "--data-dir", (tmp.root / "data").string(),
        "--out",    (tmp.root / out).string(),           "--threads",  "1"};
  };
  const std::string output = (tmp.root / "children.txt").string();
  recurlab::testing::ResumeTrace whole_trace(output), trace(output);
  ASSERT_EQ(whole_trace.run(program, args("whole")).exit_code, 0) << whole_trace.describe(0);
  const fs::path model = tmp.root / "killed" / "subwords" / "joint.model";

  // The kills in order, and where the run after each goes on from. Preparation: the subword
  // model written but not yet in place (no model), then in place: nothing to resume. Training
  // (a checkpoint every 2 steps): mid-epoch 1 after the checkpoint of step 2; then, resumed
  // from it, between writing the step-6 checkpoint and putting it in place (step 4's stays).
  // Decoding the validation set at the end of epoch 1 (greedy, batch 2 of 5). The end of
  // training (epoch 2's checkpoint in place): the run that resumes from it only averages and
  // decodes the test set, and is killed in its second batch; the last run resumes from the same.
  const std::vector<recurlab::testing::ChosenKill> kills = {
      {"subwords-part-written:1", "", false}, {"subwords-written:1", "", false},
      {"train-step:3", "epoch 1 batch 2 step 2"}, {"checkpoint-written:2", "epoch 1 batch 4 step 4"},
      {"translate-batch:2"}, {"epoch-end:2"}, {"translate-batch:2"}};
  auto killAt = [&](size_t k) {
    const auto r = trace.run(program, args("killed"), kills.at(k).point);
    EXPECT_TRUE(r.killed) << "the run never reached kill point " << kills[k].point << ": "
                          << trace.describe(trace.runs() - 1);
  };
  killAt(0);
  EXPECT_FALSE(fs::exists(model));
  killAt(1);
  ASSERT_TRUE(fs::exists(model));
  const auto stored_model = fileIdentity(model);
  for (size_t k = 2; k < kills.size(); ++k) killAt(k);
  const auto last = trace.run(program, args("killed"));
  ASSERT_FALSE(last.killed);
  ASSERT_EQ(last.exit_code, 0) << trace.describe(trace.runs() - 1);
  recurlab::testing::expectResumesAfterKills(trace, 0, kills);

  // The comparison means something only when the model translates: every test sentence has
  // words, and not all the same ones.
  const auto translations = testTranslations(tmp.root / "whole");
  ASSERT_EQ(translations.size(), 10u);
  for (size_t i = 0; i < translations.size(); ++i)
    EXPECT_FALSE(translations[i].empty()) << "test sentence " << i + 1 << " translated to nothing";
  EXPECT_GT(std::set<std::string>(translations.begin(), translations.end()).size(), 1u);
  // test_bleu again, from these translations and the test file's German side: the score and its
  // line (n-gram precisions and lengths, which a score of 0 would not show).
  {
    Hdf5RunLog log((tmp.root / "whole" / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
    std::vector<std::string> references;
    std::istringstream text(recurlab::testing::fileText(tmp.root / "data" / "test.de"));
    for (std::string line; std::getline(text, line);) references.push_back(line);
    metrics::BleuOptions mixed, lowercase;
    lowercase.lowercase = true;
    const auto bleu = metrics::corpusBleu(translations, {references}, mixed);
    const auto bleu_lc = metrics::corpusBleu(translations, {references}, lowercase);
    EXPECT_EQ(bleu.score, log.doubleAttribute("/tiny", "test_bleu"));
    EXPECT_EQ(bleu_lc.score, log.doubleAttribute("/tiny", "test_bleu_lc"));
    EXPECT_EQ(metrics::formatBleu(bleu, metrics::bleuSignature(mixed, 1), 2),
              log.stringAttribute("/tiny", "test_bleu_line"));
  }
  EXPECT_EQ(testTranslations(tmp.root / "killed"), translations);
  EXPECT_EQ(resultOf(tmp.root / "killed"), resultOf(tmp.root / "whole"));
  EXPECT_EQ(fileIdentity(model), stored_model) << "the subword model was trained again";
  // sentencepiece trained in two processes (whole, killed) gives the same model, byte for byte.
  EXPECT_EQ(readBytes(model), readBytes(tmp.root / "whole" / "subwords" / "joint.model"));
  EXPECT_EQ(recurlab::testing::resumedUnits((tmp.root / "whole").string()).at("/tiny"), 0);
  EXPECT_EQ(recurlab::testing::resumedUnits((tmp.root / "killed").string()).at("/tiny"), 1);
  // The log says where the last run went on from, as its output did.
  EXPECT_EQ(recurlab::testing::resumePositions((tmp.root / "killed").string()).at("/tiny"),
            trace.lastRunResumedFrom("/tiny"));
}

// The joint subword model trained by separate processes (recurlab_mt stopped once the model is
// in place) is the same file byte for byte, and the root seed does not change it: every
// sentence is used (no sampling, no shuffling) and training is single-threaded, so nothing is
// left for the seed to pick. Unigram models behave the same; they differ from BPE's.
TEST(MtSubwordModel, SameFileInEveryProcessAndForEverySeed) {
  RECURLAB_REQUIRE_OR_SKIP(recurlab::testing::tinyMulti30kUnavailableReason());
  const std::string program = recurlab::testing::siblingBinary("recurlab_mt");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  recurlab::testing::TempRoot tmp("recurlab_mt_subwords");
  recurlab::testing::writeTinyMulti30k(tmp.root / "data");
  std::ofstream(tmp.root / "config.json") << mtKillConfig().dump();
  const std::string output = (tmp.root / "children.txt").string();
  auto modelOf = [&](const std::string& out, const std::string& type, int seed) {
    const auto r = runChild(
        program,
        {"--config", (tmp.root / "config.json").string(), "--data-dir", (tmp.root / "data").string(),
         "--out", (tmp.root / out).string(), "--threads", "1", "--set",
         "seed=" + std::to_string(seed), "--set", "subwords.type=" + type},
        "subwords-written:1", -1, output);
    EXPECT_TRUE(r.killed) << out << ": never wrote its subword model (exit " << r.exit_code
                          << "; see " << output << ")";
    return readBytes(tmp.root / out / "subwords" / "joint.model");
  };
  const auto bpe = modelOf("bpe-seed-3", "bpe", 3);
  ASSERT_GT(bpe.size(), 1000u);
  EXPECT_TRUE(bpe == modelOf("bpe-seed-3-again", "bpe", 3)) << "another process, another model";
  EXPECT_TRUE(bpe == modelOf("bpe-seed-4", "bpe", 4)) << "the seed changed the BPE model";
  const auto unigram = modelOf("unigram-seed-3", "unigram", 3);
  ASSERT_GT(unigram.size(), 1000u);
  EXPECT_TRUE(unigram != bpe);
  EXPECT_TRUE(unigram == modelOf("unigram-seed-4", "unigram", 4))
      << "the seed changed the unigram model";
  EXPECT_EQ(SubwordModel::load((tmp.root / "bpe-seed-4" / "subwords" / "joint.model").string())
                .size(),
            300);
}

}  // namespace
}  // namespace recurlab::experiments
