// Machine translation benchmark (Lei et al. 2018 App. B.3, Table 7 and Figure 7; design.md
// §6): `make exp-mt`. Thin driver: command line -> checked config -> run folder -> joint
// subwords and encoded data -> the harness runner over one unit per model -> report
// (recurlab_analyze) -> the BLEU-per-epoch table on the terminal.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "experiments/config/experiment_command_line.h"
#include "experiments/harness/data_parallel_launch.h"
#include "experiments/harness/local_jobs.h"
#include "experiments/harness/run_folder.h"
#include "experiments/harness/runner.h"
#include "experiments/mt/mt_config.h"
#include "experiments/mt/mt_task.h"
#include "experiments/runtime/machine_info.h"
#include "experiments/runtime/heap_policy.h"
#include "experiments/runtime/openblas_core.h"
#include "experiments/runtime/thread_count.h"
#include "models/seq2seq/seq2seq_model.h"

namespace {

// Rows epochs, columns models: valid BLEU (greedy) / test BLEU per epoch.
void printBleuTable(const std::string& log_path, const std::vector<std::string>& models) {
  using recurlab::experiments::Hdf5RunLog;
  Hdf5RunLog log(log_path, Hdf5RunLog::Mode::ReadOnly);
  std::vector<std::vector<double>> valid, test;
  size_t epochs = 0;
  for (const auto& m : models) {
    const std::string table = "/" + m + "/epochs";
    if (!log.exists(table)) {
      valid.emplace_back();
      test.emplace_back();
      continue;
    }
    const auto t = log.readTable(table);
    valid.push_back(t.column("valid_bleu"));
    test.push_back(t.column("test_bleu"));
    epochs = std::max(epochs, valid.back().size());
  }
  std::cout << "\nBLEU per epoch (valid: greedy; test: per config; sacreBLEU default, "
               "detokenized, mixed case)\n";
  std::printf("%-6s", "epoch");
  for (const auto& m : models) std::printf(" | %-22s", (m + " valid/test").c_str());
  std::printf("\n");
  for (size_t e = 0; e < epochs; ++e) {
    std::printf("%-6zu", e + 1);
    for (size_t i = 0; i < models.size(); ++i) {
      if (e < valid[i].size())
        std::printf(" | %9.2f / %-10.2f", valid[i][e], test[i][e]);
      else
        std::printf(" | %-22s", "-");
    }
    std::printf("\n");
  }
  for (const auto& m : models) {
    const auto line = log.attribute("/" + m, "test_bleu_lc_line");
    const auto mixed = log.attribute("/" + m, "test_bleu_line");
    if (mixed) std::cout << m << " final test: " << std::get<std::string>(*mixed) << "\n";
    if (line) std::cout << m << " final test: " << std::get<std::string>(*line) << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  recurlab::ensureFastOpenBlas(argc, argv);
  recurlab::retainFreedHeapMemory();
  using namespace recurlab::experiments;
  try {
    CommandLineSpec spec;
    spec.experiment = "mt";
    spec.description =
        "recurlab_mt: machine translation on Multi30k En-De (or any parallel files named in the "
        "config)\nwith joint sentencepiece subwords, the one Trainer (label-smoothed "
        "cross-entropy, Adam, noam or\ninverse_sqrt warm-up, token-count batches, checkpoint "
        "averaging) and beam search with the\nGNMT length penalty (Lei et al. 2018, App. B.3). "
        "BLEU equals sacreBLEU 2.6.0's default\n(recurlab_bleu). The default config is a quick "
        "run on a training subset; configs/mt/multi30k.json\nis the transformer-tiny setup of "
        "Wu et al. (2021). Kill it and run the same command (same --run-id)\nto resume.";
    spec.default_config = defaultConfigFile("configs/mt/quick.json");
    auto cl = parseExperimentCommandLine(argc, argv, spec);
    if (cl.help) {
      std::cout << cl.help_text << "\nModels (config key models[].model):\n";
      for (const auto& name : recurlab::models::seq2seqModelNames()) std::cout << "  " << name << "\n";
      return 0;
    }
    const int threads = recurlab::applyThreadCount(cl.threads);
    const auto config = MtConfig::fromJson(cl.config);
    const auto known = recurlab::models::seq2seqModelNames();
    for (const auto& m : config.models)
      if (std::find(known.begin(), known.end(), m.model) == known.end()) {
        std::string names;
        for (const auto& k : known) names += (names.empty() ? "" : ", ") + k;
        throw std::invalid_argument("config model '" + m.name + "': unknown model '" + m.model +
                                    "'; known: " + names);
      }
    MtTask task(config, cl.data_dir);
    task.checkData();
    std::cout << "config " << cl.config_file << ": " << config.models.size() << " models, "
              << threads << " threads" << std::endl;

    refuseDataParallel(cl, "machine translation");
    if (wantsLocalJobs(cl)) return runLocalJobs(argc, argv, cl);

    RunFolder folder(cl.run_folder, cl.shard, cl.command_line, cl.config, config.seed,
                     recurlab::collectMachineInfo(), [&](const Hdf5RunLog& log) {
                       return unfinishedUnitGroups(task, cl.shard, log);
                     });
    task.prepare(folder.file("subwords/joint.model"));
    const auto& counts = task.counts();
    std::cout << "data: " << task.data().train.size() << " training pairs (of "
              << counts.train_lines << " lines; " << counts.train_empty << " empty, "
              << counts.train_too_long << " over " << config.max_length << " subwords, "
              << counts.train_subset_dropped << " outside the subset), " << task.data().valid.size()
              << " valid, " << task.data().test.size() << " test; subwords: "
              << task.subwords().size() << " (" << config.subword_type << ", "
              << task.subwords().path() << ")" << std::endl;
    RunnerOptions runner;
    runner.seed = static_cast<uint64_t>(config.seed);
    const auto report = runTask(task, folder, runner);
    folder.finish();
    if (const auto rc = exitBeforeReport(report, cl.shard, folder.path())) return *rc;
    (void)report;
    std::vector<std::string> names;
    for (const auto& m : config.models) names.push_back(m.name);
    printBleuTable(folder.file("log.h5"), names);
    const int rc = folder.runAnalysis();
    if (rc == 0) std::cout << "report: " << folder.file("report.md") << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "recurlab_mt: error: " << e.what() << "\n";
    return 2;
  }
}
