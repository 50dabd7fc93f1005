#pragma once
// The command line of the analysis tools (recurlab_analyze, recurlab_compare): the tool's own
// options, then run folders (or log.h5 files) as positional arguments. --help prints the
// options; a bad option, or no run, is one line on standard error followed by the options
// (exit status 2). The analysis tools parse with this, not with the experiment drivers'
// command line (experiments/harness/experiment_command_line.h), which lives in the training
// library that analysis never links.
#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace recurlab::analysis {

struct RunListCommandLine {
  std::vector<std::string> runs;
  boost::program_options::variables_map options;
  std::optional<int> exit_status;  // set when the tool is done: 0 after --help, 2 after an error
};

struct RunListSpec {
  std::string tool;           // "recurlab_compare": starts every error line
  std::string runs_help;      // the positional arguments' help, e.g. "run folders"
  std::string no_runs_error;  // said when no run is given
  // Options that make a call without runs valid (recurlab_analyze --list-kinds).
  std::vector<std::string> options_needing_no_run;
};

// `options` holds the tool's options, --help among them; the positional runs are added here.
RunListCommandLine parseRunListCommandLine(int argc, const char* const* argv,
                                           boost::program_options::options_description options,
                                           const RunListSpec& spec, std::ostream& out,
                                           std::ostream& err);

}  // namespace recurlab::analysis
