#pragma once
// Reading a run log that a running experiment holds open. HDF5 locks a file for its writer, and
// a read-only open honours the lock, so a log cannot be read while its run writes it. While an
// UnlockedLogReads lives, Hdf5RunLog opens in ReadOnly mode neither take nor honour the lock
// (HDF5's file-locking switch of the file access list): the writer flushes after every write,
// so such a reader sees every row appended so far. Writers are unaffected and still exclude
// each other. Analysis reads every log this way; the runner does not (it must tell a log
// another worker is writing from one it can use). Not thread-safe, like HDF5 itself.
namespace recurlab::experiments {

class UnlockedLogReads {
 public:
  UnlockedLogReads();
  ~UnlockedLogReads();
  UnlockedLogReads(const UnlockedLogReads&) = delete;
  UnlockedLogReads& operator=(const UnlockedLogReads&) = delete;

  static bool active();
};

}  // namespace recurlab::experiments
