#include "experiments/harness/experiment_command_line.h"

#include <gtest/gtest.h>

#include <boost/program_options.hpp>

#include <filesystem>
#include <fstream>

#include "tasks/classification/classification_config.h"
#include "tests/support/temp_root.h"

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
  const auto path = recurlab::testing::perProcessTempPath("recurlab_cli_test_", ".json").string();
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
  // Without a default config and without --config, the config starts empty.
  std::vector<std::string> none = {"prog", "--force-new"};
  std::vector<char*> none_argv = {none[0].data(), none[1].data()};
  const auto empty = parseExperimentCommandLine(2, none_argv.data(), {"exp", "", "", {}});
  EXPECT_TRUE(empty.config.empty());
  EXPECT_TRUE(empty.run_folder.force_new);
}

// Everything but the one unknown option is valid (the same command line without it parses),
// so the error can only come from the option, and it names it.
std::vector<char*> argvOf(std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return argv;
}

std::string validConfigFile() {
  const auto path = recurlab::testing::perProcessTempPath("recurlab_cli_valid_", ".json").string();
  std::ofstream(path) << R"({"seed": 3, "models": {"sru": {"encoder": "sru"}}, "train": {"lr": 0.001}})";
  return path;
}

TEST(ExperimentCommandLine, UnknownOptionIsRefusedByName) {
  const std::string config = validConfigFile();
  const CommandLineSpec spec{"exp", "", "", {}};
  std::vector<std::string> good = {"prog", "--config", config, "--seed", "4"};
  auto good_argv = argvOf(good);
  const auto parsed = parseExperimentCommandLine(static_cast<int>(good_argv.size()), good_argv.data(), spec);
  EXPECT_EQ(parsed.config["seed"], 4);

  for (const char* unknown : {"--no-such-option", "--no-such-option=3", "--sed"}) {
    SCOPED_TRACE(unknown);
    std::vector<std::string> bad = good;
    bad.insert(bad.begin() + 3, unknown);
    auto bad_argv = argvOf(bad);
    try {
      parseExperimentCommandLine(static_cast<int>(bad_argv.size()), bad_argv.data(), spec);
      FAIL() << "an unknown option was accepted";
    } catch (const std::invalid_argument& e) {
      const std::string name = std::string(unknown).substr(0, std::string(unknown).find('='));
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
  // The same with the valid file as the driver's default config (no --config).
  std::vector<std::string> bad = {"prog", "--no-such-option"};
  auto bad_argv = argvOf(bad);
  try {
    parseExperimentCommandLine(2, bad_argv.data(), {"exp", "", config, {}});
    FAIL() << "an unknown option was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-option"), std::string::npos) << e.what();
  }
}

// --set of a key the experiment does not know: the command line assembles it (it knows no
// experiment's keys), the experiment's config check refuses it by name; the same command line
// with a known key passes both.
TEST(ExperimentCommandLine, SetWithAnUnknownKeyIsRefusedByName) {
  const std::string config = validConfigFile();
  auto parse = [&](const std::string& assignment) {
    std::vector<std::string> args = {"prog", "--config", config, "--set", assignment};
    auto argv = argvOf(args);
    const auto cl = parseExperimentCommandLine(static_cast<int>(argv.size()), argv.data(), {"exp", "", "", {}});
    return ClassificationConfig::fromJson(cl.config);
  };
  EXPECT_DOUBLE_EQ(parse("train.lr=0.5").train["lr"].get<double>(), 0.5);
  for (const char* key : {"train.learning_rate", "trails", "models.sru.config.hiden"}) {
    SCOPED_TRACE(key);
    const std::string leaf = std::string(key).substr(std::string(key).rfind('.') + 1);
    try {
      parse(std::string(key) + "=3");
      FAIL() << "--set " << key << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("'" + leaf + "'"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace recurlab::experiments
