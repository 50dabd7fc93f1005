// recurlab_speed on the one run folder: running the same command again into the same folder
// adds no timing rows (it used to append duplicates), and another config is refused naming the
// differing key.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "experiments/log/hdf5_run_log.h"
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
  const std::vector<std::string> args = {"--sizes", "8x16", "--no-sweeps", "--repeats", "2",
                                         "--warmup", "0", "--models", "sru,lstm", "--threads",
                                         "1", "--out", out};
  auto rows = [&] {
    Hdf5RunLog log(out + "/log.h5", Hdf5RunLog::Mode::ReadOnly);
    return log.readTable("/speed/timings").rows.size();
  };
  // recurlab_analyze is built with the tests: both runs (the report included) succeed.
  ASSERT_EQ(recurlab::testing::runChild(program, args, "", -1, output).exit_code, 0)
      << "see " << output;
  ASSERT_EQ(rows(), 4u) << "see " << output;
  EXPECT_EQ(recurlab::testing::runChild(program, args, "", -1, output).exit_code, 0)
      << "see " << output;
  EXPECT_EQ(rows(), 4u);
  auto other = args;
  other[8] = "sru";
  const auto refused = recurlab::testing::runChild(program, other, "", -1, output);
  EXPECT_NE(refused.exit_code, 0);
  std::ifstream in(output);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("holds a run with another config"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("models:"), std::string::npos);
  EXPECT_EQ(rows(), 4u);
  fs::remove_all(root);
}

}  // namespace
}  // namespace recurlab::experiments
