#include "bench/bench_task.h"

#include <ATen/Parallel.h>
#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "bench/pytorch_process.h"
#include "common/runtime/thread_wait_policy.h"
#include "common/log/hdf5_run_log.h"
#include "common/runtime/openblas_core.h"

namespace recurlab::bench {
namespace po = boost::program_options;
using experiments::Unit;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream s(text);
  std::string item;
  while (std::getline(s, item, ','))
    if (!item.empty()) items.push_back(item);
  return items;
}

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << v;
  return s.str();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The interpreters tried in turn: $RECURLAB_BENCH_PYTHON or --python alone when given, else
// python3 on the PATH and then Debian's (a pyenv or venv python3 first on the PATH usually
// lacks the system's torch).
std::vector<std::string> pythonCandidates(const std::string& option) {
  if (!option.empty()) return {option};
  if (const char* env = std::getenv("RECURLAB_BENCH_PYTHON")) return {env};
  return {"python3", "/usr/bin/python3"};
}

// The machine, for the report: the CPU's model name and the load when the bench started (the
// bench shares the machine with whatever else runs).
std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  return "unknown CPU";
}

std::string loadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  if (!(in >> one >> five >> fifteen)) return "unknown";
  return one + " " + five + " " + fifteen;
}

}  // namespace

void addBenchOptions(po::options_description& cli, BenchOptions& o) {
  std::string names;
  for (const auto& n : benchCaseNames()) names += (names.empty() ? "" : ",") + n;
  cli.add_options()
      ("cases", po::value<std::string>(&o.cases), ("comma-separated cases of " + names + " (default all but lm_sru, whose baseline takes minutes a step)").c_str())
      ("thread-counts", po::value<std::string>(&o.thread_counts)->default_value("1,2"),
       "LibTorch thread counts to time, the same on both sides")
      ("rounds", po::value<int>(&o.rounds)->default_value(3), "interleaved rounds per case")
      ("min-seconds", po::value<double>(&o.min_seconds)->default_value(1.0),
       "each measurement runs whole steps until this long (at least one)")
      ("python", po::value<std::string>(&o.python),
       "Python with PyTorch for the baselines (default: $RECURLAB_BENCH_PYTHON, python3, /usr/bin/python3)")
      ("single-threaded-blas", po::bool_switch(&o.single_threaded_blas),
       "OpenBLAS on one thread on both sides at every thread count (as the training drivers run "
       "it); only LibTorch's own ops use the other threads");
}

BenchTask::BenchTask(BenchOptions options, const experiments::ExperimentCommandLine& cl)
    : options_(std::move(options)) {
  (void)cl;
  if (options_.rounds < 1) throw std::invalid_argument("--rounds must be at least 1");
  if (!(options_.min_seconds >= 0)) throw std::invalid_argument("--min-seconds must be >= 0");
  for (const auto& t : splitList(options_.thread_counts)) {
    int n = 0;
    try {
      n = std::stoi(t);
    } catch (const std::exception&) {
    }
    if (n < 1) throw std::invalid_argument("--thread-counts: '" + t + "' is not a positive count");
    threads_.push_back(n);
  }
  if (threads_.empty()) throw std::invalid_argument("--thread-counts: no thread count given");
  case_names_ = splitList(options_.cases);
  const auto known = benchCaseNames();
  for (const auto& n : case_names_)
    if (std::find(known.begin(), known.end(), n) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw std::invalid_argument("--cases: unknown case '" + n + "'; known: " + list);
    }
  // lm_sru (the plain-PyTorch SRU, a Python loop over 6 layers x 100 steps) takes minutes a
  // step: only when asked for.
  if (case_names_.empty())
    for (const auto& k : known)
      if (k != "lm_sru") case_names_.push_back(k);
  config_ = {{"cases", case_names_},
             {"thread_counts", threads_},
             {"rounds", options_.rounds},
             {"min_seconds", options_.min_seconds},
             {"single_threaded_blas", options_.single_threaded_blas}};
}

BenchTask::~BenchTask() = default;

std::string BenchTask::describe() const {
  return std::to_string(case_names_.size()) + " cases, " + std::to_string(options_.rounds) +
         " rounds at " + options_.thread_counts + " threads";
}

PytorchProcess& BenchTask::pytorch() const {
  if (!pytorch_) {
    // The same BLAS as ours: the core recurlab chose (OpenBLAS misdetects some virtual CPUs);
    // each request sets its thread counts, LibTorch's and OpenBLAS's, as we do.
    std::vector<std::pair<std::string, std::string>> env;
    const std::string core = openBlasCoreName();
    if (!std::getenv("OPENBLAS_CORETYPE") && core != "unavailable" && !isGenericOpenBlasCore(core))
      env.push_back({"OPENBLAS_CORETYPE", core});
    const std::string script = std::string(RECURLAB_SOURCE_DIR) + "/bench/pytorch_side.py";
    std::string reasons;
    for (const auto& python : pythonCandidates(options_.python)) {
      pytorch_ = std::make_unique<PytorchProcess>(python, script, env);
      if (pytorch_->available()) break;
      reasons += (reasons.empty() ? "" : "; ") + pytorch_->unavailableReason();
    }
    if (!pytorch_->available())
      std::cout << "recurlab_bench: no PyTorch side, timing recurlab alone: " << reasons << std::endl;
  }
  return *pytorch_;
}

void BenchTask::describeRun(experiments::Hdf5RunLog& log) const {
  auto& side = pytorch();
  log.createGroup("/bench");
  log.setAttribute("/bench", "pytorch_available", static_cast<int64_t>(side.available()));
  log.setAttribute("/bench", "pytorch_version", side.available() ? side.torchVersion() : "");
  log.setAttribute("/bench", "pytorch_unavailable_reason", side.unavailableReason());
  log.setAttribute("/bench", "thread_counts", nlohmann::json(threads_).dump());
  log.setAttribute("/bench", "cpu_model", cpuModel());
  log.setAttribute("/bench", "cores", std::to_string(std::thread::hardware_concurrency()));
  log.setAttribute("/bench", "load_average", loadAverage());
  log.setAttribute("/bench", "thread_waits", threadWaitPolicy());
  log.setAttribute("/bench", "blas_threads", options_.single_threaded_blas ? "1" : "the thread count");
}

std::vector<Unit> BenchTask::units() const {
  std::vector<Unit> units;
  for (size_t i = 0; i < case_names_.size(); ++i) {
    const std::string group = "/bench/cases/" + std::to_string(i);
    units.push_back({Unit::Kind::Final, group, case_names_[i], group, 0, "bench/" + case_names_[i]});
  }
  return units;
}

nlohmann::json BenchTask::unitTemplate(const Unit& unit) const {
  return {{"case", unit.label}};
}

namespace {

// "<label>, 2 threads: recurlab 123.4 tokens/s, PyTorch 100.0 tokens/s" (their rate if any).
std::string roundLine(const std::string& label, int threads, const std::string& unit,
                      const std::vector<double>& ours, const std::vector<double>& theirs) {
  std::string line = label + ", " + std::to_string(threads) + " thread" +
                     (threads > 1 ? "s" : "") + ": recurlab " + fixed(ours.back(), 1) + " " +
                     unit + "/s";
  if (!theirs.empty()) line += ", PyTorch " + fixed(theirs.back(), 1) + " " + unit + "/s";
  return line;
}

// The case's timings table and what the report says of it, under its group.
void logCase(experiments::Hdf5RunLog& log, const std::string& group, const BenchCase& c,
             const std::vector<std::vector<double>>& rows, const std::string& baseline,
             const std::string& their_error, int64_t their_parameters) {
  const std::string table = group + "/timings";
  log.createTable(table, {"threads", "side", "round", "steps", "seconds", "units"});
  log.appendRows(table, rows);
  log.setAttribute(group, "case", c.name);
  log.setAttribute(group, "title", c.title);
  log.setAttribute(group, "unit", c.unit);
  log.setAttribute(group, "baseline", baseline);
  log.setAttribute(group, "baseline_error", their_error);
  log.setAttribute(group, "shape", c.shape.dump());
  log.setAttribute(group, "parameters", c.parameters);
  log.setAttribute(group, "baseline_parameters", their_parameters);
}

// The unit's metrics: the median ratio per thread count, and at the fewest threads.
experiments::UnitResult timedResult(const std::map<int, std::vector<double>>& ratios) {
  experiments::UnitResult result;
  result.stop_reason = "timed";
  for (const auto& [threads, r] : ratios)
    result.metrics["ratio_t" + std::to_string(threads)] = median(r);
  if (!ratios.empty()) result.metrics["ratio_median"] = median(ratios.begin()->second);
  return result;
}

}  // namespace

experiments::UnitResult BenchTask::runUnit(const Unit& unit, experiments::UnitContext& ctx) {
  auto built = makeBenchCases(RECURLAB_SOURCE_DIR, {unit.label}, ctx.seed);
  BenchCase& c = built.at(0);
  auto& side = pytorch();
  const bool with_pytorch = side.available() && !c.pytorch_case.empty();
  const int previous_threads = at::get_num_threads();
  std::vector<std::vector<double>> rows;  // threads, side, round, steps, seconds, units
  std::map<int, std::vector<double>> ours_rate, theirs_rate, ratios;
  int64_t their_parameters = 0;
  std::string their_error;
  std::map<int, int> steps_of;  // per thread count, set by our first measurement
  for (int round = 0; round < options_.rounds; ++round) {
    for (const int threads : threads_) {
      auto timeOurs = [&]() {
        at::set_num_threads(threads);
        // At n threads OpenBLAS gets n too: with one, a GEMM (most of every case's time)
        // would never use the second core, whatever LibTorch's thread count.
        setOpenBlasThreads(options_.single_threaded_blas ? 1 : threads);
        if (round == 0) c.step();  // warm-up: allocator caches, lazy initialisation
        const bool fixed_steps = steps_of.count(threads) > 0;
        int steps = 0;
        double seconds = 0;
        const double start = now();
        do {
          c.step();
          ++steps;
          seconds = now() - start;
        } while (fixed_steps ? steps < steps_of[threads] : seconds < options_.min_seconds);
        steps_of[threads] = steps;
        rows.push_back({double(threads), 0.0, double(round), double(steps), seconds,
                        c.units_per_step * steps});
        ours_rate[threads].push_back(c.units_per_step * steps / seconds);
      };
      auto timeTheirs = [&]() {
        if (!with_pytorch || !their_error.empty()) return;
        const int steps = steps_of.at(threads);
        const auto reply = side.request({{"case", c.pytorch_case},
                                         {"threads", threads},
                                         {"blas_threads", options_.single_threaded_blas ? 1 : threads},
                                         {"steps", steps},
                                         {"warmup", round == 0 ? 1 : 0},
                                         {"shape", c.shape}});
        if (reply.contains("error")) {
          their_error = reply.at("error").get<std::string>();
          std::cout << "recurlab_bench: " << c.name << ": the PyTorch side failed: " << their_error
                    << std::endl;
          return;
        }
        const double s = reply.at("seconds").get<double>(), u = reply.at("units").get<double>();
        their_parameters = reply.value("parameters", int64_t{0});
        rows.push_back({double(threads), 1.0, double(round), double(steps), s, u});
        theirs_rate[threads].push_back(u / s);
      };
      // The same step count on both sides (ours sets it in the first round); the order of the
      // pair alternates between rounds, so that a drift of the machine's load favours neither.
      if (round % 2 == 1 && steps_of.count(threads)) {
        timeTheirs();
        timeOurs();
      } else {
        timeOurs();
        timeTheirs();
      }
      if (!theirs_rate[threads].empty() &&
          theirs_rate[threads].size() == ours_rate[threads].size())
        ratios[threads].push_back(ours_rate[threads].back() / theirs_rate[threads].back());
      std::cout << roundLine(unit.label + " round " + std::to_string(round + 1) + "/" +
                                 std::to_string(options_.rounds),
                             threads, c.unit, ours_rate[threads], theirs_rate[threads])
                << std::endl;
    }
  }
  at::set_num_threads(previous_threads);
  setOpenBlasThreads(1);  // as the driver left it
  logCase(ctx.log, ctx.group, c, rows, with_pytorch ? c.baseline : std::string(), their_error,
          their_parameters);

  return timedResult(ratios);
}

}  // namespace recurlab::bench
