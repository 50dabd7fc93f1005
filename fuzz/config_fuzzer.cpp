// libFuzzer target: a JSON config file and --set overrides, as the drivers read them. The input
// is the config file's bytes, then after each NUL byte one --set assignment. Each step either
// throws std::invalid_argument (a named error) or succeeds; a config that was read and
// overridden must then be writable as JSON text (what the run log stores), so no byte that JSON
// cannot hold may get into it unnoticed.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "common/config_json.h"
#include "fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace recurlab::experiments;
  const char* text = reinterpret_cast<const char*>(data);
  size_t end = 0;
  while (end < size && text[end] != '\0') ++end;
  nlohmann::json config;
  try {
    config = readJsonFile(recurlab::fuzz::writeFuzzInput(data, end));
  } catch (const std::invalid_argument&) {
    return 0;
  }
  if (!config.is_object()) return 0;  // the driver refuses it (named)
  size_t start = end + 1;
  while (start <= size) {
    size_t stop = start;
    while (stop < size && text[stop] != '\0') ++stop;
    try {
      applyOverride(config, std::string(text + start, stop - start));
    } catch (const std::invalid_argument&) {
    }
    start = stop + 1;
  }
  const std::string dumped = config.dump(2);  // throws (and so crashes here) on bad UTF-8
  if (nlohmann::json::parse(dumped) != config) std::abort();
  return 0;
}
