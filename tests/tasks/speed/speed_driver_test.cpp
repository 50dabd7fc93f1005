// recurlab_speed on the one run folder: running the same command again into the same folder
// adds no timing rows (it used to append duplicates), and another config is refused naming the
// differing key. Its report's medians agree with the log's timing rows.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/log/hdf5_run_log.h"
#include "tests/support/child_process.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

TEST(RecurlabSpeed, RerunIntoTheSameFolderAddsNoRowsAndAnotherConfigIsRefused) {
  const std::string program = recurlab::testing::siblingBinary("recurlab_speed");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  const fs::path root = recurlab::testing::perProcessTempPath("recurlab_speed_");
  fs::remove_all(root);
  fs::create_directories(root);
  const std::string out = (root / "run").string(), output = (root / "output.txt").string();
  const std::vector<std::string> args = {"--sizes", "8x16", "--no-sweeps", "--repeats", "3",
                                         "--warmup", "0", "--models", "sru,lstm", "--threads",
                                         "1", "--out", out};
  auto rows = [&] {
    Hdf5RunLog log(out + "/log.h5", Hdf5RunLog::Mode::ReadOnly);
    size_t n = 0;  // one unit per shape, each with its table
    for (const auto& shape : log.children("/speed/shapes"))
      n += log.readTable("/speed/shapes/" + shape + "/timings").rows.size();
    return n;
  };
  // recurlab_analyze is built with the tests: both runs (the report included) succeed.
  ASSERT_EQ(recurlab::testing::runChild(program, args, "", -1, output).exit_code, 0)
      << "see " << output;
  ASSERT_EQ(rows(), 6u) << "see " << output;
  {
    // The report against the log: summary.json's median per model is the median of the 3
    // repetitions (the middle one, not their mean) of that model's rows in the one shape's
    // table, in ms.
    Hdf5RunLog log(out + "/log.h5", Hdf5RunLog::Mode::ReadOnly);
    const auto models = nlohmann::json::parse(log.stringAttribute("/speed", "models"));
    ASSERT_EQ(log.children("/speed/shapes").size(), 1u);
    const auto timings = log.readTable("/speed/shapes/0/timings");
    const auto model = timings.column("model"), seconds = timings.column("seconds");
    std::ifstream summary_file(out + "/summary.json");
    ASSERT_TRUE(summary_file) << "no summary.json";
    const auto summary = nlohmann::json::parse(summary_file);
    const auto& medians = summary.at("main_sizes").at(0).at("median_ms");
    ASSERT_EQ(models.size(), 2u);
    for (size_t m = 0; m < models.size(); ++m) {
      std::vector<double> v;
      for (size_t r = 0; r < model.size(); ++r)
        if (model[r] == static_cast<double>(m)) v.push_back(seconds[r]);
      ASSERT_EQ(v.size(), 3u) << models[m];
      std::sort(v.begin(), v.end());
      const double expected_ms = v[1] * 1e3;
      const double reported = medians.at(models[m].at("label").get<std::string>()).get<double>();
      EXPECT_NEAR(reported, expected_ms, 1e-9 * expected_ms) << models[m];
    }
  }
  EXPECT_EQ(recurlab::testing::runChild(program, args, "", -1, output).exit_code, 0)
      << "see " << output;
  EXPECT_EQ(rows(), 6u);
  auto other = args;
  other[8] = "sru";
  const auto refused = recurlab::testing::runChild(program, other, "", -1, output);
  EXPECT_NE(refused.exit_code, 0);
  std::ifstream in(output);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("holds a run with another config"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("models:"), std::string::npos);
  EXPECT_EQ(rows(), 6u);
  fs::remove_all(root);
}

// Timed without the SRU, the tables have no "× SRU" column (it printed nan in every row).
TEST(RecurlabSpeed, WithoutTheSruTheReportHasNoRatioToIt) {
  const std::string program = recurlab::testing::siblingBinary("recurlab_speed");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  const fs::path root = recurlab::testing::perProcessTempPath("recurlab_speed_no_sru_");
  fs::remove_all(root);
  fs::create_directories(root);
  const std::string out = (root / "run").string(), output = (root / "output.txt").string();
  ASSERT_EQ(recurlab::testing::runChild(program, {"--sizes", "8x16", "--no-sweeps", "--repeats",
                                                  "2", "--warmup", "0", "--models", "lstm,qrnn",
                                                  "--threads", "1", "--out", out},
                                        "", -1, output).exit_code, 0)
      << "see " << output;
  std::ifstream in(out + "/report.md");
  std::stringstream report;
  report << in.rdbuf();
  ASSERT_NE(report.str().find("| QRNN (window 2) |"), std::string::npos) << report.str();
  EXPECT_EQ(report.str().find("× SRU"), std::string::npos) << report.str();
  EXPECT_EQ(report.str().find("nan"), std::string::npos) << report.str();
  fs::remove_all(root);
}

}  // namespace
}  // namespace recurlab::experiments
