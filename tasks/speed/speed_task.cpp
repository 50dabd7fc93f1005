#include "tasks/speed/speed_task.h"

#include <torch/torch.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "experiments/harness/noun_count.h"

namespace recurlab::experiments {

namespace po = boost::program_options;

namespace {

enum Study { kMain = 0, kLengthSweep = 1, kBatchSweep = 2 };

std::vector<int64_t> parseIntList(const std::string& text, const std::string& option) {
  std::vector<int64_t> out;
  std::stringstream s(text);
  std::string item;
  while (std::getline(s, item, ',')) {
    try {
      size_t used = 0;
      const long long v = std::stoll(item, &used);
      if (used != item.size() || v <= 0) throw std::invalid_argument(item);
      out.push_back(v);
    } catch (const std::exception&) {
      throw std::invalid_argument("--" + option + ": '" + item +
                                  "' is not a positive integer (expected e.g. 16,32,64)");
    }
  }
  if (out.empty()) throw std::invalid_argument("--" + option + ": empty list");
  return out;
}

// "32x256,128x512" -> {(32, 256), (128, 512)}
std::vector<std::pair<int64_t, int64_t>> parseSizes(const std::string& text) {
  std::vector<std::pair<int64_t, int64_t>> out;
  std::stringstream s(text);
  std::string item;
  while (std::getline(s, item, ',')) {
    const auto x = item.find('x');
    if (x == std::string::npos)
      throw std::invalid_argument("--sizes: '" + item + "' is not LENGTHxHIDDEN (e.g. 128x512)");
    const auto l = parseIntList(item.substr(0, x), "sizes");
    const auto d = parseIntList(item.substr(x + 1), "sizes");
    out.emplace_back(l.at(0), d.at(0));
  }
  return out;
}

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Best-of-5 GB/s of a large tensor copy (bytes read + written): the memory floor the
// elementwise kernel is measured against.
double measureCopyBandwidth(const std::string& device) {
  const auto o = torch::TensorOptions().dtype(torch::kFloat).device(torch::Device(device));
  const int64_t n = 32 * 1024 * 1024;
  torch::Tensor a = torch::randn({n}, o), b = torch::empty({n}, o);
  double best = 1e30;
  for (int r = 0; r < 6; ++r) {
    const double t0 = seconds();
    b.copy_(a);
    if (b.is_cuda()) b[0].item<float>();
    const double t = seconds() - t0;
    if (r > 0) best = std::min(best, t);
  }
  return 2.0 * n * 4 / best / 1e9;
}

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string shapeLabel(const SpeedTask::Shape& s) {
  return "l=" + std::to_string(s.length) + " d=" + std::to_string(s.hidden) +
         " batch=" + std::to_string(s.batch);
}

// The models --models keeps (every one when empty), those of them that are registered; an
// unknown name is an error, an unregistered one a line in `skipped`.
std::vector<SpeedModelSpec> chosenModels(const std::string& models,
                                         std::vector<std::string>& skipped) {
  std::vector<SpeedModelSpec> chosen;
  std::vector<std::string> keep;
  if (!models.empty()) {
    std::stringstream s(models);
    std::string m;
    while (std::getline(s, m, ',')) keep.push_back(m);
  }
  const auto all = defaultSpeedModels();
  for (const auto& k : keep) {
    if (std::none_of(all.begin(), all.end(), [&](const SpeedModelSpec& s) { return s.encoder == k; })) {
      std::string names;
      for (const auto& spec : all)
        if (names.find("'" + spec.encoder + "'") == std::string::npos)
          names += (names.empty() ? "'" : ", '") + spec.encoder + "'";
      throw std::invalid_argument("--models: unknown model '" + k + "'; known: " + names);
    }
  }
  for (const auto& spec : all) {
    if (!keep.empty() && std::find(keep.begin(), keep.end(), spec.encoder) == keep.end()) continue;
    if (!speedModelAvailable(spec)) {
      skipped.push_back(spec.label + ": encoder '" + spec.encoder + "' is not registered");
      continue;
    }
    chosen.push_back(spec);
  }
  return chosen;
}

}  // namespace

void addSpeedOptions(po::options_description& cli, SpeedOptions& o) {
  cli.add_options()
      ("device", po::value<std::string>(&o.device)->default_value("cpu"), "cpu or cuda[:i]")
      ("batch", po::value<int64_t>(&o.batch)->default_value(32), "batch size of the main sizes")
      ("sizes", po::value<std::string>(&o.sizes),
       "main sizes LENGTHxHIDDEN,... (default 32x256,128x512; on cuda also larger ones, "
       "batch 32 and 128)")
      ("lengths", po::value<std::string>(&o.lengths)->default_value("16,32,64,128,256"),
       "length sweep at hidden = --sweep-hidden, batch = --batch")
      ("batches", po::value<std::string>(&o.batches)->default_value("8,16,32,64"),
       "batch sweep at length 128, hidden = --sweep-hidden")
      ("sweep-hidden", po::value<int64_t>(&o.sweep_hidden)->default_value(512),
       "hidden size of the sweeps")
      ("no-sweeps", "time the main sizes only")
      ("models", po::value<std::string>(&o.models),
       "comma-separated encoder names to keep (default: every available model)")
      ("repeats", po::value<int>(&o.repeats)->default_value(9), "timed repetitions per main size")
      ("sweep-repeats", po::value<int>(&o.sweep_repeats)->default_value(5),
       "timed repetitions per sweep point")
      ("warmup", po::value<int>(&o.warmup)->default_value(2), "untimed repetitions first")
      ("precision", po::value<std::string>(&o.precision)->default_value("fp32"),
       "fp32, tf32 (float32 with TF32 tensor-core matmuls; CUDA), bf16 or fp16 (autocast over "
       "float32 weights, as the tasks' --precision; fp16 CUDA only)")
      ("quick", "tiny sizes for a smoke run");
}

SpeedTask::SpeedTask(SpeedOptions options, const ExperimentCommandLine& cl)
    : options_(std::move(options)) {
  auto& o = options_;
  if (cl.has("config") || cl.has("set"))
    throw std::invalid_argument(
        "recurlab_speed takes its settings as options (see --help), not --config or --set");
  if (cl.seed) seed_ = *cl.seed;
  const auto has = [&](const char* name) { return cl.has(name); };
  if (o.repeats < 1 || o.sweep_repeats < 1 || o.warmup < 0)
    throw std::invalid_argument("--repeats and --sweep-repeats must be >= 1, --warmup >= 0");
  if (o.batch < 1) throw std::invalid_argument("--batch must be >= 1");
  if (o.device != "cpu" && o.device.rfind("cuda", 0) != 0)
    throw std::invalid_argument("--device: expected cpu or cuda[:i], got '" + o.device + "'");
  if (o.device != "cpu" && !torch::cuda::is_available())
    throw std::invalid_argument("--device " + o.device +
                                ": this LibTorch has no CUDA or no GPU is visible (build "
                                "against a CUDA LibTorch: scripts/gpu-check.sh)");
  const bool cuda = o.device != "cpu";
  precision_ = parseSpeedPrecision(o.precision, o.device);
  const bool quick = has("quick");
  std::vector<std::pair<int64_t, int64_t>> sizes;
  if (!o.sizes.empty())
    sizes = parseSizes(o.sizes);
  else if (quick)
    sizes = {{16, 64}};
  else if (cuda)
    sizes = {{32, 256}, {128, 512}, {128, 1024}, {128, 2048}, {512, 512}, {1024, 512}};
  else
    sizes = {{32, 256}, {128, 512}};
  std::vector<int64_t> main_batches{o.batch};
  if (cuda && !has("batch") && o.sizes.empty()) main_batches = {32, 128};
  for (int64_t b : main_batches)
    for (auto [l, d] : sizes) shapes_.push_back({kMain, l, d, b});
  if (!has("no-sweeps") && !quick) {
    for (int64_t l : parseIntList(o.lengths, "lengths"))
      shapes_.push_back({kLengthSweep, l, o.sweep_hidden, o.batch});
    for (int64_t b : parseIntList(o.batches, "batches"))
      shapes_.push_back({kBatchSweep, 128, o.sweep_hidden, b});
  }
  if (quick) {
    o.repeats = std::min(o.repeats, 3);
    o.warmup = std::min(o.warmup, 1);
  }
  specs_ = chosenModels(o.models, skipped_);
  if (specs_.empty()) throw std::invalid_argument("--models: nothing left to time");

  config_ = {{"device", o.device},       {"threads", at::get_num_threads()},
             {"repeats", o.repeats},     {"sweep_repeats", o.sweep_repeats},
             {"warmup", o.warmup},       {"seed", seed_},
             {"dtype", "float32"}};
  // Only when not fp32: a run folder written before the option existed resumes as it was.
  if (precision_ != SpeedPrecision::Fp32) config_["precision"] = o.precision;
  nlohmann::json model_list = nlohmann::json::array();
  for (const auto& s : specs_)
    model_list.push_back({{"label", s.label}, {"encoder", s.encoder},
                          {"options", nlohmann::json::parse(s.config_json)}});
  config_["models"] = model_list;
  nlohmann::json shape_list = nlohmann::json::array();
  for (const auto& s : shapes_)
    shape_list.push_back({{"study", s.study}, {"length", s.length}, {"hidden", s.hidden},
                          {"batch", s.batch}});
  config_["shapes"] = shape_list;
}

std::string SpeedTask::describe() const {
  return nounCount(specs_.size(), "model") + ", " + nounCount(shapes_.size(), "shape") +
         " on " + options_.device + ", " + options_.precision;
}

void SpeedTask::describeRun(Hdf5RunLog& log) const {
  const double copy_gbs = measureCopyBandwidth(options_.device);
  std::cout << "recurlab_speed: copy bandwidth " << fixed(copy_gbs, 1) << " GB/s" << std::endl;
  log.createGroup("/speed");
  log.setAttribute("/speed", "copy_bandwidth_gbs", copy_gbs);
  log.setAttribute("/speed", "models", config_.at("models").dump());
  std::string skipped_text;
  for (const auto& s : skipped_) {
    skipped_text += s + "\n";
    std::cout << "recurlab_speed: skipped " << s << std::endl;
  }
  log.setAttribute("/speed", "skipped", skipped_text);
}

std::vector<Unit> SpeedTask::units() const {
  std::vector<Unit> units;
  for (size_t i = 0; i < shapes_.size(); ++i) {
    const std::string group = "/speed/shapes/" + std::to_string(i);
    units.push_back({Unit::Kind::Final, group, shapeLabel(shapes_[i]), group, 0,
                     "speed/" + std::to_string(i)});
  }
  return units;
}

nlohmann::json SpeedTask::unitTemplate(const Unit& unit) const {
  return config_.at("shapes").at(std::stoul(unit.group.substr(unit.group.rfind('/') + 1)));
}

UnitResult SpeedTask::runUnit(const Unit& unit, UnitContext& ctx) {
  const Shape& shape = shapes_.at(std::stoul(unit.group.substr(unit.group.rfind('/') + 1)));
  std::vector<std::unique_ptr<SpeedStep>> steps;
  for (size_t m = 0; m < specs_.size(); ++m) {
    try {
      steps.push_back(makeSpeedStep(specs_[m], shape.length, shape.hidden, shape.batch,
                                    options_.device, static_cast<uint64_t>(seed_) + m,
                                    precision_));
    } catch (const std::exception& e) {
      steps.push_back(nullptr);
      std::cout << "recurlab_speed: " << specs_[m].label << " cannot run at this size: "
                << e.what() << std::endl;
    }
  }
  const int reps = shape.study == kMain ? options_.repeats : options_.sweep_repeats;
  std::vector<std::vector<double>> times(specs_.size());
  std::vector<std::vector<double>> rows;
  for (int r = -options_.warmup; r < reps; ++r) {
    // Round-robin with a rotating start, so slow drifts of a shared machine hit every
    // model alike.
    for (size_t k = 0; k < specs_.size(); ++k) {
      const size_t m = (k + static_cast<size_t>(r + options_.warmup)) % specs_.size();
      if (!steps[m]) continue;
      const double t0 = seconds();
      steps[m]->run();
      const double t = seconds() - t0;
      if (r < 0) continue;
      times[m].push_back(t);
      rows.push_back({double(shape.study), double(shape.length), double(shape.hidden),
                      double(shape.batch), double(m), double(r), t, steps[m]->kernelBytes()});
    }
  }
  const std::string table = ctx.group + "/timings";
  ctx.log.createTable(table, {"study", "length", "hidden", "batch", "model", "repeat", "seconds",
                              "kernel_bytes"});
  ctx.log.appendRows(table, rows);
  UnitResult result;
  result.stop_reason = "timed";
  std::string line;
  for (size_t m = 0; m < specs_.size(); ++m) {
    if (times[m].empty()) continue;
    auto v = times[m];
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    const double median_ms = v[v.size() / 2] * 1e3;
    line += "  " + specs_[m].label + " " + fixed(median_ms, 2) + " ms";
    if (specs_[m].encoder == "sru" && !result.metrics.count("sru_median_ms"))
      result.metrics["sru_median_ms"] = median_ms;
  }
  std::cout << unit.label << ":" << line << std::endl;
  return result;
}

}  // namespace recurlab::experiments
