#pragma once
// One HDF5 file per run, readable by h5dump/h5py. Layout conventions:
//   /                      root attributes: experiment, command_line, config (JSON text),
//                          git_commit, libtorch_version, device, threads, blas_core,
//                          heap_policy, gemm_gflops, seed, start_time, end_time (ISO 8601 UTC)
//   /<group>/...           any nesting, e.g. /trials/3/seeds/1 or /variance/iid
//   tables                 1-D extendible chunked datasets of a compound type whose fields
//                          are float64 columns named by the caller; one row per append
//   attributes             string, float64 or int64, on any group or dataset
// Every write replaces the file whole: a writable log is held in memory and, after each
// write, its image goes to `<path>.writing` and is renamed over the log. A SIGKILL at any
// moment leaves the log as it was before the write or after it, never half of each (HDF5's
// own in-place writes can), and a reader in another process always opens a whole file.
// Not thread-safe (HDF5 C++ is not): use it from one thread.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace recurlab::experiments {

using AttributeValue = std::variant<std::string, double, int64_t>;

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;  // rows[i][j] = column j of row i
  std::vector<double> column(const std::string& name) const;  // throws if absent
};

class Hdf5RunLog {
 public:
  enum class Mode {
    Create,    // new file; an existing one is an error (callers pick a fresh run folder)
    Append,    // open existing or create: what a resumed run uses
    ReadOnly,
  };

  Hdf5RunLog(const std::string& path, Mode mode);
  ~Hdf5RunLog();
  Hdf5RunLog(Hdf5RunLog&&) noexcept;
  Hdf5RunLog& operator=(Hdf5RunLog&&) noexcept;
  Hdf5RunLog(const Hdf5RunLog&) = delete;
  Hdf5RunLog& operator=(const Hdf5RunLog&) = delete;

  const std::string& path() const;

  // Groups are created with their parents; "/" is the root.
  void createGroup(const std::string& group);
  bool exists(const std::string& path) const;  // group or dataset
  std::vector<std::string> children(const std::string& group) const;  // sorted names
  // Removes a group or dataset with everything under it; an absent one is not an error.
  void remove(const std::string& path);

  void setAttribute(const std::string& object, const std::string& name,
                    const AttributeValue& value);
  std::optional<AttributeValue> attribute(const std::string& object,
                                          const std::string& name) const;
  std::map<std::string, AttributeValue> attributes(const std::string& object) const;
  // Convenience readers that throw std::runtime_error naming the object and attribute.
  std::string stringAttribute(const std::string& object, const std::string& name) const;
  double doubleAttribute(const std::string& object, const std::string& name) const;
  int64_t intAttribute(const std::string& object, const std::string& name) const;

  // Tables. createTable on an existing table with the same columns is a no-op (resume);
  // different columns is an error.
  void createTable(const std::string& dataset, const std::vector<std::string>& columns);
  void appendRow(const std::string& dataset, const std::vector<double>& values);
  void appendRows(const std::string& dataset, const std::vector<std::vector<double>>& rows);
  Table readTable(const std::string& dataset) const;

  // A whole 1-D or 2-D float64 array at once (e.g. a variance curve), replacing any old one.
  void writeArray(const std::string& dataset, const std::vector<double>& data,
                  const std::vector<uint64_t>& shape);
  std::vector<double> readArray(const std::string& dataset,
                                std::vector<uint64_t>* shape = nullptr) const;

  // A variable-length UTF-8 string dataset (e.g. a config JSON), replacing any old one.
  void writeText(const std::string& dataset, const std::string& text);
  std::string readText(const std::string& dataset) const;

  void flush();  // every write already does this; kept for callers that mark a point
  // The same, fsynced with its folder: what is written survives a power loss too.
  void sync();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The current UTC time in strftime's `format`; by default ISO 8601, e.g.
// "2026-11-21T13:44:25Z".
std::string utcTimestamp(const char* format = "%Y-%m-%dT%H:%M:%SZ");

}  // namespace recurlab::experiments
