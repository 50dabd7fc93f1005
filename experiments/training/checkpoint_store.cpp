#include "experiments/training/checkpoint_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "common/runtime/kill_point.h"

namespace recurlab::experiments {
namespace fs = std::filesystem;
namespace {

void fsyncPath(const std::string& p, bool directory) {
  const int fd = ::open(p.c_str(), directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
  if (fd < 0) throw std::runtime_error("checkpoint: cannot open " + p + " to fsync");
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) throw std::runtime_error("checkpoint: fsync of " + p + " failed");
}

}  // namespace

std::string checkpointFolderName(const std::string& group) {
  std::string s = group.substr(group.rfind('/', 0) == 0 ? 1 : 0);
  std::replace(s.begin(), s.end(), '/', '_');
  return s.empty() ? "run" : s;
}

std::string unitCheckpointDir(const std::string& run_folder, const std::string& group) {
  return (fs::path(run_folder) / "checkpoints" / checkpointFolderName(group)).string();
}

CheckpointStore::CheckpointStore(std::string dir) : dir_(std::move(dir)) {}

std::string CheckpointStore::path(const std::string& name) const {
  return (fs::path(dir_) / (name + ".pt")).string();
}

bool CheckpointStore::has(const std::string& name) const {
  return enabled() && fs::is_regular_file(path(name));
}

void CheckpointStore::commit(const std::string& name,
                             const std::function<void(const std::string&)>& write) const {
  if (!enabled()) return;
  fs::create_directories(dir_);
  const std::string final_path = path(name), tmp = final_path + ".tmp";
  write(tmp);
  fsyncPath(tmp, false);
  killPoint("checkpoint-written");  // the new file is complete but not yet in place
  fs::rename(tmp, final_path);
  fsyncPath(dir_, true);
}

void CheckpointStore::copy(const std::string& from, const std::string& to) const {
  commit(to, [&](const std::string& tmp) {
    fs::copy_file(path(from), tmp, fs::copy_options::overwrite_existing);
  });
}

void CheckpointStore::remove(const std::string& name) const {
  if (enabled()) fs::remove(path(name));
}

void CheckpointStore::removeAll() const {
  if (enabled()) fs::remove_all(dir_);
}

std::vector<std::string> CheckpointStore::numbered(const std::string& prefix) const {
  std::vector<std::pair<long, std::string>> found;
  std::error_code ec;
  if (!enabled()) return {};
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    if (e.path().extension() != ".pt") continue;
    const std::string stem = e.path().stem().string();
    if (stem.rfind(prefix, 0) != 0) continue;
    try {
      found.emplace_back(std::stol(stem.substr(prefix.size())), stem);
    } catch (const std::exception&) {
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> names;
  for (auto& f : found) names.push_back(f.second);
  return names;
}

}  // namespace recurlab::experiments
