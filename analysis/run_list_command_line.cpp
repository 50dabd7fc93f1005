#include "analysis/run_list_command_line.h"

#include <boost/program_options.hpp>

namespace recurlab::analysis {

namespace po = boost::program_options;

RunListCommandLine parseRunListCommandLine(int argc, const char* const* argv,
                                           po::options_description options,
                                           const RunListSpec& spec, std::ostream& out,
                                           std::ostream& err) {
  RunListCommandLine cl;
  options.add_options()("runs", po::value<std::vector<std::string>>(&cl.runs), spec.runs_help.c_str());
  po::positional_options_description positional;
  positional.add("runs", -1);
  try {
    po::store(po::command_line_parser(argc, argv).options(options).positional(positional).run(),
              cl.options);
    po::notify(cl.options);
  } catch (const po::error& e) {
    err << spec.tool << ": " << e.what() << "\n" << options << "\n";
    cl.exit_status = 2;
    return cl;
  }
  if (cl.options.count("help")) {
    out << options << "\n";
    cl.exit_status = 0;
    return cl;
  }
  if (!cl.runs.empty()) return cl;
  for (const auto& option : spec.options_needing_no_run)
    if (cl.options.count(option)) return cl;
  err << spec.tool << ": " << spec.no_runs_error << "\n" << options << "\n";
  cl.exit_status = 2;
  return cl;
}

}  // namespace recurlab::analysis
