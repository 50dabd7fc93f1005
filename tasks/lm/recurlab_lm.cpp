// recurlab_lm (`make exp-lm`): Lei et al. (2018), App. B.4; Peng et al. (2018), App. E.2.
#include "experiments/harness/experiment_driver.h"
#include "tasks/lm/lm_commands.h"
#include "tasks/lm/lm_task.h"
#include "models/registry.h"

int main(int argc, char** argv) {
  using namespace recurlab::experiments;
  DriverSpec spec{"lm",
      "recurlab_lm: language modelling by truncated BPTT on PTB char (bits per character), PTB word\n"
      "(perplexity), enwik8 (bits per byte) or any text corpus, every model sized to one parameter budget\n"
      "(Lei et al. 2018, App. B.4; Peng et al. 2018, App. E.2); causal encoders only. The default config\n"
      "is a quick PTB-char run (SRU vs QRNN vs LSTM); configs/lm/ holds ptb-char, ptb-word and enwik8.\n"
      "Kill it and run the same command (same --run-id) to resume, inside an epoch (docs/lm.md).",
      "configs/lm/quick.json", recurlab::models::encoderListing};
  spec.embeddings = false;  // trained from scratch: no word-vector file
  spec.commands = {lmScoreCommand(), lmGenerateCommand()};
  spec.blas_threads = DriverSpec::BlasThreads::AsLibTorch;  // its GEMMs are large enough to split
  return runExperiment(argc, argv, spec, [](const ExperimentCommandLine& cl) {
    return std::make_unique<LmTask>(LmConfig::fromJson(cl.config), cl.data_dir);
  });
}
