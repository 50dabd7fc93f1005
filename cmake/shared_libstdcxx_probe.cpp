// The probe of cmake/shared_libstdcxx.cmake and scripts/shared-runtime-cxx.sh: a stream and a
// string, code that only the C++ runtime holds, so that a linked program shows where it took
// that runtime from.
#include <sstream>

int probe() {
  std::ostringstream s;
  s << 42;
  return static_cast<int>(s.str().size());
}

int main() { return probe() == 2 ? 0 : 1; }
