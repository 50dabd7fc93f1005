#pragma once
// What the tests of the commands on a kept model share: files read whole, a kept model's file
// replaced with its checksum updated (a consistent folder that is still wrong), the error
// of a call, and a driver's commands run as child processes.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/sha256.h"
#include "tests/support/child_process.h"
#include "tests/support/file_text.h"

namespace recurlab::testing {

inline nlohmann::json readJsonAt(const std::string& path) { return nlohmann::json::parse(fileText(path)); }

inline void writeJsonAt(const std::string& path, const nlohmann::json& value) {
  std::ofstream(path) << value.dump(2) << "\n";
}

// Replaces `file` of the kept model in `dir` and records its new sha256 in the manifest.
inline void replaceKeptFile(const std::string& dir, const std::string& file, const std::string& bytes) {
  std::ofstream(dir + "/" + file, std::ios::binary) << bytes;
  auto manifest = readJsonAt(dir + "/manifest.json");
  manifest["files"][file] = sha256Hex(bytes);
  writeJsonAt(dir + "/manifest.json", manifest);
}

// A driver (`program`, a path) run as a child process on a kept model's commands; what each
// run says goes to `log`, emptied first.
class ModelCommandRuns {
 public:
  ModelCommandRuns(std::string program, std::string log)
      : program_(std::move(program)), log_(std::move(log)) {}
  // The exit status of `program args`.
  int run(const std::vector<std::string>& args) const {
    std::filesystem::remove(log_);
    return runChild(program_, args, "", -1, log_).exit_code;
  }
  // What the last run said.
  std::string said() const { return fileText(log_); }
  // Expects the command to exit with status 2, saying `message`.
  void expectRefused(const std::vector<std::string>& args, const std::string& message) const {
    EXPECT_EQ(run(args), 2) << message;
    EXPECT_NE(said().find(message), std::string::npos) << said();
  }

 private:
  std::string program_, log_;
};

}  // namespace recurlab::testing
