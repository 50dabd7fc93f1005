// OpenBLAS's threads in a run (DriverSpec::BlasThreads): recurlab_lm at --threads 2 gives
// OpenBLAS two threads with idle threads sleeping (the process re-execs itself with the waits
// set) and still repeats bit for bit; at --threads 1 nothing changes; a One driver (the toy
// task) keeps OpenBLAS on one thread at --threads 2. The log records both settings.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/log/hdf5_run_log.h"
#include "common/runtime/openblas_core.h"
#include "tests/experiments/harness/run_log_summary.h"
#include "tests/support/child_process.h"
#include "tests/support/required.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;
using recurlab::testing::runChild;

struct RunSettings {
  int64_t blas_threads = -1;
  std::string thread_waits;
};

RunSettings settingsOf(const fs::path& folder) {
  Hdf5RunLog log((folder / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
  return {log.intAttribute("/", "blas_threads"), log.stringAttribute("/", "thread_waits")};
}

// The test's own environment decides what the children may change.
bool userSetsBlasThreads() { return std::getenv("OPENBLAS_NUM_THREADS") != nullptr; }
bool userKeepsLibraryWaits() {
  const char* v = std::getenv("RECURLAB_LIBRARY_WAITS");
  return (v && std::string(v) != "0") || std::getenv("OMP_WAIT_POLICY") ||
         std::getenv("OPENBLAS_THREAD_TIMEOUT");
}

class BlasThreads : public ::testing::Test {
 protected:
  void SetUp() override {
    RECURLAB_SKIP_NOT_THIS_BUILD(openBlasThreads() == 0 ? "the BLAS is not OpenBLAS" : "");
  }
  recurlab::testing::TempRoot tmp{"recurlab_blas_threads"};
  std::string output() const { return (tmp.root / "children.txt").string(); }
};

TEST_F(BlasThreads, LmAtTwoThreadsGivesOpenBlasTwoWithSleepingWaitsAndRepeatsBitForBit) {
  const std::string program = recurlab::testing::siblingBinary("recurlab_lm");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  std::string text;
  for (int i = 0; i < 300; ++i) text += (i % 3 ? "the cat sat " : "on a mat ");
  for (const char* split : {"train.txt", "valid.txt", "test.txt"})
    std::ofstream(tmp.root / split) << (std::string(split) == "train.txt" ? text : text.substr(0, 600));
  const nlohmann::json config = {
      {"experiment", "lm"},
      {"seed", 5},
      {"corpus", {{"name", "toy"}, {"format", "chars"}, {"train", (tmp.root / "train.txt").string()},
                  {"valid", (tmp.root / "valid.txt").string()}, {"test", (tmp.root / "test.txt").string()}}},
      {"lm", {{"embed_dim", 8}, {"batch_size", 4}, {"bptt", 20}, {"eval_batch_size", 2},
              {"output_dropout", 0.1}}},
      {"train", {{"optimizer", "adam"}, {"lr", 0.01}, {"max_epochs", 1}}},
      {"models", {{"sru", {{"encoder", "sru"}, {"config", {{"layers", 2}, {"hidden", 12}, {"dropout", 0.1}}}}}}}};
  std::ofstream(tmp.root / "config.json") << config.dump();
  auto run = [&](const std::string& out, const char* threads) {
    const auto r = runChild(program, {"--config", (tmp.root / "config.json").string(), "--threads",
                                      threads, "--out", (tmp.root / out).string()},
                            "", -1, output());
    ASSERT_EQ(r.exit_code, 0) << "see " << output();
  };
  run("a", "2");
  run("b", "2");
  run("one", "1");
  const auto a = settingsOf(tmp.root / "a"), one = settingsOf(tmp.root / "one");
  if (!userSetsBlasThreads()) {
    EXPECT_EQ(a.blas_threads, 2);
    EXPECT_EQ(one.blas_threads, 1);
  }
  if (!userKeepsLibraryWaits()) {
    EXPECT_EQ(a.thread_waits, "OMP_WAIT_POLICY=PASSIVE, OPENBLAS_THREAD_TIMEOUT=4");
    EXPECT_EQ(one.thread_waits, "library defaults");
  }
  const auto units = recurlab::testing::finishedUnits((tmp.root / "a").string());
  ASSERT_EQ(units.size(), 1u);
  EXPECT_EQ(recurlab::testing::finishedUnits((tmp.root / "b").string()), units);
}

TEST_F(BlasThreads, AOneDriverKeepsOpenBlasOnOneThreadAtTwoThreads) {
  const std::string program = recurlab::testing::siblingBinary("recurlab_toy_task");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  const auto r = runChild(program, {"--out", (tmp.root / "toy").string(), "--threads", "2",
                                    "--set", "seeds=1", "--set",
                                    R"(train={"examples": 16, "batch_size": 4, "max_epochs": 1})"},
                          "", -1, output());
  ASSERT_EQ(r.exit_code, 0) << "see " << output();
  const auto toy = settingsOf(tmp.root / "toy");
  if (!userSetsBlasThreads()) {
    EXPECT_EQ(toy.blas_threads, 1);
  }
  if (!userKeepsLibraryWaits()) {
    EXPECT_EQ(toy.thread_waits, "library defaults");
  }
}

}  // namespace
}  // namespace recurlab::experiments
