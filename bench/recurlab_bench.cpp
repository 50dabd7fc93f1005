// recurlab_bench (`make bench`): recurlab's training and decoding steps side by side with
// PyTorch's own modules on the same shapes and threads (docs/performance.md).
#include "bench/bench_task.h"
#include "common/runtime/thread_wait_policy.h"
#include "experiments/harness/experiment_driver.h"

int main(int argc, char** argv) {
  using namespace recurlab;
  sleepingThreadWaits(argv);  // before LibTorch or OpenBLAS start a thread
  bench::BenchOptions options;
  experiments::DriverSpec spec{"bench",
      "recurlab_bench: MT Transformer training and beam search, PTB character LMs and the\n"
      "classification SRU, each step timed beside PyTorch's own modules (nn.Transformer, nn.LSTM, a\n"
      "plain-PyTorch SRU) on identical shapes, in interleaved rounds at 1 and 2 threads; the report\n"
      "gives tokens/s, sentences/s or characters/s and the ratios. Python 3 with PyTorch runs the\n"
      "baselines (scripts/install-deps.sh --bench); without it our side is timed alone."};
  spec.extra = [&](boost::program_options::options_description& cli) {
    bench::addBenchOptions(cli, options);
  };
  spec.embeddings = false;
  return experiments::runExperiment(argc, argv, spec, [&](const experiments::ExperimentCommandLine& cl) {
    return std::make_unique<bench::BenchTask>(options, cl);
  });
}
