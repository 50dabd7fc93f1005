#pragma once
// The command line every experiment driver shares (design.md §5): --config FILE, repeated
// --set key=value, --seed, --threads, --shard i/n, --data-dir, --embeddings, --help, and the
// run folder's --run-id, --out, --results-root (experiments/run_directory.h). The JSON config
// is assembled here; each experiment validates it.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiments/run_directory.h"

namespace recurlab::experiments {

struct Shard {
  int index = 0;  // i in [0, count)
  int count = 1;  // n; 1 = no sharding
  bool active() const { return count > 1; }
  bool owns(size_t unit) const { return static_cast<int>(unit % count) == index; }
};

// "i/n" with 0 <= i < n; throws std::invalid_argument naming the option otherwise.
Shard parseShard(const std::string& text);

struct ExperimentCommandLine {
  bool help = false;
  std::string help_text;
  std::string command_line;   // the whole invocation, for the log
  std::string config_file;    // as given (or the default)
  std::vector<std::string> sets;
  std::optional<int64_t> seed;
  int threads = 0;
  Shard shard;
  RunDirectoryOptions run_directory;  // --run-id, --out, --results-root
  std::string data_dir;
  std::string embeddings;     // "" = none
  nlohmann::json config;      // file + --set overrides + --seed/--embeddings
};

// Parses argv; reads and assembles the config. Throws std::invalid_argument (bad option,
// unreadable or invalid JSON file with its path, bad --set). With --help, returns with
// help = true and help_text filled, without reading the config.
// `experiment` names the results folder (results/<experiment>/<run-id>).
ExperimentCommandLine parseExperimentCommandLine(int argc, char** argv,
                                                 const std::string& experiment,
                                                 const std::string& description,
                                                 const std::string& default_config);

// Reads a JSON file; errors name the file and the parser's line/column.
nlohmann::json readJsonFile(const std::string& path);

// Applies "a.b.c=value" to `config`, creating nested objects; the value is parsed as JSON
// and taken as a plain string when it is not valid JSON.
void applyOverride(nlohmann::json& config, const std::string& assignment);

}  // namespace recurlab::experiments
