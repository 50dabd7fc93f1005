#pragma once
// Why a run log cannot be opened, told apart for the person who must fix it: unreadable
// (permissions), not an HDF5 file at all, a damaged or truncated HDF5 file, or one that another
// process holds open right now (HDF5 locks it). No torch.
#include <string>

namespace recurlab {

enum class LogFileState {
  Readable,    // opens read-only
  Missing,     // no such file
  Unreadable,  // the operating system refuses to open it (permissions, a folder, ...)
  NotHdf5,     // no HDF5 signature at its start (empty, overwritten, another format)
  Corrupt,     // HDF5 signature, but HDF5 cannot open it (truncated, damaged superblock)
  Locked,      // another process holds it open (HDF5 file locking); not a fault
};

struct LogFileDiagnosis {
  LogFileState state = LogFileState::Readable;
  std::string detail;  // the operating system's or HDF5's own words, for the message
};

// Opens `path` read-only (and closes it) to tell which state it is in.
LogFileDiagnosis diagnoseLogFile(const std::string& path);

// A message for a log that is neither Readable nor Locked: names the file, says what is wrong
// with it in words and what to do (fix permissions, move it away to start afresh, or a fresh
// folder with --force-new); `role` says whose log it is ("this run's log", "the log of another
// worker"). Empty for Readable, Missing and Locked.
std::string logFileProblem(const std::string& path, const LogFileDiagnosis& d,
                           const std::string& role);

}  // namespace recurlab
