#pragma once
// LibTorch from Debian defaults to one intra-op thread; every binary takes --threads N.

namespace recurlab {

// Sets LibTorch's intra-op thread count; n <= 0 means all cores. Returns the count in use.
int applyThreadCount(int n);

}  // namespace recurlab
