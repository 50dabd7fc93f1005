#include "experiments/harness/experiment_command_line.h"

#include <boost/program_options.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/runtime/compute_device.h"

namespace recurlab::experiments {
namespace po = boost::program_options;
namespace {

// Takes the top-level config key `key` out of the config: its value, or nullopt without it.
std::optional<nlohmann::json> takeKey(nlohmann::json& config, const char* key) {
  if (!config.is_object() || !config.contains(key)) return std::nullopt;
  nlohmann::json value = config[key];
  config.erase(key);
  return value;
}

std::string stringKey(const nlohmann::json& value, const char* key, const char* expected) {
  if (!value.is_string())
    throw std::invalid_argument(std::string("config key ") + key + ": expected " + expected +
                                " as a string, got " + value.dump());
  return value.get<std::string>();
}

// --device, --precision, --deterministic over the config's keys of the same names.
ExecutionOptions executionOptions(const po::variables_map& vm, nlohmann::json& config) {
  std::string device = "cpu", precision = "fp32";
  bool deterministic = false;
  if (const auto v = takeKey(config, "device")) device = stringKey(*v, "device", "cpu, cuda, cuda:N or auto");
  if (const auto v = takeKey(config, "precision")) precision = stringKey(*v, "precision", "fp32, bf16 or fp16");
  if (const auto v = takeKey(config, "deterministic")) {
    if (!v->is_boolean())
      throw std::invalid_argument("config key deterministic: expected true or false, got " + v->dump());
    deterministic = v->get<bool>();
  }
  if (vm.count("device")) device = vm["device"].as<std::string>();
  if (vm.count("precision")) precision = vm["precision"].as<std::string>();
  if (vm.count("deterministic")) deterministic = true;
  return resolveExecutionOptions(device, precision, deterministic);
}

}  // namespace

std::string defaultConfigFile(const std::string& relative) {
  if (std::filesystem::exists(relative)) return relative;
  return std::string(RECURLAB_SOURCE_DIR) + "/" + relative;
}

namespace {

// Every text option ends up in the config or the log (JSON text, UTF-8): a value JSON cannot
// hold is refused here, by option and byte offset, not by the JSON library after the data
// loaded.
void requireUtf8Options(const po::variables_map& vm) {
  for (const auto& [name, value] : vm) {
    if (const auto* text = boost::any_cast<std::string>(&value.value())) {
      requireUtf8(*text, "--" + name);
    } else if (const auto* texts = boost::any_cast<std::vector<std::string>>(&value.value())) {
      for (size_t k = 0; k < texts->size(); ++k)
        requireUtf8((*texts)[k], "--" + name + " (its " + std::to_string(k + 1) + ". value)");
    }
  }
}

// The config: the file, then each --set, then --seed and --embeddings.
void readConfig(ExperimentCommandLine& cl, const po::variables_map& vm, int64_t seed) {
  cl.config = nlohmann::json::object();
  if (!cl.config_file.empty()) {
    cl.config = readJsonFile(cl.config_file);
    if (!cl.config.is_object())
      throw std::invalid_argument("config file " + cl.config_file + ": expected a JSON object");
  }
  for (const auto& s : cl.sets) applyOverride(cl.config, s);
  if (vm.count("seed")) {
    cl.seed = seed;
    cl.config["seed"] = seed;
  }
  if (vm.count("embeddings")) cl.config["embeddings"] = cl.embeddings;
}

}  // namespace

ExperimentCommandLine parseExperimentCommandLine(int argc, char** argv, const CommandLineSpec& spec) {
  ExperimentCommandLine cl;
  cl.run_folder.experiment = spec.experiment;
  std::string shard = "0/1";
  int64_t seed = 0;
  po::options_description options(spec.description + "\n\nOptions");
  options.add_options()
      ("help,h", "show this help")
      ("config", po::value(&cl.config_file)->default_value(spec.default_config),
       "JSON config file")
      ("set", po::value(&cl.sets)->composing(),
       "override a config key: --set train.lr=0.002 (dotted keys reach nested objects; the "
       "value is JSON, or a string); repeatable")
      ("seed", po::value(&seed), "root seed; every other seed derives from it (config key seed)")
      ("threads", po::value(&cl.threads)->default_value(0), "intra-op threads, 0 = all cores")
      ("jobs", po::value(&cl.jobs)->default_value(1),
       "run the units in N worker processes on this machine (each a --shard i/N, with "
       "--threads cores/N unless given), then the report; 0 = one per core")
      ("nproc-per-node", po::value(&cl.nproc_per_node)->default_value(1),
       "train each unit data-parallel on N processes of this machine (c10d Gloo; torchrun/"
       "Slurm users set RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT instead)")
      ("shard", po::value(&shard)->default_value("0/1"),
       "i/n: run every n-th unit of work starting at i, into log.shard-i-of-n.h5")
      ("data-dir", po::value(&cl.data_dir)->default_value("data"),
       "data folder (filled by scripts/get-data.sh)")
      ("print-config", "print the effective config (every key checked) and exit");
  if (spec.embeddings)
    options.add_options()("embeddings", po::value(&cl.embeddings),
                          "word vectors (word2vec binary/text or GloVe text) (config key embeddings)");
  if (spec.execution)
    options.add_options()
        ("device", po::value<std::string>(),
         "cpu (default), cuda (device 0), cuda:N, or auto (cuda when there is one): model, "
         "batches, optimizer and evaluation on it (config key device)")
        ("precision", po::value<std::string>(),
         "fp32 (default), bf16 or fp16 (CUDA only): autocast for matmuls and attention, float32 "
         "weights and optimizer state, loss scaling for fp16 (config key precision)")
        ("deterministic", "bit-identical repeats: on CUDA the deterministic algorithms where "
         "LibTorch has them (the CPU always repeats) (config key deterministic)");
  addRunFolderOptions(options, cl.run_folder);
  if (spec.extra) spec.extra(options);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(options).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw std::invalid_argument(std::string(e.what()) + " (see --help)");
  }
  for (const auto& [name, value] : vm)
    if (!value.defaulted()) cl.given.insert(name);
  cl.command_line = joinCommandLine(argc, argv);
  if (vm.count("help")) {
    std::ostringstream text;
    text << options;
    cl.help = true;
    cl.help_text = text.str();
    return cl;
  }
  requireUtf8Options(vm);
  if (cl.threads < 0) throw std::invalid_argument("--threads must be >= 0");
  if (cl.jobs < 0) throw std::invalid_argument("--jobs must be >= 0");
  if (cl.nproc_per_node < 1) throw std::invalid_argument("--nproc-per-node must be >= 1");
  cl.shard = parseShard(shard);
  readConfig(cl, vm, seed);
  if (spec.execution) cl.execution = executionOptions(vm, cl.config);
  return cl;
}

ModelCommandLine parseModelCommandLine(int argc, char** argv, const ModelCommandSpec& spec) {
  ModelCommandLine cl;
  po::options_description options(spec.description + "\n\nOptions");
  options.add_options()("help,h", "show this help")(
      "model", po::value(&cl.model), "the kept model's folder (<run>/models/<unit>)")(
      "threads", po::value(&cl.threads)->default_value(0), "intra-op threads, 0 = all cores")(
      "device", po::value(&cl.device)->default_value("cpu"),
      "cpu (default), cuda (device 0), cuda:N, or auto (cuda when there is one): the model and "
      "its batches on it");
  const std::set<std::string> offered(spec.options.begin(), spec.options.end());
  auto offer = [&](const char* name, auto value, const char* help) {
    if (offered.count(name)) options.add_options()(name, value, help);
  };
  offer("input,i", po::value(&cl.input)->default_value("-"), "input file, - = standard input");
  offer("output,o", po::value(&cl.output)->default_value("-"), "output file, - = standard output");
  offer("batch-size", po::value(&cl.batch_size)->default_value(0),
        "sentences (or streams) per batch, 0 = the model's own");
  offer("beam", po::value(&cl.beam)->default_value(0), "beam size, 1 = greedy, 0 = the model's");
  offer("alpha", po::value(&cl.alpha)->default_value(-1.0),
        "length penalty exponent, < 0 = the model's");
  offer("length-penalty", po::value(&cl.length_penalty)->default_value(""),
        "gnmt: score log P / ((5+|Y|)/6)^alpha; fairseq: log P / |Y|^alpha (fairseq-generate's "
        "--lenpen); empty = the model's");
  offer("nbest", po::value(&cl.nbest)->default_value(1),
        "hypotheses per sentence (<= beam); > 1: lines `N<TAB>score<TAB>text`, N the input line");
  offer("seed-text", po::value(&cl.seed_text)->default_value(""), "text the sample continues");
  offer("temperature", po::value(&cl.temperature)->default_value(1.0), "softmax temperature (> 0)");
  offer("top-k", po::value(&cl.top_k)->default_value(0),
        "sample among the k most likely symbols, 0 = all");
  offer("length", po::value(&cl.length)->default_value(200), "symbols to sample");
  offer("seed", po::value(&cl.seed)->default_value(1),
        "sampling seed: the same seed, the same text (or sequences)");
  offer("lengths", po::value(&cl.lengths)->default_value(""),
        "sequence lengths, comma-separated (e.g. 40,80,160)");
  offer("examples", po::value(&cl.examples)->default_value(1000), "sequences per length");
  for (const auto& name : spec.options) {
    const std::string option = name.substr(0, name.find(','));
    if (!options.find_nothrow(option, false))
      throw std::logic_error("model command " + spec.name + ": unknown option " + name);
  }
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(options).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw std::invalid_argument(spec.name + ": " + e.what() + " (see " + spec.name + " --help)");
  }
  for (const auto& [name, value] : vm)
    if (!value.defaulted()) cl.given.insert(name);
  if (vm.count("help")) {
    std::ostringstream text;
    text << options;
    cl.help = true;
    cl.help_text = text.str();
    return cl;
  }
  if (cl.model.empty()) throw std::invalid_argument(spec.name + ": --model DIR is required");
  if (cl.threads < 0) throw std::invalid_argument("--threads must be >= 0");
  cl.device = resolveComputeDevice(cl.device, "--device");  // as a training run resolves it
  if (cl.batch_size < 0) throw std::invalid_argument("--batch-size must be >= 0");
  if (cl.beam < 0) throw std::invalid_argument("--beam must be >= 0");
  if (cl.nbest < 1) throw std::invalid_argument("--nbest must be >= 1");
  if (!(cl.temperature > 0)) throw std::invalid_argument("--temperature must be > 0");
  if (cl.top_k < 0) throw std::invalid_argument("--top-k must be >= 0");
  if (cl.length < 0) throw std::invalid_argument("--length must be >= 0");
  if (cl.examples < 1) throw std::invalid_argument("--examples must be >= 1");
  requireUtf8(cl.seed_text, "--seed-text");
  return cl;
}

}  // namespace recurlab::experiments
