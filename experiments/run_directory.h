#pragma once
// The results folder of one run (design.md §5): results/<experiment>/<run-id>/ holding
// log.h5, report.md, figures and summary.json. Every driver uses it the same way:
//
//   RunDirectoryOptions dir_opts{"variance"};
//   addRunDirectoryOptions(cli, dir_opts);                  // --run-id, --out, --results-root
//   ... parse ...
//   RunDirectory run(dir_opts, argc, argv, config_json, seed, collectMachineInfo());
//   run.log().createTable(...); ...                        // the experiment writes its data
//   run.writeSummary(headline_json);
//   run.finish();                                          // end_time
//   run.runAnalysis();                                     // report.md + PNGs from log.h5
#include <boost/program_options/options_description.hpp>
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "experiments/log/hdf5_run_log.h"
#include "experiments/runtime/machine_info.h"

namespace recurlab::experiments {

struct RunDirectoryOptions {
  explicit RunDirectoryOptions(std::string experiment_name = "")
      : experiment(std::move(experiment_name)) {}
  std::string experiment;                // e.g. "variance"; also the report kind
  std::string results_root = "results";  // --results-root
  std::string run_id;                    // --run-id; empty = UTC timestamp 20261121-134425
  std::string out_dir;                   // --out: the whole folder, overrides the two above
};

// Adds --run-id, --out and --results-root to a driver's command line.
void addRunDirectoryOptions(boost::program_options::options_description& cli,
                            RunDirectoryOptions& options);

// UTC timestamp usable as a folder name, e.g. "20261121-134425".
std::string defaultRunId();

class RunDirectory {
 public:
  // Creates the folder (and parents) and log.h5, and writes the root attributes. An
  // auto-generated run id that already exists gets a suffix (-2, -3, ...); an explicit
  // --run-id/--out whose log.h5 exists is resumed (opened in Append mode; start_time kept,
  // `resumed` counts resumptions).
  RunDirectory(const RunDirectoryOptions& options, int argc, char** argv,
               const nlohmann::json& config, int64_t seed, const MachineInfo& machine);

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const;  // path()/name
  Hdf5RunLog& log();  // throws once finish() has closed it
  bool resumed() const { return resumed_; }

  // summary.json: the run's headline figures, for scripts that do not read HDF5.
  void writeSummary(const nlohmann::json& summary) const;

  // Writes end_time and closes log.h5 (HDF5 locks a file open for writing, so readers such as
  // recurlab_analyze can open it only then). Call once the experiment's data is complete.
  void finish();

  // Runs `recurlab_analyze <run folder>` from the directory of this executable, which writes
  // report.md, figures and summary.json from log.h5 alone. Returns its exit status; when the
  // tool is missing, says how to run it and returns -1 (the run's data is safe either way).
  int runAnalysis() const;

 private:
  // Declared before log_: log_'s initializer sets them.
  std::string path_;
  bool resumed_ = false;
  std::optional<Hdf5RunLog> log_;
};

// Root attributes every run log holds (also used by tests and by hand-made logs).
void writeRunAttributes(Hdf5RunLog& log, const std::string& experiment,
                        const std::string& command_line, const std::string& config_json,
                        int64_t seed, const MachineInfo& machine);

// The full argv joined by spaces, arguments with spaces or quotes single-quoted.
std::string joinCommandLine(int argc, char** argv);

// Directory of the running executable (from /proc/self/exe), "" if unknown.
std::string executableDirectory();

}  // namespace recurlab::experiments
