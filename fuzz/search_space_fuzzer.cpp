// libFuzzer target: any bytes read as a JSON config either fail to parse, fail
// validateSearchSpaces with std::invalid_argument, or validate; a validated config must then
// sample and give its corners without error or undefined behaviour.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

#include "experiments/search/search_space.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace recurlab::experiments;
  const auto config = nlohmann::json::parse(data, data + size, nullptr, false);
  if (config.is_discarded()) return 0;
  try {
    validateSearchSpaces(config, "fuzz input");
  } catch (const std::invalid_argument&) {
    return 0;
  }
  for (uint64_t seed : {0ull, 1ull, 0xffffffffffffffffull})
    if (sampleSearchSpaces(config, seed) != sampleSearchSpaces(config, seed)) std::abort();
  if (hasSearchSpace(config) && searchSpaceCorners(config).size() < 2) std::abort();
  return 0;
}
