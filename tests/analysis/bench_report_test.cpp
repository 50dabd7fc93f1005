// The bench report from a hand-made log with fake timings: per-round ratios and their median,
// thread scaling of our side, the targets' verdicts, the ratio figure, and a run without PyTorch.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/report_registry.h"
#include "common/log/hdf5_run_log.h"
#include "tests/support/temp_root.h"
#include "tests/support/file_text.h"

namespace recurlab::analysis {
namespace {

namespace fs = std::filesystem;
using experiments::Hdf5RunLog;

using recurlab::testing::fileText;

// One case: per round and thread count, our seconds and theirs for `units` units.
struct FakeRound {
  int threads, round;
  double ours_seconds, theirs_seconds;
};

void addCase(Hdf5RunLog& log, int index, const std::string& name, const std::string& unit,
             double units, const std::vector<FakeRound>& rounds, bool with_pytorch) {
  const std::string g = "/bench/cases/" + std::to_string(index);
  log.createGroup(g);
  log.setAttribute(g, "status", std::string("finished"));
  log.setAttribute(g, "case", name);
  log.setAttribute(g, "title", name + " title");
  log.setAttribute(g, "unit", unit);
  log.setAttribute(g, "baseline", std::string(with_pytorch ? "nn.Something" : ""));
  log.setAttribute(g, "baseline_error", std::string());
  log.setAttribute(g, "parameters", int64_t{1000});
  log.setAttribute(g, "baseline_parameters", int64_t{with_pytorch ? 1010 : 0});
  log.createTable(g + "/timings", {"threads", "side", "round", "steps", "seconds", "units"});
  for (const auto& r : rounds) {
    log.appendRow(g + "/timings", {double(r.threads), 0, double(r.round), 2, r.ours_seconds, units});
    if (with_pytorch)
      log.appendRow(g + "/timings",
                    {double(r.threads), 1, double(r.round), 2, r.theirs_seconds, units});
  }
}

void writeRoot(Hdf5RunLog& log, bool with_pytorch) {
  log.setAttribute("/", "experiment", std::string("bench"));
  log.setAttribute("/", "config", std::string("{}"));
  log.createGroup("/bench");
  log.setAttribute("/bench", "pytorch_available", int64_t{with_pytorch ? 1 : 0});
  log.setAttribute("/bench", "pytorch_version", std::string(with_pytorch ? "1.13.0" : ""));
  log.setAttribute("/bench", "pytorch_unavailable_reason",
                   std::string(with_pytorch ? "" : "no module named torch"));
  log.setAttribute("/bench", "cpu_model", std::string("Test CPU"));
  log.setAttribute("/bench", "cores", std::string("2"));
  log.setAttribute("/bench", "load_average", std::string("0.1 0.2 0.3"));
}

TEST(BenchReport, RatiosScalingAndTargetsFromFakeTimings) {
  testing::TempRoot dir;
  {
    Hdf5RunLog log(dir.file("log.h5"), Hdf5RunLog::Mode::Create);
    writeRoot(log, true);
    // MT: per-round ratios at 1 thread 2.0, 1.5, 1.2 (median 1.5: met); at 2 threads 1.0,
    // 1.25, 1.1 (median 1.1: missed).
    addCase(log, 0, "mt_train", "target tokens", 4000,
            {{1, 0, 1.0, 2.0}, {2, 0, 1.0, 1.0}, {1, 1, 1.0, 1.5}, {2, 1, 0.8, 1.0},
             {1, 2, 1.0, 1.2}, {2, 2, 1.0, 1.1}},
            true);
    // LM: our 2-thread rounds take 0.5 and 0.625 of the 1-thread time: scaling 2.0 and 1.6,
    // median 1.8; ratios over the LSTM 3.0 and 2.5 at 1 thread, 3.0 and 2.0 at 2.
    addCase(log, 1, "lm_sru_vs_lstm", "characters", 6400,
            {{1, 0, 2.0, 6.0}, {2, 0, 1.0, 3.0}, {1, 1, 2.0, 5.0}, {2, 1, 1.25, 2.5}}, true);
  }
  analyzeRun(dir.path().string());
  const auto md = fileText(dir.path() / "report.md");
  const auto summary = nlohmann::json::parse(fileText(dir.path() / "summary.json"));
  const auto& mt = summary["cases"]["mt_train"];
  EXPECT_NEAR(mt["ratio"]["1"].get<double>(), 1.5, 1e-9);
  EXPECT_NEAR(mt["ratio"]["2"].get<double>(), 1.1, 1e-9);
  EXPECT_NEAR(mt["recurlab_per_second"]["1"].get<double>(), 4000, 1e-9);
  // PyTorch's 1-thread rates 2000, 2667, 3333: median 2667.
  EXPECT_NEAR(mt["pytorch_per_second"]["1"].get<double>(), 4000 / 1.5, 1e-6);
  EXPECT_NEAR(summary["cases"]["lm_sru_vs_lstm"]["scaling_1_to_2"].get<double>(), 1.8, 1e-9);
  EXPECT_TRUE(summary["targets"]["mt_train_t1"]["met"].get<bool>());
  EXPECT_FALSE(summary["targets"]["mt_train_t2"]["met"].get<bool>());
  EXPECT_TRUE(summary["targets"]["lm_sru_vs_lstm_t1"]["met"].get<bool>());
  EXPECT_TRUE(summary["targets"]["scaling_lm_sru_vs_lstm"]["met"].get<bool>());
  EXPECT_NEAR(summary["targets"]["lm_sru_vs_lstm_t2"]["value"].get<double>(), 2.5, 1e-9);
  // Honest units in the table, the ratio with its range, the verdicts in words.
  EXPECT_NE(md.find("| mt_train | target tokens/s | 1 | 4000 | 2667 | 1.50× (1.20–2.00) |"),
            std::string::npos) << md;
  EXPECT_NE(md.find("characters/s"), std::string::npos) << md;
  EXPECT_NE(md.find("met: 1.50× ≥ 1.3"), std::string::npos) << md;
  EXPECT_NE(md.find("missed: 1.10× < 1.3"), std::string::npos) << md;
  EXPECT_NE(md.find("Test CPU, 2 cores"), std::string::npos) << md;
  EXPECT_TRUE(fs::exists(dir.path() / "bench_ratios.gp"));
  EXPECT_TRUE(fs::exists(dir.path() / "bench.csv"));
}

TEST(BenchReport, WithoutPytorchSaysSoAndShowsOurRatesAlone) {
  testing::TempRoot dir;
  {
    Hdf5RunLog log(dir.file("log.h5"), Hdf5RunLog::Mode::Create);
    writeRoot(log, false);
    addCase(log, 0, "cls_sru", "sentences", 32, {{1, 0, 0.1, 0}, {2, 0, 0.05, 0}}, false);
  }
  analyzeRun(dir.path().string());
  const auto md = fileText(dir.path() / "report.md");
  const auto summary = nlohmann::json::parse(fileText(dir.path() / "summary.json"));
  EXPECT_NE(md.find("**No PyTorch side**: no module named torch"), std::string::npos) << md;
  EXPECT_NEAR(summary["cases"]["cls_sru"]["recurlab_per_second"]["1"].get<double>(), 320, 1e-9);
  EXPECT_FALSE(summary["cases"]["cls_sru"].contains("ratio"));
  EXPECT_NEAR(summary["targets"]["scaling_cls_sru"]["value"].get<double>(), 2.0, 1e-9);
  EXPECT_FALSE(fs::exists(dir.path() / "bench_ratios.gp"));  // no ratio, no figure
  EXPECT_EQ(md.find("Idle threads"), std::string::npos) << md;  // an older log: not named
  EXPECT_EQ(md.find("OpenBLAS ran on one thread"), std::string::npos) << md;
}

// How idle threads waited and how many threads OpenBLAS had change the 2-thread rates severalfold:
// the report names both.
TEST(BenchReport, NamesTheThreadWaitsAndSingleThreadedBlas) {
  testing::TempRoot dir;
  {
    Hdf5RunLog log(dir.file("log.h5"), Hdf5RunLog::Mode::Create);
    writeRoot(log, true);
    log.setAttribute("/bench", "thread_waits",
                     std::string("OMP_WAIT_POLICY=PASSIVE, OPENBLAS_THREAD_TIMEOUT=4"));
    log.setAttribute("/bench", "blas_threads", std::string("1"));
    addCase(log, 0, "mt_train", "target tokens", 4000, {{1, 0, 1.0, 2.0}, {2, 0, 1.0, 1.0}}, true);
  }
  analyzeRun(dir.path().string());
  const auto md = fileText(dir.path() / "report.md");
  EXPECT_NE(md.find("Idle threads (both sides): OMP_WAIT_POLICY=PASSIVE, OPENBLAS_THREAD_TIMEOUT=4."),
            std::string::npos) << md;
  EXPECT_NE(md.find("OpenBLAS ran on one thread on both sides"), std::string::npos) << md;
  // The environment table gives the bench's per-measurement setting, not the process's.
  EXPECT_NE(md.find("| BLAS threads | per measurement: 1 |"), std::string::npos) << md;
}

TEST(BenchReport, EnvironmentSaysOpenBlasFollowsEachMeasurementsThreads) {
  testing::TempRoot dir;
  {
    Hdf5RunLog log(dir.file("log.h5"), Hdf5RunLog::Mode::Create);
    writeRoot(log, true);
    log.setAttribute("/", "blas_threads", int64_t{1});
    log.setAttribute("/bench", "blas_threads", std::string("the thread count"));
    addCase(log, 0, "mt_train", "target tokens", 4000, {{1, 0, 1.0, 2.0}, {2, 0, 1.0, 1.0}}, true);
  }
  analyzeRun(dir.path().string());
  const auto md = fileText(dir.path() / "report.md");
  EXPECT_NE(md.find("| BLAS threads | per measurement: the thread count |"), std::string::npos) << md;
}

}  // namespace
}  // namespace recurlab::analysis
