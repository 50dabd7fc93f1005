#include "experiments/run_directory.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

TEST(RunDirectoryTest, WritesRootAttributesResumesAndSummarises) {
  const fs::path root = fs::temp_directory_path() / ("recurlab-rundir-" + std::to_string(getpid()));
  fs::remove_all(root);
  MachineInfo m;
  m.blas_core = "SkylakeX";
  m.gemm_gflops = 200;
  m.libtorch_version = "1.13.1";
  m.device = "cpu";
  m.threads = 2;
  m.hostname = "h";
  const char* args[] = {"exp_x", "--set", "a=b c"};
  RunDirectoryOptions o{"unit"};
  o.results_root = root.string();
  o.run_id = "r1";
  {
    RunDirectory run(o, 3, const_cast<char**>(args), nlohmann::json{{"k", 1}}, 7, m);
    EXPECT_EQ(run.path(), (root / "unit" / "r1").string());
    EXPECT_FALSE(run.resumed());
    run.writeSummary({{"acc", 0.5}});
    run.finish();
  }
  {
    RunDirectory again(o, 3, const_cast<char**>(args), nlohmann::json{{"k", 1}}, 7, m);
    EXPECT_TRUE(again.resumed());
  }
  const Hdf5RunLog log((root / "unit" / "r1" / "log.h5").string(), Hdf5RunLog::Mode::ReadOnly);
  EXPECT_EQ(log.stringAttribute("/", "experiment"), "unit");
  EXPECT_EQ(log.stringAttribute("/", "command_line"), "exp_x --set 'a=b c'");
  EXPECT_EQ(nlohmann::json::parse(log.stringAttribute("/", "config")).at("k"), 1);
  EXPECT_EQ(log.intAttribute("/", "seed"), 7);
  EXPECT_EQ(log.stringAttribute("/", "blas_core"), "SkylakeX");
  EXPECT_EQ(log.intAttribute("/", "resumed"), 1);
  EXPECT_FALSE(log.stringAttribute("/", "git_commit").empty());
  EXPECT_FALSE(log.stringAttribute("/", "end_time").empty());
  std::ifstream in(root / "unit" / "r1" / "summary.json");
  EXPECT_EQ(nlohmann::json::parse(in).at("acc"), 0.5);
  // An automatic run id never reuses a folder.
  RunDirectoryOptions fresh{"unit"};
  fresh.results_root = root.string();
  RunDirectory a(fresh, 1, const_cast<char**>(args), {}, 1, m);
  RunDirectory b(fresh, 1, const_cast<char**>(args), {}, 1, m);
  EXPECT_NE(a.path(), b.path());
  fs::remove_all(root);
}

}  // namespace
}  // namespace recurlab::experiments
