#pragma once
// The LM driver's commands on a kept model (docs/lm.md):
//   recurlab_lm score --model DIR [-i FILE]     BPC or perplexity of a text in the model's format
//   recurlab_lm generate --model DIR --seed-text TEXT --temperature T --top-k K --length N --seed S
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/harness/experiment_command_line.h"
#include "tasks/lm/lm_kept_model.h"

namespace recurlab::experiments {

struct LmScore {
  double nats = 0;          // mean per predicted symbol
  int64_t symbols = 0;      // in the text
  int64_t predicted = 0;    // targets scored
  int64_t streams = 0, segment_length = 0;
};

// Mean nats of `ids` with the model's evaluation streams and segment length (those of the
// run's test number), fewer when the text is too short for them; `streams` > 0 overrides.
// Throws naming `where` when the text has fewer than two symbols.
LmScore scoreSymbols(KeptLanguageModel& model, const std::vector<int64_t>& ids, int64_t streams,
                     const std::string& where);

struct SampleOptions {
  double temperature = 1.0;
  int64_t top_k = 0;   // 0 = every symbol
  int64_t length = 200;
  uint64_t seed = 1;
};

// The seed text's symbols followed by `length` sampled ones; the same seed gives the same ids.
std::vector<int64_t> sampleSymbols(KeptLanguageModel& model, const std::vector<int64_t>& seed_ids,
                                   const SampleOptions& options);

ModelCommandSpec lmScoreCommand();
ModelCommandSpec lmGenerateCommand();

}  // namespace recurlab::experiments
