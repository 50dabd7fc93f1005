// --device, --precision, --deterministic on the one command line: the config keys of the same
// names are taken out of the config (the command line wins), bad values are named, a CUDA
// request on a CPU-only LibTorch stops every task driver at once with one line (and every
// command on a kept model with the same line), and the toy
// task run twice with --deterministic writes identical logs recording the switch.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "common/log/hdf5_run_log.h"
#include "common/runtime/torch_build.h"
#include "experiments/harness/experiment_command_line.h"
#include "tests/experiments/harness/run_log_summary.h"
#include "tests/support/child_process.h"
#include "tests/support/file_text.h"
#include "tests/support/required.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;

ExperimentCommandLine parse(std::vector<std::string> args, bool execution = true) {
  args.insert(args.begin(), "prog");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  CommandLineSpec spec("toy", "toy");
  spec.execution = execution;
  return parseExperimentCommandLine(static_cast<int>(argv.size()), argv.data(), spec);
}

std::string errorOf(const std::vector<std::string>& args, bool execution = true) {
  try {
    parse(args, execution);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

using recurlab::testing::fileText;

TEST(ExecutionOptions, DefaultsAreCpuFp32NotDeterministic) {
  const auto cl = parse({});
  EXPECT_EQ(cl.execution.device, "cpu");
  EXPECT_EQ(cl.execution.precision, "fp32");
  EXPECT_FALSE(cl.execution.deterministic);
}

TEST(ExecutionOptions, ConfigKeysAreTakenOutAndTheCommandLineWins) {
  auto cl = parse({"--set", "precision=bf16", "--set", "device=cpu", "--set", "deterministic=true",
                   "--set", "train.lr=0.1"});
  EXPECT_EQ(cl.execution.precision, "bf16");
  EXPECT_TRUE(cl.execution.deterministic);
  EXPECT_EQ(cl.config, nlohmann::json::parse(R"({"train": {"lr": 0.1}})"))
      << "no task sees the keys";
  cl = parse({"--set", "precision=bf16", "--precision", "fp32", "--deterministic", "--device",
              "auto"});
  EXPECT_EQ(cl.execution.precision, "fp32");
  EXPECT_TRUE(cl.execution.deterministic);
  if (!torchBuiltWithCuda()) {
    EXPECT_EQ(cl.execution.device, "cpu");
  }
}

TEST(ExecutionOptions, BadValuesAreNamed) {
  EXPECT_EQ(errorOf({"--precision", "fp64"}), "--precision: expected fp32, bf16 or fp16, got 'fp64'");
  EXPECT_NE(errorOf({"--device", "tpu"}).find("--device tpu: expected cpu, cuda, cuda:N"),
            std::string::npos);
  EXPECT_EQ(errorOf({"--set", "deterministic=1"}),
            "config key deterministic: expected true or false, got 1");
  EXPECT_EQ(errorOf({"--set", "precision=16"}),
            "config key precision: expected fp32, bf16 or fp16 as a string, got 16");
  EXPECT_NE(errorOf({"--precision", "fp16"}).find("--precision fp16: LibTorch's CPU autocast"),
            std::string::npos);
  // A driver without these options (speed has its own --device) does not offer them.
  EXPECT_NE(errorOf({"--precision", "bf16"}, false).find("unrecognised option '--precision'"),
            std::string::npos) << errorOf({"--precision", "bf16"}, false);
}

TEST(ExecutionOptions, RunConfigRecordsAPrecisionOtherThanFp32) {
  ExecutionOptions e;
  const nlohmann::json config = {{"seed", 1}};
  EXPECT_EQ(withPrecision(config, e), config);
  e.precision = "bf16";
  EXPECT_EQ(withPrecision(config, e), nlohmann::json::parse(R"({"seed": 1, "precision": "bf16"})"));
}

TEST(ExecutionOptions, EveryTaskDriverRefusesCudaOnACpuOnlyLibTorchInOneLine) {
  RECURLAB_SKIP_NOT_THIS_BUILD(torchBuiltWithCuda() ? "this LibTorch has CUDA" : "");
  recurlab::testing::TempRoot tmp("recurlab_device_refusal");
  for (const std::string task : {"classification", "mt", "lm", "qa"}) {
    const std::string program = recurlab::testing::siblingBinary("recurlab_" + task);
    ASSERT_TRUE(fs::exists(program)) << program << " is built with the tests";
    const std::string output = (tmp.root / (task + ".txt")).string(), out = (tmp.root / task).string();
    // No data at all: the device is refused before the data is looked for.
    const auto r = recurlab::testing::runChild(
        program, {"--device", "cuda", "--precision", "bf16", "--data-dir",
                  (tmp.root / "no-data").string(), "--out", out},
        "", -1, output);
    EXPECT_EQ(r.exit_code, 2) << task;
    const std::string text = fileText(output);
    // The error is one whole line (other lines, e.g. the BLAS check's, are not about it).
    const std::string prefix = "recurlab_" + task + ": error: --device cuda: this build uses LibTorch " +
                               torchVersion() + ", CPU-only";
    std::istringstream lines(text);
    std::string line, error;
    int error_lines = 0;
    while (std::getline(lines, line))
      if (line.find("error") != std::string::npos) {
        ++error_lines;
        error = line;
      }
    EXPECT_EQ(error_lines, 1) << text;
    EXPECT_EQ(error.rfind(prefix, 0), 0u) << text;
    EXPECT_NE(error.find("docs/gpu.md"), std::string::npos) << text;
    EXPECT_FALSE(fs::exists(out)) << task;
  }
}

// The commands on a kept model take --device as training does: resolved by the same code,
// so a CUDA request on a CPU-only LibTorch is the training run's line, before the model is
// opened (the folder named does not exist).
TEST(ExecutionOptions, EveryModelCommandRefusesCudaOnACpuOnlyLibTorchWithTheTrainingLine) {
  RECURLAB_SKIP_NOT_THIS_BUILD(torchBuiltWithCuda() ? "this LibTorch has CUDA" : "");
  recurlab::testing::TempRoot tmp("recurlab_command_device_refusal");
  const std::string output = (tmp.root / "said.txt").string();
  // What follows "error: " on the one error line of `program args`.
  auto errorLine = [&](const std::string& program, const std::vector<std::string>& args,
                       const std::string& prefix) {
    fs::remove(output);
    const auto r = recurlab::testing::runChild(program, args, "", -1, output);
    EXPECT_EQ(r.exit_code, 2) << prefix;
    std::istringstream lines(fileText(output));
    std::string line, error;
    while (std::getline(lines, line))
      if (line.find("error") != std::string::npos) {
        EXPECT_TRUE(error.empty()) << "a second error line: " << line;
        error = line;
      }
    EXPECT_EQ(error.rfind(prefix + ": error: ", 0), 0u) << fileText(output);
    return error.substr(std::min(error.size(), prefix.size() + 9));
  };
  const std::vector<std::pair<std::string, std::string>> commands = {
      {"classification", "classify"}, {"mt", "translate"}, {"lm", "score"},
      {"lm", "generate"},             {"qa", "predict"}};
  for (const auto& [task, command] : commands) {
    SCOPED_TRACE(task + " " + command);
    const std::string program = recurlab::testing::siblingBinary("recurlab_" + task);
    ASSERT_TRUE(fs::exists(program)) << program << " is built with the tests";
    const std::string training =
        errorLine(program, {"--device", "cuda", "--data-dir", (tmp.root / "no-data").string(),
                            "--out", (tmp.root / "run").string()},
                  "recurlab_" + task);
    ASSERT_EQ(training.rfind("--device cuda: this build uses LibTorch ", 0), 0u) << training;
    EXPECT_EQ(errorLine(program, {command, "--model", (tmp.root / "no-model").string(),
                                  "--device", "cuda"},
                        "recurlab_" + task + " " + command),
              training);
  }
}

// --device on a command on a kept model: the default is the CPU, auto is the CPU without a
// GPU, and a malformed value is refused with the training run's words.
TEST(ExecutionOptions, ModelCommandDeviceIsResolvedAsForTraining) {
  ModelCommandSpec spec{"classify", "", {"input,i"}, {}};
  auto device = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"classify", "--model", "dir"});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    return parseModelCommandLine(static_cast<int>(argv.size()), argv.data(), spec).device;
  };
  EXPECT_EQ(device({}), "cpu");
  EXPECT_EQ(device({"--device", "cpu"}), "cpu");
  if (!torchBuiltWithCuda()) {
    EXPECT_EQ(device({"--device", "auto"}), "cpu");
  }
  std::string refused;
  try {
    device({"--device", "gpu"});
  } catch (const std::invalid_argument& e) {
    refused = e.what();
  }
  EXPECT_EQ(refused, errorOf({"--device", "gpu"}));
  EXPECT_NE(refused.find("--device gpu: expected cpu, cuda, cuda:N"), std::string::npos) << refused;
}

TEST(ExecutionOptions, DeterministicRunsOfATaskWriteIdenticalLogsRecordingIt) {
  const std::string program = recurlab::testing::siblingBinary("recurlab_toy_task");
  recurlab::testing::TempRoot tmp("recurlab_deterministic");
  const std::string output = (tmp.root / "children.txt").string();
  std::vector<std::string> folders;
  for (const char* name : {"a", "b"}) {
    folders.push_back((tmp.root / name).string());
    const auto r = recurlab::testing::runChild(
        program, {"--out", folders.back(), "--threads", "2", "--deterministic", "--set",
                  "seeds=1", "--set",
                  R"(train={"examples": 64, "batch_size": 4, "max_epochs": 2, "lr": 0.01,
                            "log_every_steps": 4, "optimizer": "adam"})"},
        "", -1, output);
    ASSERT_EQ(r.exit_code, 0) << fileText(output);
  }
  const auto a = recurlab::testing::finishedUnits(folders[0]);
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(recurlab::testing::finishedUnits(folders[1]), a);
  Hdf5RunLog log(folders[0] + "/log.h5", Hdf5RunLog::Mode::ReadOnly);
  EXPECT_EQ(log.intAttribute("/", "deterministic"), 1);
  EXPECT_EQ(log.stringAttribute("/", "device"), "cpu");
  EXPECT_EQ(log.stringAttribute("/", "precision"), "fp32");
}

}  // namespace
}  // namespace recurlab::experiments
