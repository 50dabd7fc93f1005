#include "experiments/harness/runner.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>

#include "common/log/log_file_check.h"
#include "common/runtime/kill_point.h"
#include "experiments/search/search_space.h"
#include "experiments/search/seed_sequence.h"
#include "experiments/training/data_parallel.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  char buf[32];
  const long s = std::lround(seconds);
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s / 60) % 60);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", s);
  return buf;
}

// The other logs of the folder, read-only; one being written by another shard is left out
// (its units count as not finished). One that is unreadable or corrupt stops the run, named:
// leaving it out would silently run its finished units again.
std::vector<std::unique_ptr<Hdf5RunLog>> otherLogs(const std::string& folder,
                                                   const Hdf5RunLog& mine) {
  std::vector<std::unique_ptr<Hdf5RunLog>> others;
  for (const auto& f : runLogFiles(folder)) {
    if (fs::equivalent(f, mine.path())) continue;
    try {
      others.push_back(std::make_unique<Hdf5RunLog>(f, Hdf5RunLog::Mode::ReadOnly));
    } catch (const std::exception&) {
      const std::string problem =
          logFileProblem(f, diagnoseLogFile(f), "the log of another worker");
      if (!problem.empty()) throw std::runtime_error(problem);
    }
  }
  return others;
}

const Hdf5RunLog* holderOf(const Unit& u, const Hdf5RunLog& mine,
                           const std::vector<std::unique_ptr<Hdf5RunLog>>& others) {
  if (unitFinished(mine, u)) return &mine;
  for (const auto& o : others)
    if (unitFinished(*o, u)) return o.get();
  return nullptr;
}

struct ChosenConfig {
  enum class State { Ready, Waiting, AllDiverged } state = State::Ready;
  nlohmann::json config;
  int64_t trial = -1;
};

ChosenConfig chooseConfig(const Task& task, const Unit& u, const std::vector<Unit>& all,
                          const Hdf5RunLog& log, const std::string& folder, uint64_t seed) {
  ChosenConfig c;
  std::vector<const Unit*> trials;
  for (const auto& t : all)
    if (t.kind == Unit::Kind::Trial && t.search == u.search) trials.push_back(&t);
  if (u.kind == Unit::Kind::Trial || trials.empty()) {
    const int64_t t = u.kind == Unit::Kind::Trial ? u.trial : 0;
    c.config = sampleSearchSpaces(task.unitTemplate(u),
                                  deriveSeed(seed, "config/" + u.search + "/" + std::to_string(t)));
    return c;
  }
  const auto others = otherLogs(folder, log);
  const auto metric = task.selection();
  std::optional<double> best;
  for (const Unit* t : trials) {
    const Hdf5RunLog* holder = holderOf(*t, log, others);
    if (!holder) {
      c.state = ChosenConfig::State::Waiting;
      return c;
    }
    if (!holder->exists(t->group) || holder->stringAttribute(t->group, "status") != "finished")
      continue;
    const double v = holder->doubleAttribute(t->group, metric.name);
    if (!std::isfinite(v)) continue;
    if (!best || (metric.higher_is_better ? v > *best : v < *best)) {
      best = v;
      c.config = nlohmann::json::parse(holder->stringAttribute(t->group, "config"));
      c.trial = t->trial;
    }
  }
  if (!best) c.state = ChosenConfig::State::AllDiverged;
  return c;
}

// The machine a unit (last) started on, from the root attributes this process wrote: a run
// resumed elsewhere holds units of two machines, and the CPU repeats a seed bit for bit only on
// the same OpenBLAS kernels.
void recordUnitMachine(Hdf5RunLog& log, const std::string& group) {
  for (const char* name : {"device", "blas_core", "hostname"})
    if (const auto value = log.attribute("/", name)) log.setAttribute(group, name, *value);
}

}  // namespace

std::string skippedUnitGroup(const Unit& unit) {
  return "/harness_skipped/" + checkpointFolderName(unit.group);
}

bool unitFinished(const Hdf5RunLog& log, const Unit& u) {
  if (log.exists(u.group) && log.attribute(u.group, "status")) return true;
  return log.exists(skippedUnitGroup(u));
}

std::vector<std::string> unfinishedUnitGroups(const Task& task, const Shard& shard,
                                              const Hdf5RunLog& log) {
  std::vector<std::string> groups;
  const auto units = task.units();
  for (size_t i = 0; i < units.size(); ++i)
    if (shard.owns(i) && log.exists(units[i].group) && !log.attribute(units[i].group, "status"))
      groups.push_back(units[i].group);
  return groups;
}

namespace {

// The shard's units that no log of the folder holds finished, in order; the plan into the log.
std::vector<Unit> unitsToRun(const std::vector<Unit>& units, RunFolder& folder,
                             RunnerReport& report, std::ostream& out) {
  Hdf5RunLog& log = folder.log();
  std::vector<Unit> todo;
  int64_t in_shard = 0;
  {
    const auto others = otherLogs(folder.path(), log);
    for (size_t i = 0; i < units.size(); ++i) {
      if (!folder.shard().owns(i)) continue;
      ++in_shard;
      if (holderOf(units[i], log, others))
        ++report.already_finished;
      else
        todo.push_back(units[i]);
    }
  }
  if (report.already_finished)
    out << "resume: " << report.already_finished << " of " << in_shard
        << " units already finished in " << folder.path() << "\n";
  log.setAttribute("/", "units_total", static_cast<int64_t>(units.size()));
  log.setAttribute("/", "units_in_shard", in_shard);
  // Every unit's group, all shards': the report of a run still going tells a cell of some
  // finished folds from a finished cell.
  nlohmann::json planned = nlohmann::json::array();
  for (const auto& u : units) planned.push_back(u.group);
  log.setAttribute("/", "units_planned", planned.dump());
  return todo;
}

// A unit's group before it runs: its kind, seed, concrete config and machine.
void startUnitGroup(Hdf5RunLog& log, const Unit& u, uint64_t seed, const ChosenConfig& chosen) {
  const std::string& g = u.group;
  log.createGroup(g);
  log.setAttribute(g, "kind", std::string(u.kind == Unit::Kind::Trial ? "trial" : "final"));
  log.setAttribute(g, "trial", u.trial);
  log.setAttribute(g, "seed", static_cast<int64_t>(seed));
  log.setAttribute(g, "config", chosen.config.dump());
  if (chosen.trial >= 0) log.setAttribute(g, "chosen_trial", chosen.trial);
  log.setAttribute(g, "start_time", utcTimestamp());
  recordUnitMachine(log, g);
  log.flush();
}

// The unit's result into its group, its status last (from then on it counts as finished).
void finishUnitGroup(Hdf5RunLog& log, const std::string& g, const UnitResult& result) {
  for (const auto& [name, v] : result.metrics) log.setAttribute(g, name, v);
  for (const auto& [name, v] : result.counts) log.setAttribute(g, name, v);
  for (const auto& [name, v] : result.texts) log.setAttribute(g, name, v);
  log.setAttribute(g, "stop_reason", result.stop_reason);
  log.setAttribute(g, "end_time", utcTimestamp());
  // Written last: the unit counts as finished from here on (resume skips it).
  log.setAttribute(g, "status", std::string(result.diverged ? "diverged" : "finished"));
  log.sync();
}

}  // namespace

RunnerReport runTask(Task& task, RunFolder& folder, const RunnerOptions& options) {
  std::ostream& out = options.progress ? *options.progress : std::cerr;
  Hdf5RunLog& log = folder.log();
  RunnerReport report;
  const auto units = task.units();
  const std::vector<Unit> todo = unitsToRun(units, folder, report, out);

  const auto run_start = Clock::now();
  int64_t units_timed = 0;
  double unit_seconds = 0;
  for (size_t k = 0; k < todo.size(); ++k) {
    const Unit& u = todo[k];
    const auto chosen = chooseConfig(task, u, units, log, folder.path(), options.seed);
    if (chosen.state == ChosenConfig::State::Waiting) {
      out << u.label << ": waiting for search trials of other shards; run this shard again "
          << "once they are done\n";
      ++report.waiting;
      continue;
    }
    if (chosen.state == ChosenConfig::State::AllDiverged) {
      const std::string g = skippedUnitGroup(u);
      log.createGroup(g);
      log.setAttribute(g, "unit", u.group);
      log.setAttribute(g, "reason", std::string("every search trial of " + u.search + " diverged"));
      log.setAttribute(g, "status", std::string("skipped"));
      log.sync();
      out << u.label << ": skipped, every search trial of " << u.search
          << " diverged (narrow the search ranges, e.g. a lower train.lr)\n";
      ++report.skipped;
      continue;
    }
    const auto unit_start = Clock::now();
    const uint64_t seed = deriveSeed(options.seed, u.seed_purpose);
    const std::string& g = u.group;
    startUnitGroup(log, u, seed, chosen);

    UnitContext context{log, g, chosen.config, seed, CheckpointStore(), "", {}};
    context.data_parallel = options.data_parallel;
    context.execution = options.execution;
    if (options.checkpoints)
      context.checkpoints = CheckpointStore(unitCheckpointDir(folder.path(), g));
    // The trained model outlives the checkpoints (deleted below): final units keep it, in the
    // run's folder (data-parallel rank 0's).
    const bool rank_zero = !options.data_parallel || options.data_parallel->rank() == 0;
    if (options.checkpoints && u.kind == Unit::Kind::Final && rank_zero)
      context.model_dir = (fs::path(folder.path()) / "models" / g.substr(1)).string();
    context.progress = [&](const std::string& line, double done) {
      const double elapsed = std::chrono::duration<double>(Clock::now() - unit_start).count();
      const double unit_left = done > 0 ? elapsed / done * (1 - done) : NAN;
      const double typical = units_timed ? unit_seconds / static_cast<double>(units_timed)
                                         : elapsed + unit_left;
      const double run_left = unit_left + typical * static_cast<double>(todo.size() - k - 1);
      out << "[" << k + 1 << "/" << todo.size() << "] " << u.label << " " << line << " ETA unit "
          << duration(unit_left) << " run " << duration(run_left) << std::endl;
    };
    const UnitResult result = task.runUnit(u, context);
    if (result.kept_model && !result.diverged && !context.model_dir.empty())
      keepTrainedModel(*result.kept_model, context.model_dir, g, context.checkpoints);

    finishUnitGroup(log, g, result);
    if (!result.keep_checkpoints) context.checkpoints.removeAll();
    killPoint("unit-finished");
    if (result.diverged) {
      ++report.diverged;
      out << u.label << ": " << result.stop_reason << "\n";
    } else {
      out << u.label << ": finished (" << result.stop_reason << ")";
      const auto metric = task.selection();
      const auto it = result.metrics.find(metric.name);
      if (it != result.metrics.end()) out << ", " << metric.name << " " << it->second;
      out << "\n";
    }
    ++report.ran;
    ++units_timed;
    unit_seconds += std::chrono::duration<double>(Clock::now() - unit_start).count();
  }
  out << "done: " << report.ran << " units in "
      << duration(std::chrono::duration<double>(Clock::now() - run_start).count()) << "\n";
  return report;
}

}  // namespace recurlab::experiments
