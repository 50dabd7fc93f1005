// recurlab_analyze RUN_DIR_OR_LOG [...]: regenerates every figure, table, report.md and
// summary.json of the given runs from their log.h5 alone.
#include <boost/program_options.hpp>
#include <iostream>

#include "analysis/report_registry.h"
#include "analysis/run_list_command_line.h"

namespace po = boost::program_options;

int main(int argc, char** argv) {
  po::options_description cli(
      "recurlab_analyze RUN_DIR_OR_LOG [...]: rebuild report.md, figures (PNG, PDF or SVG, gnuplot "
      "script and data), tables (.tex, .csv) and summary.json "
      "of each run from its log.h5\nOptions");
  cli.add_options()("help,h", "show this help")("list-kinds", "list the report kinds known")(
      "summary", "also print each report's headline tables (what the drivers show at the end of a run)");
  const auto cl = recurlab::analysis::parseRunListCommandLine(
      argc, argv, cli,
      {"recurlab_analyze", "run folders or log.h5 files",
       "give at least one run folder or log.h5", {"list-kinds"}},
      std::cout, std::cerr);
  if (cl.exit_status) return *cl.exit_status;
  const auto& vm = cl.options;
  if (vm.count("list-kinds")) {
    for (const auto& k : recurlab::analysis::reportKinds())
      std::cout << k << ": " << recurlab::analysis::reportDescription(k) << "\n";
    return 0;
  }
  int failures = 0;
  for (const auto& run : cl.runs) {
    try {
      std::string summary;
      const bool with_summary = vm.count("summary") > 0;
      const auto files = recurlab::analysis::analyzeRun(run, with_summary ? &summary : nullptr);
      std::cout << run << ": wrote " << files.size() << " files";
      for (const auto& f : files) std::cout << "\n  " << f;
      std::cout << std::endl;
      if (with_summary && !summary.empty()) std::cout << "\n" << summary << std::flush;
    } catch (const std::exception& e) {
      std::cerr << "recurlab_analyze: " << run << ": " << e.what() << "\n";
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}
