#pragma once
// What a call that must fail threw, for tests that check an error names what is wrong.
#include <c10/util/Exception.h>

#include <functional>
#include <string>

namespace recurlab::testing {

// The c10::Error message `call` throws (without its backtrace), or "(no error)".
inline std::string errorMessageOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  }
  return "(no error)";
}

}  // namespace recurlab::testing
