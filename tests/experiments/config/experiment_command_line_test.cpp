#include "experiments/config/experiment_command_line.h"

#include <gtest/gtest.h>

#include <boost/program_options.hpp>

#include <filesystem>
#include <fstream>

namespace recurlab::experiments {
namespace {

TEST(ExperimentCommandLine, SetOverridesReachNestedKeysAndParseJson) {
  nlohmann::json c = {{"train", {{"lr", 0.001}}}};
  applyOverride(c, "train.lr=0.01");
  applyOverride(c, "models.sru2.config.hidden=64");
  applyOverride(c, "datasets=[\"MR\",\"CR\"]");
  applyOverride(c, "embeddings=/tmp/vectors.txt");  // not JSON: a string
  applyOverride(c, "train.lr_space={\"loguniform\":[1e-4,1e-2]}");
  EXPECT_DOUBLE_EQ(c["train"]["lr"].get<double>(), 0.01);
  EXPECT_EQ(c["models"]["sru2"]["config"]["hidden"], 64);
  EXPECT_EQ(c["datasets"], nlohmann::json::parse(R"(["MR","CR"])"));
  EXPECT_EQ(c["embeddings"], "/tmp/vectors.txt");
  EXPECT_TRUE(c["train"]["lr_space"].is_object());
  EXPECT_THROW(applyOverride(c, "no-equals-sign"), std::invalid_argument);
  EXPECT_THROW(applyOverride(c, "train.lr.x=1"), std::invalid_argument);  // lr is a number
  EXPECT_THROW(applyOverride(c, "a..b=1"), std::invalid_argument);
}

TEST(ExperimentCommandLine, ParsesOptionsAndReadsTheConfig) {
  const auto path = (std::filesystem::temp_directory_path() / "recurlab_cli_test.json").string();
  std::ofstream(path) << R"({"seed": 3, "train": {"lr": 0.001}})";
  std::vector<std::string> args = {"prog", "--config", path, "--set", "train.lr=0.5",
                                   "--seed", "9", "--shard", "1/4", "--run-id", "r1",
                                   "--data-dir", "/d", "--threads", "1"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int64_t extra = 0;
  CommandLineSpec spec{"exp", "", "", [&](boost::program_options::options_description& d) {
                         d.add_options()("extra", boost::program_options::value(&extra));
                       }};
  args.push_back("--extra");
  args.push_back("12");
  argv.clear();
  for (auto& a : args) argv.push_back(a.data());
  const auto cl = parseExperimentCommandLine(static_cast<int>(argv.size()), argv.data(), spec);
  EXPECT_EQ(extra, 12);  // a driver's own option, through the one parser
  EXPECT_TRUE(cl.has("extra"));
  EXPECT_TRUE(cl.has("seed"));
  EXPECT_FALSE(cl.has("embeddings"));
  EXPECT_EQ(cl.config["seed"], 9);
  EXPECT_DOUBLE_EQ(cl.config["train"]["lr"].get<double>(), 0.5);
  EXPECT_EQ(cl.shard.index, 1);
  EXPECT_EQ(cl.shard.count, 4);
  EXPECT_TRUE(cl.shard.owns(5));
  EXPECT_FALSE(cl.shard.owns(4));
  EXPECT_EQ(cl.run_folder.run_id, "r1");
  EXPECT_EQ(cl.run_folder.experiment, "exp");
  EXPECT_FALSE(cl.run_folder.force_new);
  EXPECT_EQ(cl.data_dir, "/d");
  EXPECT_EQ(cl.threads, 1);

  std::ofstream(path) << R"({"seed": 3,)";
  EXPECT_THROW(parseExperimentCommandLine(3, argv.data(), {"exp", "", "", {}}), std::invalid_argument);
  EXPECT_THROW(parseShard("4/4"), std::invalid_argument);
  EXPECT_THROW(parseShard("1-4"), std::invalid_argument);
  std::vector<std::string> bad = {"prog", "--no-such-option"};
  std::vector<char*> bad_argv = {bad[0].data(), bad[1].data()};
  EXPECT_THROW(parseExperimentCommandLine(2, bad_argv.data(), {"exp", "", path, {}}), std::invalid_argument);
  // Without a default config and without --config, the config starts empty.
  std::vector<std::string> none = {"prog", "--force-new"};
  std::vector<char*> none_argv = {none[0].data(), none[1].data()};
  const auto empty = parseExperimentCommandLine(2, none_argv.data(), {"exp", "", "", {}});
  EXPECT_TRUE(empty.config.empty());
  EXPECT_TRUE(empty.run_folder.force_new);
}

}  // namespace
}  // namespace recurlab::experiments
