#pragma once
// A fresh folder under the system's temporary directory for one test (name_pid), removed with
// everything in it when the test ends.
#include <unistd.h>

#include <filesystem>
#include <string>

namespace recurlab::testing {

struct TempRoot {
  std::filesystem::path root;
  explicit TempRoot(const std::string& name)
      : root(std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root);
  }
  ~TempRoot() { std::filesystem::remove_all(root); }
  TempRoot(const TempRoot&) = delete;
  TempRoot& operator=(const TempRoot&) = delete;
};

}  // namespace recurlab::testing
