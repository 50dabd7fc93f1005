#pragma once
// Reading a log that another HDF5 writer holds open. Hdf5RunLog's writer never does (it
// replaces the file whole at every write and keeps its writer lock in `<log>.lock`), but a log
// open in h5py, or written by a recurlab before 2026-11-25, is flocked by HDF5, and a
// read-only open honours that lock. While an UnlockedLogReads lives, Hdf5RunLog opens in
// ReadOnly mode neither take nor honour HDF5's lock (its file-locking switch of the file
// access list). Analysis reads every log this way. Not thread-safe, like HDF5 itself.
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
