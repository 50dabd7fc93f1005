#pragma once
// The one temporary-folder helper of the tests: paths that no other test process uses at the
// same time (ctest runs tests in parallel processes, each with its own pid), and a fresh folder
// per test, removed with everything in it when the test ends.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace recurlab::testing {

// <system temp dir>/<stem><pid><suffix>, e.g. perProcessTempPath("recurlab_cls_") or
// perProcessTempPath("recurlab-squad-subset-", ".json"). Creates nothing.
inline std::filesystem::path perProcessTempPath(const std::string& stem,
                                                const std::string& suffix = "") {
  return std::filesystem::temp_directory_path() / (stem + std::to_string(::getpid()) + suffix);
}

// A fresh folder perProcessTempPath(name + "_") for one test (by default named after the
// running test), removed with everything in it when the test ends.
struct TempRoot {
  std::filesystem::path root;
  TempRoot() : TempRoot("recurlab-" + currentTestName()) {}
  explicit TempRoot(const std::string& name) : root(perProcessTempPath(name + "_")) {
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root);
  }
  ~TempRoot() {
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }
  TempRoot(const TempRoot&) = delete;
  TempRoot& operator=(const TempRoot&) = delete;

  const std::filesystem::path& path() const { return root; }
  std::string file(const std::string& name) const { return (root / name).string(); }

 private:
  static std::string currentTestName() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    return info ? info->name() : "test";
  }
};

// Whether `name` is a command on the PATH (tests that need gnuplot or h5dump skip without it).
inline bool commandAvailable(const std::string& name) {
  return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

}  // namespace recurlab::testing
