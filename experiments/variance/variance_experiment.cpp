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
#include "experiments/harness/run_folder.h"
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
  CommandLineSpec spec;
  spec.experiment = "variance";
  spec.description =
      "recurlab_variance: variance propagation at initialization through a deep SRU (Lei et "
      "al. 2018, App. A and Fig. 6) and a gated-conv stack (Gehring et al. 2017, App. A).\n"
      "--data-dir: the folder with classification/rt-polarity.all (default: data, then "
      "../shared/data); --embeddings adds the 'pretrained' input.";
  spec.extra = [](po::options_description& cli) {
    cli.add_options()
        ("print-config", "print the effective config and exit")
        ("quick", "small sizes for a smoke run (keys not set otherwise)");
  };
  ExperimentCommandLine cl;
  VarianceStudyOptions options;
  try {
    cl = parseExperimentCommandLine(argc, argv, spec);
    if (cl.help) {
      std::cout << cl.help_text << "\n";
      return 0;
    }
    for (const char* option : {"shard", "jobs", "nproc-per-node"})
      if (cl.has(option))
        throw std::invalid_argument(std::string("--") + option +
                                    ": the variance study is one unit of one process");
    nlohmann::json config = cl.config;
    if (cl.has("quick")) applyQuick(config);
    if (cl.has("data-dir")) config["data_dir"] = cl.data_dir;
    options = VarianceStudyOptions::fromJson(config);
  } catch (const std::exception& e) {
    std::cerr << "recurlab_variance: " << e.what() << "\n";
    return 2;
  }
  if (!options.embeddings.empty() &&
      std::find(options.sru.inputs.begin(), options.sru.inputs.end(), "pretrained") ==
          options.sru.inputs.end())
    options.sru.inputs.push_back("pretrained");
  if (cl.has("print-config")) {
    std::cout << options.toJson().dump(2) << "\n";
    return 0;
  }
  const bool wants_pretrained =
      std::find(options.sru.inputs.begin(), options.sru.inputs.end(), "pretrained") !=
      options.sru.inputs.end();
  if (wants_pretrained && options.embeddings.empty()) {
    std::cerr << "recurlab_variance: input 'pretrained' needs --embeddings FILE\n";
    return 2;
  }

  const int used_threads = applyThreadCount(cl.threads);
  std::cout << "recurlab_variance: " << used_threads << " threads" << std::endl;
  try {
    // A resumed run (same config) goes on where it stopped: each study skips the
    // (alpha, bias) curves its table holds in full.
    RunFolder run(cl.run_folder, cl.shard, cl.command_line, options.toJson(), options.seed,
                  collectMachineInfo("cpu"));
    if (run.log().exists("/variance") && run.log().attribute("/variance", "status")) {
      std::cout << "recurlab_variance: " << run.path() << " already holds this run's study\n";
      run.finish();
      return run.runAnalysis() == 0 ? 0 : 1;
    }
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
    run.log().createGroup("/variance");
    run.log().setAttribute("/variance", "status", std::string("finished"));
    run.finish();
    const int rc = run.runAnalysis();
    std::cout << "results: " << run.path() << std::endl;
    return rc == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "recurlab_variance: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace recurlab::experiments
