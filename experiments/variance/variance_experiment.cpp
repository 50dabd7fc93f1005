#include "experiments/variance/variance_experiment.h"

#include <torch/torch.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "experiments/config/experiment_command_line.h"
#include "experiments/data/word_vectors.h"
#include "experiments/run_directory.h"
#include "experiments/runtime/machine_info.h"
#include "experiments/runtime/thread_count.h"
#include "experiments/variance/glu_variance_study.h"
#include "experiments/variance/sru_variance_study.h"
#include "experiments/variance/variance_inputs.h"
#include "experiments/variance/variance_study_options.h"

namespace recurlab::experiments {

namespace po = boost::program_options;

namespace {

// Small sizes for a smoke run (seconds instead of minutes).
void applyQuick(nlohmann::json& config) {
  for (const char* s : {"sru.layers=4", "sru.hidden=64", "sru.length=64", "sru.samples=16",
                        "sru.batch=8", "sru.burn_in=16", "sru.sentences=64", "glu.layers=4",
                        "glu.channels=32", "glu.length=32", "glu.batch=8"}) {
    const std::string a = s;
    const std::string key = a.substr(0, a.find('='));
    const std::string group = key.substr(0, key.find('.')), name = key.substr(key.find('.') + 1);
    if (!config.contains(group) || !config[group].contains(name)) applyOverride(config, a);
  }
}

}  // namespace

int runVarianceExperiment(int argc, char** argv) {
  RunDirectoryOptions dir_opts{"variance"};
  std::string config_file, data_dir, embeddings;
  std::vector<std::string> overrides;
  int threads = 0;
  int64_t seed = -1;
  po::options_description cli(
      "exp_variance: variance propagation at initialization through a deep SRU (seed 000 "
      "App. A, Fig. 6) and a gated-conv stack (seed 003 App. A)\nOptions");
  cli.add_options()
      ("help,h", "show this help")
      ("config", po::value<std::string>(&config_file), "JSON config file (see --print-config)")
      ("set", po::value<std::vector<std::string>>(&overrides)->composing(),
       "override a config key, e.g. --set sru.layers=8 --set 'sru.highway_biases=[0,-2]'")
      ("print-config", "print the effective config and exit")
      ("quick", "small sizes for a smoke run (keys not set otherwise)")
      ("seed", po::value<int64_t>(&seed), "random seed (overrides the config's 'seed')")
      ("data-dir", po::value<std::string>(&data_dir),
       "data folder with classification/rt-polarity.all (default: data, then ../shared/data)")
      ("embeddings", po::value<std::string>(&embeddings),
       "pretrained word vectors (word2vec binary/text or GloVe text): adds the 'pretrained' "
       "input")
      ("threads", po::value<int>(&threads)->default_value(0), "LibTorch threads (0 = all cores)");
  addRunDirectoryOptions(cli, dir_opts);
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, cli), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "exp_variance: " << e.what() << "\n" << cli << "\n";
    return 2;
  }
  if (vm.count("help")) {
    std::cout << cli << "\n";
    return 0;
  }
  VarianceStudyOptions options;
  try {
    nlohmann::json config = nlohmann::json::object();
    if (!config_file.empty()) {
      config = readJsonFile(config_file);
    }
    for (const auto& s : overrides) applyOverride(config, s);
    if (vm.count("quick")) applyQuick(config);
    if (seed >= 0) config["seed"] = seed;
    if (!data_dir.empty()) config["data_dir"] = data_dir;
    if (!embeddings.empty()) config["embeddings"] = embeddings;
    options = VarianceStudyOptions::fromJson(config);
  } catch (const std::exception& e) {
    std::cerr << "exp_variance: " << e.what() << "\n";
    return 2;
  }
  if (!options.embeddings.empty() &&
      std::find(options.sru.inputs.begin(), options.sru.inputs.end(), "pretrained") ==
          options.sru.inputs.end())
    options.sru.inputs.push_back("pretrained");
  if (vm.count("print-config")) {
    std::cout << options.toJson().dump(2) << "\n";
    return 0;
  }
  const bool wants_pretrained =
      std::find(options.sru.inputs.begin(), options.sru.inputs.end(), "pretrained") !=
      options.sru.inputs.end();
  if (wants_pretrained && options.embeddings.empty()) {
    std::cerr << "exp_variance: input 'pretrained' needs --embeddings FILE\n";
    return 2;
  }

  const int used_threads = applyThreadCount(threads);
  std::cout << "exp_variance: " << used_threads << " threads" << std::endl;
  try {
    RunDirectory run(dir_opts, argc, argv, options.toJson(), options.seed,
                     collectMachineInfo("cpu"));
    auto progress = [](const std::string& line) { std::cout << line << std::endl; };
    const auto& s = options.sru;
    SentenceSample sentences;
    const bool wants_sentences =
        wants_pretrained || std::find(s.inputs.begin(), s.inputs.end(), "sentences") !=
                                s.inputs.end();
    if (wants_sentences)
      sentences = readSentenceSample(findMrFile(options.data_dir), s.sentences, options.seed);
    for (const auto& kind : s.inputs) {
      std::unique_ptr<VarianceInputSource> input;
      if (kind == "iid") {
        input = makeIidInput(s.hidden, s.length, s.samples, s.batch, s.burn_in, s.input_std,
                             options.seed);
      } else if (kind == "correlated") {
        input = makeCorrelatedInput(s.hidden, s.length, s.samples, s.batch, s.burn_in,
                                    s.input_std, options.seed);
      } else if (kind == "sentences") {
        input = makeRandomEmbeddingInput(sentences, s.hidden, s.batch, s.input_std, options.seed);
      } else {
        std::unordered_set<std::string> vocab;
        for (const auto& sent : sentences.sentences) vocab.insert(sent.begin(), sent.end());
        WordVectorLoadOptions lo;
        lo.vocabulary = &vocab;
        const WordVectors vectors = loadWordVectors(options.embeddings, lo);
        std::cout << "loaded " << vectors.size() << " vectors (" << vectors.dim << "d, "
                  << toString(vectors.format) << ") from " << options.embeddings << std::endl;
        input = makePretrainedInput(sentences, vectors, options.embeddings, s.batch);
      }
      std::cout << "input " << input->name() << ": " << input->description() << std::endl;
      runSruVarianceStudy(s, *input, options.seed, run.log(), progress);
    }
    if (options.glu.enabled) runGluVarianceStudy(options.glu, options.seed, run.log(), progress);
    run.finish();
    const int rc = run.runAnalysis();
    std::cout << "results: " << run.path() << std::endl;
    return rc == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "exp_variance: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace recurlab::experiments
