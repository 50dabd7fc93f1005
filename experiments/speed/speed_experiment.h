#pragma once
// `make exp-speed`: forward+backward time per layer, side by side in one run (issue 3, and
// issue 6 with --device cuda). Writes results/speed/<run>/ (log.h5, report.md, PNG,
// summary.json).
namespace recurlab::experiments {

int runSpeedExperiment(int argc, char** argv);

}  // namespace recurlab::experiments
