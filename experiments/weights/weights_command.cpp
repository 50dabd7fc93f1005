#include "experiments/weights/weights_command.h"

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "experiments/weights/kept_model_exchange.h"
#include "experiments/weights/safetensors_file.h"
#include "experiments/weights/weights_exchange.h"
#include "models/registry.h"

namespace recurlab::experiments::weights {
namespace {

namespace po = boost::program_options;

const char* const kUsage =
    "usage: recurlab_weights inspect FILE.safetensors\n"
    "       recurlab_weights export WEIGHTS.pt|MODEL_DIR OUT.safetensors [--model NAME --model-config JSON "
    "--input-size N]\n"
    "       recurlab_weights import IN.safetensors WEIGHTS.pt [--model NAME --model-config JSON "
    "--input-size N]\n";

const char* const kHelp =
    "A model's weights to and from safetensors, the format PyTorch users exchange weights in\n"
    "(docs/weights.md). WEIGHTS.pt: a LibTorch archive with one tensor per parameter or buffer\n"
    "name, as recurlab keeps a model's weights. MODEL_DIR: a kept model's folder, exported from\n"
    "the folder alone: its config.json names the encoder, whose parameters take the reference's\n"
    "names (\"encoder.rnn_lst.0.weight\", ...); import of such a file needs no --model either.\n"
    "inspect checks a file and lists its tensors.\n"
    "Without --model, export and import pass the tensors one to one under their names. With\n"
    "--model they go through that model, built from its config keys: every parameter must be\n"
    "there with its shape and nothing else, and the names and layouts are the PyTorch\n"
    "reference's where there is one (--model sru: asappresearch/sru's SRU, \"rnn_lst.0.weight\";\n"
    "min_gru, min_lstm: BorealisAI/minRNNs; hgrn, gla: fla-org/flash-linear-attention).\n";

struct Request {
  std::string action;
  std::vector<std::string> files;
  std::string model, model_config = "{}";
  int64_t input_size = 0;
};

nlohmann::json parseModelConfig(const std::string& text) {
  std::string json_text = text;
  if (!text.empty() && text.front() != '{') {  // a file
    std::ifstream in(text);
    if (!in) throw std::runtime_error("--model-config: cannot open " + text);
    std::ostringstream s;
    s << in.rdbuf();
    json_text = s.str();
  }
  try {
    const auto config = nlohmann::json::parse(json_text);
    if (!config.is_object()) throw std::runtime_error("not a JSON object");
    return config;
  } catch (const std::exception& e) {
    throw std::runtime_error("--model-config " + text + ": " + e.what());
  }
}

std::shared_ptr<torch::nn::Module> buildModel(const Request& r) {
  if (r.input_size <= 0)
    throw std::runtime_error("--model " + r.model + " needs --input-size N (N > 0)");
  return models::makeEncoder(r.model, parseModelConfig(r.model_config), r.input_size);
}

SafetensorsContents asContents(const NamedTensors& tensors) {
  SafetensorsContents contents;
  for (const auto& [name, tensor] : tensors)
    contents.tensors.push_back(toSafetensorsTensor(name, tensor));
  return contents;
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

void inspect(const std::string& path, std::ostream& out) {
  const auto contents = readSafetensors(path);
  int64_t elements = 0;
  for (const auto& [key, value] : contents.metadata)
    out << "metadata " << key << " = " << value << "\n";
  for (const auto& t : contents.tensors) {
    out << t.name << " " << dtypeName(t.dtype) << " " << shapeText(t.shape) << "\n";
    elements += t.numel();
  }
  out << contents.tensors.size() << " tensors, " << elements << " elements\n";
}

void exportWeights(const Request& r, std::ostream& out) {
  SafetensorsContents contents;
  if (std::filesystem::is_directory(r.files[0])) {
    if (!r.model.empty())
      throw std::runtime_error(r.files[0] + ": a kept model's folder names its model in its "
                               "config.json; export it without --model");
    contents = exportKeptModel(r.files[0]);
    writeSafetensors(r.files[1], contents);
    out << "wrote " << r.files[1] << ": " << contents.tensors.size() << " tensors\n";
    return;
  }
  const auto archive = readTensorArchive(r.files[0]);
  std::map<std::string, std::string> metadata = {{"format", "pt"},
                                                 {"producer", "recurlab_weights"}};
  if (r.model.empty()) {
    contents = asContents(archive);
    contents.metadata = metadata;
  } else {
    auto model = buildModel(r);
    importModuleWeights(*model, asContents(archive), r.files[0]);
    metadata["model"] = r.model;
    metadata["model_config"] = parseModelConfig(r.model_config).dump();
    metadata["input_size"] = std::to_string(r.input_size);
    contents = exportEncoderWeights(*model, r.model, metadata);
  }
  writeSafetensors(r.files[1], contents);
  out << "wrote " << r.files[1] << ": " << contents.tensors.size() << " tensors\n";
}

void importWeights(const Request& r, std::ostream& out) {
  const auto contents = readSafetensors(r.files[0]);
  NamedTensors tensors;
  if (r.model.empty() && isKeptModelExport(contents)) {
    tensors = importKeptModel(contents, r.files[0]);
  } else if (r.model.empty()) {
    for (const auto& t : contents.tensors) tensors.emplace_back(t.name, toTorchTensor(t));
  } else {
    auto model = buildModel(r);
    importEncoderWeights(*model, r.model, contents, r.files[0]);
    tensors = namedWeights(*model);
  }
  writeTensorArchive(r.files[1], tensors);
  out << "wrote " << r.files[1] << ": " << tensors.size() << " tensors\n";
}

}  // namespace

int runWeightsCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Request r;
  po::options_description options("options");
  options.add_options()("help,h", "this help")(
      "model", po::value(&r.model), "an encoder of the registry (sru, qrnn, ...)")(
      "model-config", po::value(&r.model_config),
      "its config keys: JSON text or a .json file (default {})")(
      "input-size", po::value(&r.input_size), "the model's input features");
  po::options_description hidden;
  hidden.add_options()("words", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("words", -1);
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
      out << kUsage << "\n" << kHelp << "\n" << options;
      return 0;
    }
    std::vector<std::string> words;
    if (vm.count("words")) words = vm["words"].as<std::vector<std::string>>();
    if (words.empty()) throw std::runtime_error("no action (inspect, export or import)");
    r.action = words[0];
    r.files.assign(words.begin() + 1, words.end());
    const size_t wanted = r.action == "inspect" ? 1 : 2;
    if (r.action != "inspect" && r.action != "export" && r.action != "import")
      throw std::runtime_error("unknown action '" + r.action + "' (inspect, export or import)");
    if (r.files.size() != wanted)
      throw std::runtime_error(r.action + " takes " + std::to_string(wanted) + " file" +
                               (wanted == 1 ? "" : "s") + ", got " +
                               std::to_string(r.files.size()));
    if (r.action == "inspect" && !r.model.empty())
      throw std::runtime_error("inspect takes no --model");
  } catch (const std::exception& e) {
    err << "recurlab_weights: " << e.what() << "\n" << kUsage;
    return 2;
  }
  try {
    if (r.action == "inspect") inspect(r.files[0], out);
    if (r.action == "export") exportWeights(r, out);
    if (r.action == "import") importWeights(r, out);
    return 0;
  } catch (const std::exception& e) {
    err << "recurlab_weights: error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace recurlab::experiments::weights
