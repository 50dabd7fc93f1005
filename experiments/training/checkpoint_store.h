#pragma once
// One unit's checkpoint files (<run folder>/checkpoints/<unit>/): `last` (written at every
// epoch end and every N steps), `best` (at the best selection metric so far) and, when asked,
// `epoch-<k>` files for averaging the last k. Files are replaced atomically (write to a
// temporary, fsync, rename, fsync the folder), so a kill at any point leaves either the old or
// the new file, never a torn one. Torch-free: the caller writes the bytes.
#include <functional>
#include <string>
#include <vector>

namespace recurlab::experiments {

class CheckpointStore {
 public:
  CheckpointStore() = default;  // disabled: nothing is written
  explicit CheckpointStore(std::string dir);

  bool enabled() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }
  std::string path(const std::string& name) const;  // dir/<name>.pt
  bool has(const std::string& name) const;

  // Writes <name>.pt atomically; `write` writes the whole file at the path it is given.
  void commit(const std::string& name, const std::function<void(const std::string& path)>& write) const;
  void copy(const std::string& from, const std::string& to) const;  // atomically too
  void remove(const std::string& name) const;
  void removeAll() const;  // the folder and everything in it
  // Names (without .pt) starting with `prefix`, sorted by the number after it.
  std::vector<std::string> numbered(const std::string& prefix) const;

 private:
  std::string dir_;
};

// Folder name of a unit's checkpoints: its group without the leading '/', '/' -> '_'.
std::string checkpointFolderName(const std::string& group);
// A unit's checkpoint folder in its run folder: <run folder>/checkpoints/<checkpointFolderName>.
std::string unitCheckpointDir(const std::string& run_folder, const std::string& group);

}  // namespace recurlab::experiments
