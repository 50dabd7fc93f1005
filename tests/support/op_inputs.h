#pragma once
// What the fused recurrence ops received: while an OpInputs lives, every call on this thread of
// an op named in `ops` (by its RECORD_FUNCTION name, e.g. "recurlab::sru_recurrence") records the
// dtype of its first input (U). The bf16 tests check with it that under autocast the recurrence
// ran on the float32 up-cast of U, not on bfloat16.
#include <c10/core/ScalarType.h>

#include <map>
#include <set>
#include <string>

namespace recurlab::testing {

class OpInputs {
 public:
  explicit OpInputs(std::set<std::string> ops);
  ~OpInputs();
  OpInputs(const OpInputs&) = delete;
  OpInputs& operator=(const OpInputs&) = delete;

  // op name -> how many calls saw U in each dtype.
  const std::map<std::string, std::map<c10::ScalarType, int64_t>>& calls() const {
    return calls_;
  }
  // Calls of any of the ops, and those whose U was not float32.
  int64_t callCount() const;
  int64_t callsNotInFloat32() const;

 private:
  friend struct OpInputsObserver;
  std::set<std::string> ops_;
  std::map<std::string, std::map<c10::ScalarType, int64_t>> calls_;
  uint64_t handle_ = 0;
  OpInputs* outer_ = nullptr;  // the one this replaced as the thread's recorder
};

}  // namespace recurlab::testing
