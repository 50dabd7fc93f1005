#include "common/runtime/thread_count.h"

#include <ATen/Parallel.h>

#include <thread>

namespace recurlab {

int applyThreadCount(int n) {
  if (n <= 0) n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  at::set_num_threads(n);
  return at::get_num_threads();
}

}  // namespace recurlab
