#include "analysis/figure_renderer.h"
#include "analysis/report_registry.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/log/hdf5_run_log.h"
#include "tests/support/file_text.h"
#include "tests/support/required.h"
#include "tests/support/temp_root.h"

namespace recurlab::analysis {
namespace {

using experiments::Hdf5RunLog;
namespace fs = std::filesystem;

using recurlab::testing::fileText;

void writeRoot(Hdf5RunLog& log, const std::string& kind) {
  log.setAttribute("/", "experiment", kind);
  log.setAttribute("/", "command_line", std::string("exp_x --seed 3"));
  log.setAttribute("/", "config", std::string("{\"seed\": 3}"));
  log.setAttribute("/", "git_commit", std::string("abc123"));
  log.setAttribute("/", "libtorch_version", std::string("1.13.1"));
  log.setAttribute("/", "device", std::string("cpu"));
  log.setAttribute("/", "threads", int64_t{2});
  log.setAttribute("/", "blas_core", std::string("SkylakeX"));
  log.setAttribute("/", "gemm_gflops", 250.0);
  log.setAttribute("/", "seed", int64_t{3});
  log.setAttribute("/", "start_time", std::string("2026-11-21T13:44:25Z"));
  log.setAttribute("/", "end_time", std::string("2026-11-21T13:45:25Z"));
}

TEST(ReportRegistryTest, UnknownKindGetsTheGenericReportWithEnvironment) {
  testing::TempRoot tmp;
  {
    Hdf5RunLog log(tmp.file("log.h5"), Hdf5RunLog::Mode::Create);
    writeRoot(log, "made-up-kind");
    log.createTable("/study/rows", {"x", "y"});
    log.appendRow("/study/rows", {1, 2.5});
  }
  const auto files = analyzeRun(tmp.path().string());
  const std::string md = fileText(tmp.file("report.md"));
  EXPECT_NE(md.find("## Environment"), std::string::npos);
  EXPECT_NE(md.find("abc123"), std::string::npos);
  EXPECT_NE(md.find("SkylakeX"), std::string::npos);
  EXPECT_NE(md.find("exp_x --seed 3"), std::string::npos);
  EXPECT_NE(md.find("\"seed\": 3"), std::string::npos);
  EXPECT_NE(md.find("`/study/rows` (table, 1 rows)"), std::string::npos) << md;
  const auto summary = nlohmann::json::parse(fileText(tmp.file("summary.json")));
  EXPECT_EQ(summary.at("experiment"), "made-up-kind");
  EXPECT_EQ(summary.at("git_commit"), "abc123");
  EXPECT_DOUBLE_EQ(summary.at("gemm_gflops").get<double>(), 250.0);
}

// A run whose units trained on two kinds of machine (resumed elsewhere): the environment counts
// the units of each BLAS core, over every shard's log, units logged before cores were recorded
// apart; a run where no unit recorded one shows no such row.
TEST(ReportRegistryTest, EnvironmentCountsTheUnitsOfEachBlasCore) {
  testing::TempRoot tmp;
  {
    Hdf5RunLog log(tmp.file("log.shard-0-of-2.h5"), Hdf5RunLog::Mode::Create);
    writeRoot(log, "made-up-kind");
    for (const char* g : {"/a/folds/0", "/a/folds/1", "/b/folds/0"}) {
      log.createGroup(g);
      log.setAttribute(g, "status", std::string("finished"));
      log.createTable(std::string(g) + "/epochs", {"epoch"});
    }
    log.setAttribute("/a/folds/1", "blas_core", std::string("Cooperlake"));
    log.setAttribute("/b/folds/0", "blas_core", std::string("Zen"));
    log.createGroup("/b/folds/1");  // cut off mid-way: no status, not counted
    log.setAttribute("/b/folds/1", "blas_core", std::string("Zen"));
    log.setAttribute("/", "resumed", int64_t{2});  // the report's root is the first shard's
  }
  {
    Hdf5RunLog log(tmp.file("log.shard-1-of-2.h5"), Hdf5RunLog::Mode::Create);
    writeRoot(log, "made-up-kind");
    log.createGroup("/c");
    log.setAttribute("/c", "status", std::string("finished"));
    log.setAttribute("/c", "blas_core", std::string("Zen"));
  }
  analyzeRun(tmp.path().string());
  const std::string md = fileText(tmp.file("report.md"));
  EXPECT_NE(md.find("Resumed: the machine rows above (git commit to host) are those of the last "
                    "process that opened the log; each unit records its own"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| BLAS core of the units | (not recorded): 1 unit; Cooperlake: 1 unit; Zen: "
                    "2 units |"),
            std::string::npos)
      << md;
  const auto summary = nlohmann::json::parse(fileText(tmp.file("summary.json")));
  EXPECT_EQ(summary.at("unit_blas_cores").at("Zen"), 2);

  // A second folder: a default TempRoot would take the first's path (same test, same pid).
  testing::TempRoot plain("recurlab-report-without-blas-cores");
  {
    Hdf5RunLog log(plain.file("log.h5"), Hdf5RunLog::Mode::Create);
    writeRoot(log, "made-up-kind");
    log.createGroup("/a");
    log.setAttribute("/a", "status", std::string("finished"));
  }
  analyzeRun(plain.path().string());
  EXPECT_EQ(fileText(plain.file("report.md")).find("BLAS core of the units"), std::string::npos);
  EXPECT_EQ(fileText(plain.file("report.md")).find("Resumed:"), std::string::npos);
  EXPECT_FALSE(
      nlohmann::json::parse(fileText(plain.file("summary.json"))).contains("unit_blas_cores"));
}

// The one test of "is this a group" that the generic report and the environment section walk with.
TEST(ReportRegistryTest, IsLogGroupTellsGroupsFromTablesAndMissingObjects) {
  recurlab::testing::TempRoot tmp;
  Hdf5RunLog log(tmp.file("log.h5"), Hdf5RunLog::Mode::Create);
  log.createGroup("/a/b");
  log.createTable("/a/t", {"x"});
  EXPECT_TRUE(isLogGroup(log, "/"));
  EXPECT_TRUE(isLogGroup(log, "/a"));
  EXPECT_TRUE(isLogGroup(log, "/a/b"));
  EXPECT_FALSE(isLogGroup(log, "/a/t"));
  EXPECT_FALSE(isLogGroup(log, "/missing"));
}

TEST(ReportRegistryTest, VarianceKindIsRegisteredAndRendersFromTheLogAlone) {
  EXPECT_FALSE(reportDescription("variance").empty());
  testing::TempRoot tmp;
  {
    Hdf5RunLog log(tmp.file("log.h5"), Hdf5RunLog::Mode::Create);
    writeRoot(log, "variance");
    // Two layers of one configuration per alpha: enough for every section to render.
    const std::vector<std::string> cols{
        "alpha", "highway_bias", "layer", "var_x", "var_c", "var_h", "c_over_x", "c_over_x_se",
        "h_over_x", "h_over_x_se", "h_over_input", "h_over_input_se", "f_mean", "f_var",
        "r_mean", "r_sq_mean", "derived_c_low", "derived_c_high", "derived_h_low",
        "derived_h_high", "derived_h_eq6", "derived_r_sq"};
    log.createTable("/variance/sru/iid/layers", cols);
    for (double a : {0.0, 1.0})
      for (double l : {1.0, 2.0})
        log.appendRow("/variance/sru/iid/layers",
                      {a, 0, l, 0.01, 0.0034, 0.004, 0.34, 0.001, 0.4, 0.001, 0.4 / l, 0.001,
                       0.5, 0.001, 0.5, 0.25, 1.0 / 3, 1, 1.0 / 3, 0.5, 0.33, 0.25});
    log.createTable("/variance/glu/layers",
                    {"naive_init", "retain", "layer", "var_act", "act_ratio", "var_grad",
                     "grad_ratio", "derived_act_ratio", "derived_grad_ratio"});
    for (double n : {0.0, 1.0})
      for (double l : {1.0, 2.0})
        log.appendRow("/variance/glu/layers", {n, 1.0, l, 0.01, 1, 1, 1, 1, 1});
  }
  analyzeRun(tmp.file("log.h5"));  // the log file works as well as its folder
  const std::string md = fileText(tmp.file("report.md"));
  EXPECT_NE(md.find("Figure 6"), std::string::npos);
  EXPECT_NE(md.find("| 1 | 0.3400 ± 0.0010 |"), std::string::npos) << md;
  EXPECT_NE(md.find("Gated convolutions"), std::string::npos);
  const auto summary = nlohmann::json::parse(fileText(tmp.file("summary.json")));
  EXPECT_DOUBLE_EQ(summary.at("sru").at("iid").at(0).at("c_over_x_layer1").get<double>(), 0.34);
  // Every table also as LaTeX and CSV beside report.md.
  for (const char* table : {"environment", "variance_iid_layers", "variance_iid_configurations",
                            "variance_glu_stack"}) {
    EXPECT_TRUE(fs::exists(tmp.file(std::string(table) + ".tex"))) << table;
    EXPECT_TRUE(fs::exists(tmp.file(std::string(table) + ".csv"))) << table;
  }
  RECURLAB_REQUIRE_OR_SKIP(figureFormats().empty() ? "gnuplot not available: figures not checked" : "");
  const std::string vector_ext = figureFormats().back().extension;
  for (const char* stem : {"variance_iid", "variance_depth", "variance_glu"}) {
    EXPECT_GT(fs::file_size(tmp.file(std::string(stem) + ".png")), 1000u) << stem;
    for (const std::string& ext : {vector_ext, std::string("gp"), std::string("dat")})
      EXPECT_GT(fs::file_size(tmp.file(std::string(stem) + "." + ext)), 0u) << stem << "." << ext;
  }
}

TEST(ReportRegistryTest, MissingRunIsAClearError) {
  try {
    analyzeRun("/nonexistent/run");
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/run"), std::string::npos);
  }
}

}  // namespace
}  // namespace recurlab::analysis
