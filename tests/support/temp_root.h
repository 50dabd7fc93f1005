#pragma once
// Temporary paths that no other test process uses at the same time: ctest runs tests in
// parallel processes, each with its own pid. One way to build them for every test.
#include <unistd.h>

#include <filesystem>
#include <string>

namespace recurlab::testing {

// <system temp dir>/<stem><pid><suffix>, e.g. perProcessTempPath("recurlab_cls_") or
// perProcessTempPath("recurlab-squad-subset-", ".json"). Creates nothing.
inline std::filesystem::path perProcessTempPath(const std::string& stem,
                                                const std::string& suffix = "") {
  return std::filesystem::temp_directory_path() / (stem + std::to_string(::getpid()) + suffix);
}

// A fresh folder perProcessTempPath(name + "_") for one test, removed with everything in it
// when the test ends.
struct TempRoot {
  std::filesystem::path root;
  explicit TempRoot(const std::string& name) : root(perProcessTempPath(name + "_")) {
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root);
  }
  ~TempRoot() { std::filesystem::remove_all(root); }
  TempRoot(const TempRoot&) = delete;
  TempRoot& operator=(const TempRoot&) = delete;
};

}  // namespace recurlab::testing
