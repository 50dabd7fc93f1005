// recurlab_compare RUN... [--out DIR]: the headline metrics of several runs in one table and
// one figure, mean ± std over seeds, paired tests where runs share seeds (docs/compare.md).
#include <boost/program_options.hpp>
#include <iostream>

#include "analysis/run_comparison.h"
#include "analysis/run_list_command_line.h"

namespace po = boost::program_options;

int main(int argc, char** argv) {
  std::string out_dir = "compare";
  po::options_description cli(
      "recurlab_compare RUN_DIR... [--out DIR]: one table (compare.md, .csv, .tex) and one figure "
      "(compare.png) of the runs' headline metrics, mean ± std over the seeds of each model and "
      "config, with paired randomization tests where runs share seeds\nOptions");
  cli.add_options()("help,h", "show this help")(
      "out", po::value(&out_dir), "output folder (default: compare)");
  const auto cl = recurlab::analysis::parseRunListCommandLine(
      argc, argv, cli, {"recurlab_compare", "run folders", "give at least one run folder", {}},
      std::cout, std::cerr);
  if (cl.exit_status) return *cl.exit_status;
  try {
    std::vector<recurlab::analysis::RunMetrics> metrics;
    for (const auto& run : cl.runs) metrics.push_back(recurlab::analysis::readRunMetrics(run));
    const auto comparison = recurlab::analysis::compareRuns(metrics);
    const auto files = recurlab::analysis::writeComparison(comparison, metrics, out_dir);
    std::cout << "recurlab_compare: " << comparison.rows.size() << " rows, "
              << comparison.paired.size() << " paired tests; wrote " << files.size() << " files";
    for (const auto& f : files) std::cout << "\n  " << f;
    std::cout << std::endl;
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "recurlab_compare: " << e.what() << "\n";
    return 1;
  }
}
