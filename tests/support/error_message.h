#pragma once
// What a call that must fail threw, for tests that check an error names what is wrong.
#include <c10/util/Exception.h>

#include <exception>
#include <functional>
#include <string>

namespace recurlab::testing {

// The message `call` throws (a c10::Error's without its backtrace), or "" when it throws none.
inline std::string errorMessageOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace recurlab::testing
