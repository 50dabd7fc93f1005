// The MT task end to end on a slice of the real Multi30k validation files with a tiny
// Transformer: subwords trained into the run folder, the Trainer's epochs table with the MT
// columns, beam-search test translations, BLEU with its signature and the attention maps in the
// log; the same seed gives bit-identical tables in two fresh runs. (Resume after a kill, the
// reuse of the stored subword model and the choice of the averaged epochs are tested in
// mt_kill_resume_test.cpp and tests/experiments/training/checkpoint_averaging_test.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/runtime/thread_count.h"
#include "common/log/hdf5_run_log.h"
#include "tasks/mt/mt_task.h"
#include "tests/support/in_process_run.h"
#include "tests/support/required.h"
#include "tests/support/temp_root.h"
#include "tests/support/tiny_multi30k.h"

namespace fs = std::filesystem;
using namespace recurlab::experiments;

namespace {

// <dir>/data: 160 train, 20 valid and 10 test pairs (plain text files).
fs::path writeSlices() {
  const auto dir = recurlab::testing::perProcessTempPath("recurlab_mt_task_test_");
  fs::remove_all(dir);
  recurlab::testing::writeTinyMulti30k(dir / "data");
  return dir;
}

MtConfig tinyConfig() { return MtConfig::fromJson(recurlab::testing::tinyMtConfig()); }

void runOnce(const fs::path& root, const std::string& folder) {
  MtTask task(tinyConfig(), (root / "data").string());
  recurlab::testing::trainInProcess(task, "mt", (root / folder).string(), 3);
}

}  // namespace

TEST(MtTask, TrainsDecodesAndLogsEverythingTheReportNeeds) {
  RECURLAB_REQUIRE_OR_SKIP(recurlab::testing::tinyMulti30kUnavailableReason());
  recurlab::applyThreadCount(1);
  const auto root = writeSlices();
  runOnce(root, "a");
  runOnce(root, "b");
  Hdf5RunLog a((root / "a" / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
  Hdf5RunLog b((root / "b" / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
  const auto table = a.readTable("/tiny/epochs");
  for (const char* c : {"train_nll", "valid_loss", "valid_ppl", "valid_bleu", "test_bleu",
                        "test_bleu_lc", "test_sentences_per_second", "examples_per_second"})
    EXPECT_NE(std::find(table.columns.begin(), table.columns.end(), c), table.columns.end()) << c;
  ASSERT_EQ(table.rows.size(), 2u);
  // Same seed: bit-identical losses, perplexities, BLEU and learning rates (times differ).
  const auto again = b.readTable("/tiny/epochs");
  for (const char* c : {"epoch", "train_loss", "train_nll", "valid_loss", "valid_ppl", "valid_bleu",
                        "test_bleu", "test_bleu_lc", "lr"})
    EXPECT_EQ(table.column(c), again.column(c)) << c;
  EXPECT_EQ(a.readText("/tiny/test_translations"), b.readText("/tiny/test_translations"));
  EXPECT_EQ(a.stringAttribute("/tiny", "status"), "finished");
  EXPECT_EQ(a.intAttribute("/tiny", "checkpoints_averaged"), 2);
  // 160 lines: the pairs over max_length (60 subwords of a 300-piece vocabulary) are dropped
  // and counted.
  EXPECT_EQ(a.intAttribute("/tiny", "train_pairs") + a.intAttribute("/tiny", "train_too_long_dropped"), 160);
  EXPECT_GT(a.intAttribute("/tiny", "train_too_long_dropped"), 0);
  EXPECT_EQ(a.intAttribute("/tiny", "test_pairs"), 10);
  const auto valid_ppl = table.column("valid_ppl");
  EXPECT_GT(valid_ppl[0], 1.0);
  EXPECT_LT(valid_ppl[1], valid_ppl[0]);  // it learns something in two epochs
  std::istringstream translations(a.readText("/tiny/test_translations"));
  std::string line;
  int lines = 0;
  while (std::getline(translations, line)) ++lines;
  EXPECT_EQ(lines, 10);
  EXPECT_NE(a.stringAttribute("/tiny", "test_bleu_lc_line")
                .find("BLEU|nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|version:2.6.0 = "),
            std::string::npos);
  EXPECT_NE(a.stringAttribute("/tiny", "test_bleu_tok_lc_line")
                .find("BLEU|nrefs:1|case:lc|eff:no|tok:moses-de|smooth:none|version:2.6.0 = "),
            std::string::npos);
  EXPECT_EQ(a.intAttribute("/tiny/attention", "layers"), 2);
  std::vector<uint64_t> shape;
  const auto attention = a.readArray("/tiny/attention/layer_2", &shape);
  ASSERT_EQ(shape.size(), 2u);
  for (uint64_t r = 0; r < shape[0]; ++r) {
    double sum = 0;
    for (uint64_t c = 0; c < shape[1]; ++c) sum += attention[r * shape[1] + c];
    EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << r;  // a distribution over source positions
  }
  EXPECT_TRUE(fs::exists(root / "a" / "subwords" / "joint.model"));
}

TEST(MtTask, MissingDataIsAClearError) {
  MtTask task(tinyConfig(), "/nonexistent-data");
  try {
    task.checkData();
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-data/train.en not found"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("scripts/get-data.sh multi30k"), std::string::npos);
  }
}
