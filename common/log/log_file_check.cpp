#include "common/log/log_file_check.h"

#include <fcntl.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

namespace recurlab {
namespace {

// HDF5's format signature (the first 8 bytes of a file without a user block).
constexpr unsigned char kHdf5Signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

// The descriptions on HDF5's current error stack, outermost first.
herr_t collectMessage(unsigned, const H5E_error2_t* e, void* out) {
  if (e->desc && *e->desc) static_cast<std::vector<std::string>*>(out)->push_back(e->desc);
  return 0;
}

std::vector<std::string> hdf5Errors() {
  std::vector<std::string> messages;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collectMessage, &messages);
  return messages;
}

// HDF5's words when flock() refuses ("unable to lock the file", "unable to lock file, errno =
// 11"); a plain "lock" would also match the "sblock->base_addr" of a truncated file's message.
bool mentionsLock(const std::vector<std::string>& messages) {
  for (const auto& m : messages)
    if (m.find("unable to lock") != std::string::npos) return true;
  return false;
}

constexpr const char* kEmpty = "the file is empty";

LogFileDiagnosis diagnoseOnce(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return {LogFileState::Missing, std::strerror(errno)};
    return {LogFileState::Unreadable, std::strerror(errno)};
  }
  if (S_ISDIR(st.st_mode)) return {LogFileState::Unreadable, "it is a folder, not a file"};
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return {LogFileState::Unreadable, std::strerror(errno)};
  unsigned char head[8] = {};
  const ssize_t got = ::read(fd, head, sizeof head);
  ::close(fd);
  if (got != static_cast<ssize_t>(sizeof head) ||
      std::memcmp(head, kHdf5Signature, sizeof head) != 0)
    return {LogFileState::NotHdf5, st.st_size == 0 ? kEmpty
                                                   : "its first bytes are not the HDF5 signature (" +
                                                         std::to_string(st.st_size) + " bytes)"};

  // Silence HDF5's printing for this one open; its messages go into the diagnosis instead.
  H5E_auto2_t old_func = nullptr;
  void* old_data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  std::vector<std::string> errors;
  if (f < 0) errors = hdf5Errors();
  H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
  if (f >= 0) {
    H5Fclose(f);
    return {LogFileState::Readable, ""};
  }
  if (mentionsLock(errors)) return {LogFileState::Locked, errors.back()};
  // The innermost message says most (e.g. "truncated file: eof = 2048, ... stored_eof = 4096").
  return {LogFileState::Corrupt, errors.empty() ? "HDF5 cannot open it" : errors.back()};
}

}  // namespace

LogFileDiagnosis diagnoseLogFile(const std::string& path) {
  // A log that another worker is creating is empty for a moment before HDF5 locks it (it opens
  // the file, then flocks it, then writes): an empty file gets up to 2 s to become a locked or
  // readable one before it is called damaged (found by LocalJobs.ThreeJobs..., whose three
  // workers start at once).
  for (int attempt = 0;; ++attempt) {
    const LogFileDiagnosis d = diagnoseOnce(path);
    if (d.state != LogFileState::NotHdf5 || d.detail != kEmpty || attempt == 20) return d;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

std::string logFileProblem(const std::string& path, const LogFileDiagnosis& d,
                           const std::string& role) {
  const std::string start = "afresh: move it away (mv '" + path + "' '" + path +
                            ".broken') and run again, or give --force-new (or another "
                            "--run-id) for a fresh run folder beside this one";
  switch (d.state) {
    case LogFileState::Unreadable:
      return role + " " + path + " is unreadable (" + d.detail +
             "): make it readable and writable again (e.g. chmod u+rw '" + path +
             "') to resume, or start " + start;
    case LogFileState::NotHdf5:
      return role + " " + path + " is not an HDF5 file (" + d.detail +
             "): it was overwritten or is not a recurlab log; restore it from a copy to resume, "
             "or start " + start;
    case LogFileState::Corrupt:
      return role + " " + path + " is a corrupt HDF5 file (truncated or damaged; HDF5 says: " +
             d.detail + "): restore it from a copy to resume, or start " + start;
    case LogFileState::Readable:
    case LogFileState::Missing:
    case LogFileState::Locked:
      break;
  }
  return "";
}

}  // namespace recurlab
