// libFuzzer target: any bytes given to the SQuAD loader (with and without context truncation)
// and to the predictions reader either load consistently (every matched answer equals its
// context slice, offsets inside the context) or throw std::runtime_error; normalizing and
// scoring any loaded answer text never crashes.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "tasks/qa/squad_dataset.h"
#include "tasks/qa/squad_evaluation.h"
#include "fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace recurlab::experiments::qa;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  for (const int64_t max_chars : {0, 5}) {
    try {
      SquadLoadOptions options;
      options.max_context_chars = max_chars;
      const auto d = parseSquad(bytes, "fuzz.json", options);
      for (const auto& q : d.questions) {
        const auto& context = d.paragraphs.at(static_cast<size_t>(q.paragraph)).context;
        for (const auto& a : q.answers) {
          if (!a.matches) continue;
          if (a.byte_begin < 0 || a.byte_end < a.byte_begin) std::abort();
          if (!a.truncated &&
              (a.byte_end > static_cast<int64_t>(context.size()) ||
               context.substr(static_cast<size_t>(a.byte_begin),
                              static_cast<size_t>(a.byte_end - a.byte_begin)) != a.text))
            std::abort();
          const double f1 = tokenF1(a.text, q.question);
          if (!(f1 >= 0.0 && f1 <= 1.0)) std::abort();
        }
      }
    } catch (const std::runtime_error&) {
    } catch (const std::invalid_argument&) {  // invalid UTF-8 inside a JSON string
    }
  }
  try {
    loadPredictions(recurlab::fuzz::writeFuzzInput(data, size));
  } catch (const std::runtime_error&) {
  }
  return 0;
}
