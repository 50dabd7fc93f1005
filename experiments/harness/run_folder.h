#pragma once
// The one run-folder API of every driver: results/<experiment>/<run-id>/ with
// log.h5, or one log.shard-i-of-n.h5 per shard (each process writes only its own file; the
// analysis merges every log of the folder), checkpoints/, report.md, figures, summary.json.
//
//   RunFolder run(cl.run_folder, cl.shard, cl.command_line, cl.config, seed, machine);
//   run.log() ...                      // the experiment writes its data (units, tables)
//   run.finish();                      // end_time, fsync, close (readers can open it now)
//   run.runAnalysis();                 // recurlab_analyze <folder>: report.md, figures
//
// Reusing a run id resumes it, but only with the same config and seed: a folder whose logs
// hold another config is refused with the differing keys (--force-new starts a fresh folder
// beside it instead).
#include <boost/program_options/options_description.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/log/hdf5_run_log.h"
#include "common/runtime/machine_info.h"
#include "experiments/harness/shard.h"

namespace recurlab::experiments {

struct RunFolderOptions {
  explicit RunFolderOptions(std::string experiment_name = "")
      : experiment(std::move(experiment_name)) {}
  std::string experiment;                // e.g. "variance"; also the report kind
  std::string results_root = "results";  // --results-root
  std::string run_id;                    // --run-id; empty = UTC timestamp 20261121-134425
  std::string out_dir;                   // --out: the whole folder, overrides the two above
  bool force_new = false;                // --force-new: never resume; next free <id>-k
};

// Adds --run-id, --out, --results-root and --force-new to a command line.
void addRunFolderOptions(boost::program_options::options_description& cli,
                         RunFolderOptions& options);

// The folder these options name (what RunFolder opens): --out, or
// <results-root>/<experiment>/<run-id or a fresh UTC timestamp>; with --force-new the next free
// <id>-k. Creates nothing.
std::string runFolderPath(const RunFolderOptions& options);

// Runs `recurlab_analyze <folder>` from the directory of this executable: report.md, figures,
// summary.json; with `terminal_summary` it also prints the report's headline tables. Returns
// its exit status; -1 (with a note on how to run it) when it is missing.
int runAnalysisOf(const std::string& folder, bool terminal_summary = false);

// Throws std::runtime_error when a log already in `folder` holds another experiment, config or
// seed, or cannot be read (what RunFolder checks when it opens a folder, for a process that
// writes into the folder before any worker opens its log).
void checkResumableFolder(const std::string& folder, const std::string& experiment,
                          const nlohmann::json& config, int64_t seed);

// UTC timestamp usable as a folder name, e.g. "20261121-134425".
std::string defaultRunId();

// "log.h5" or "log.shard-<i>-of-<n>.h5".
std::string runLogName(const Shard& shard);

// Every run log in the folder (log.h5 and log.shard-*.h5), sorted.
std::vector<std::string> runLogFiles(const std::string& folder);

// Dotted keys whose values differ between two JSON configs ("train.lr: 0.001 -> 0.002"),
// sorted; empty when they are equal.
std::vector<std::string> configDifferences(const nlohmann::json& before,
                                           const nlohmann::json& now);

// configDifferences less the top-level "description": prose about a run changes nothing it
// trains, so a config whose description was corrected still resumes its folder (the log then
// records the new text).
std::vector<std::string> trainingConfigDifferences(nlohmann::json before, nlohmann::json now);

// The full argv joined by spaces, arguments with spaces or quotes single-quoted.
std::string joinCommandLine(int argc, char** argv);

// Directory of the running executable (from /proc/self/exe), "" if unknown.
std::string executableDirectory();

// Root attributes every run log holds (also used by tests and by hand-made logs).
void writeRunAttributes(Hdf5RunLog& log, const std::string& experiment,
                        const std::string& command_line, const std::string& config_json,
                        int64_t seed, const MachineInfo& machine);

class RunFolder {
 public:
  // Picks the folder (an explicit --run-id/--out is resumed, a timestamp id is fresh),
  // creates it, checks that every log already there was written with this config and seed
  // (else std::runtime_error listing the differing keys), removes the groups `unfinished`
  // names from this shard's log (units cut off mid-way), opens it in Append mode and writes
  // the root attributes (start_time kept on resume, `resumed` counted, `shard` = "i/n").
  RunFolder(const RunFolderOptions& options, const Shard& shard, const std::string& command_line,
            const nlohmann::json& config, int64_t seed, const MachineInfo& machine,
            const std::function<std::vector<std::string>(const Hdf5RunLog&)>& unfinished = {});

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const;  // path()/name
  const Shard& shard() const { return shard_; }
  bool resumed() const { return resumed_; }
  Hdf5RunLog& log();  // throws once finish() has closed it

  // summary.json: headline figures for scripts that do not read HDF5.
  void writeSummary(const nlohmann::json& summary) const;

  // end_time, flush + fsync, close (HDF5 locks a file open for writing). Idempotent.
  void finish();

  // Runs `recurlab_analyze <folder>` from the directory of this executable. Returns its exit
  // status; -1 (with a note on how to run it) when the tool is missing.
  int runAnalysis() const;

 private:
  std::string path_;
  Shard shard_;
  bool resumed_ = false;
  std::optional<Hdf5RunLog> log_;
};

}  // namespace recurlab::experiments
