#pragma once
// A fresh directory per test under the system temp folder, removed afterwards.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/temp_root.h"

namespace recurlab::testing {

class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = perProcessTempPath("recurlab-" + std::string(info ? info->name() : "test") + "-");
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline bool commandAvailable(const std::string& name) {
  return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

}  // namespace recurlab::testing
