// recurlab_mt (`make exp-mt`): machine translation, Lei et al. (2018), App. B.3 (docs/mt.md).
#include "experiments/harness/experiment_driver.h"
#include "tasks/mt/mt_task.h"
#include "tasks/mt/translate_command.h"
#include "models/seq2seq/seq2seq_model.h"

int main(int argc, char** argv) {
  using namespace recurlab::experiments;
  DriverSpec spec{"mt",
      "recurlab_mt: machine translation on Multi30k En-De (or any parallel files named in the config): joint\n"
      "sentencepiece subwords, label-smoothed cross-entropy, checkpoint averaging, beam search with the GNMT\n"
      "length penalty (Lei et al. 2018, App. B.3); BLEU equals sacreBLEU 2.6.0's default. The default config\n"
      "is a quick run on a training subset; configs/mt/multi30k.json is the transformer-tiny setup of\n"
      "Wu et al. (2021). Kill it and run the same command (same --run-id) to resume.",
      "configs/mt/quick.json", recurlab::models::seq2seqModelListing};
  spec.embeddings = false;  // trained from scratch: no word-vector file
  spec.commands = {mtTranslateCommand()};
  spec.blas_threads = DriverSpec::BlasThreads::AsLibTorch;  // its GEMMs are large enough to split
  return runExperiment(argc, argv, spec, [](const ExperimentCommandLine& cl) {
    return std::make_unique<MtTask>(MtConfig::fromJson(cl.config), cl.data_dir);
  });
}
