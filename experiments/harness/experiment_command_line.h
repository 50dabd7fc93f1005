#pragma once
// The one command line of every experiment driver: --config FILE, repeated
// --set key=value, --seed, --threads, --jobs N, --nproc-per-node N, --shard i/n, --data-dir,
// --embeddings (where the task takes word vectors), --device, --precision, --deterministic
// (experiments/training/execution_options.h), --print-config, --help, the run
// folder's --run-id, --out, --results-root, --force-new (experiments/harness/run_folder.h),
// and whatever options a driver adds through `extra`. The JSON config is assembled here; each
// experiment validates it.
#include <boost/program_options/options_description.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/config_json.h"
#include "experiments/training/execution_options.h"
#include "experiments/harness/run_folder.h"
#include "experiments/harness/shard.h"

namespace recurlab::experiments {

struct CommandLineSpec {
  using ExtraOptions = std::function<void(boost::program_options::options_description&)>;
  CommandLineSpec(std::string experiment_name = "", std::string help_description = "",
                  std::string default_config_file = "", ExtraOptions extra_options = {})
      : experiment(std::move(experiment_name)),
        description(std::move(help_description)),
        default_config(std::move(default_config_file)),
        extra(std::move(extra_options)) {}
  std::string experiment;      // names the results folder and the binary recurlab_<experiment>
  std::string description;     // first paragraph of --help
  std::string default_config;  // "" = no file unless --config is given; the config starts {}
  bool embeddings = true;      // offers --embeddings (config key embeddings)
  bool execution = true;       // offers --device, --precision, --deterministic (and their keys)
  // Adds a driver's own options (bound to its variables).
  ExtraOptions extra;
};

struct ExperimentCommandLine {
  bool help = false;
  std::string help_text;
  std::string command_line;   // the whole invocation, for the log
  std::string config_file;    // as given (or the default; "" = none)
  std::vector<std::string> sets;
  std::optional<int64_t> seed;
  int threads = 0;
  int jobs = 1;               // --jobs: worker processes on this machine, 0 = one per core
  int nproc_per_node = 1;     // --nproc-per-node: data-parallel ranks of one unit, spawned here
  Shard shard;
  RunFolderOptions run_folder;  // --run-id, --out, --results-root, --force-new
  std::string data_dir;
  std::string embeddings;     // "" = none
  nlohmann::json config;      // file + --set overrides + --seed/--embeddings
  ExecutionOptions execution;  // device resolved, precision checked; taken out of `config`
  std::set<std::string> given;  // options present on the command line

  bool has(const std::string& option) const { return given.count(option) > 0; }
};

// Parses argv; reads and assembles the config. Throws std::invalid_argument (bad option,
// unreadable or invalid JSON file with its path and line, bad --set). With --help, returns
// with help = true and help_text filled, without reading the config.
ExperimentCommandLine parseExperimentCommandLine(int argc, char** argv, const CommandLineSpec& spec);

// A command on a kept model (experiments/kept_model/kept_model.h), the driver's first argument:
// `recurlab_mt translate --model DIR -i FILE`. Its options are a subset of one set, so each
// means the same in every command: --model, --input/-i, --output/-o, --threads, --device (as
// training resolves it, common/runtime/compute_device.h), --batch-size and the decoding and
// sampling options below.
struct ModelCommandLine {
  bool help = false;
  std::string help_text;
  std::string model;           // the kept model's folder
  std::string input = "-";     // "-" = standard input
  std::string output = "-";    // "-" = standard output
  int threads = 0;
  std::string device = "cpu";  // resolved: "cpu" or "cuda:N"
  int64_t batch_size = 0;      // 0 = the model's own
  int64_t beam = 0;            // translate: 0 = the model's decode.beam
  double alpha = -1;           // translate: < 0 = the model's decode.alpha
  std::string length_penalty;  // translate: gnmt or fairseq, "" = the model's
  int64_t nbest = 1;           // translate: hypotheses per sentence (<= beam)
  std::string seed_text;       // generate
  double temperature = 1.0;    // generate
  int64_t top_k = 0;           // generate: 0 = the whole vocabulary
  int64_t length = 200;        // generate: symbols to sample
  uint64_t seed = 1;           // generate, evaluate
  std::string lengths;         // evaluate: sequence lengths, "40,80,160"
  int64_t examples = 1000;     // evaluate: sequences per length
  std::set<std::string> given;

  bool has(const std::string& option) const { return given.count(option) > 0; }
};

struct ModelCommandSpec {
  std::string name;         // "translate"
  std::string description;  // first paragraph of its --help
  // Offered options besides --model, --threads, --device and --help: input, output,
  // batch-size, beam, alpha, length-penalty, nbest, seed-text, temperature, top-k, length,
  // seed, lengths, examples.
  std::vector<std::string> options;
  std::function<int(const ModelCommandLine&)> run;
};

// Parses a command's arguments (argv[0] is the command's name). Throws std::invalid_argument
// on a bad option or value; --model is required unless --help.
ModelCommandLine parseModelCommandLine(int argc, char** argv, const ModelCommandSpec& spec);

// A driver's default config, e.g. "configs/lm/quick.json": relative to the working directory
// when it is there, else in the source tree this binary was built from.
std::string defaultConfigFile(const std::string& relative);

// readJsonFile, applyOverride, requireUtf8: common/config_json.h.

}  // namespace recurlab::experiments
