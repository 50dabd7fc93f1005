#pragma once
// `recurlab_variance`: the whole variance experiment behind one call, so the driver stays thin.

namespace recurlab::experiments {

// Parses the command line (see --help), runs the SRU and gated-conv studies into
// results/variance/<run-id>/log.h5, then runs recurlab_analyze for the report and figures.
// Returns the process exit status.
int runVarianceExperiment(int argc, char** argv);

}  // namespace recurlab::experiments
