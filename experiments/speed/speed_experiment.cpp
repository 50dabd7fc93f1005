#include "experiments/speed/speed_experiment.h"

#include <torch/torch.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "experiments/config/experiment_command_line.h"
#include "experiments/harness/run_folder.h"
#include "experiments/runtime/machine_info.h"
#include "experiments/runtime/thread_count.h"
#include "experiments/speed/speed_models.h"

namespace recurlab::experiments {

namespace po = boost::program_options;

namespace {

// Studies: the paper's sizes, and sweeps that show how cost grows.
enum Study { kMain = 0, kLengthSweep = 1, kBatchSweep = 2 };

struct Shape {
  int study;
  int64_t length, hidden, batch;
};

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

}  // namespace

int runSpeedExperiment(int argc, char** argv) {
  std::string device = "cpu", sizes_text, lengths_text, batches_text, models_text;
  int repeats = 9, sweep_repeats = 5, warmup = 2;
  int64_t batch = 32, sweep_hidden = 512;
  CommandLineSpec spec;
  spec.experiment = "speed";
  spec.description =
      "recurlab_speed: forward+backward time per layer, every model side by side in one run "
      "(round-robin, warm-up excluded, median and spread over repetitions)";
  spec.extra = [&](po::options_description& cli) {
    cli.add_options()
        ("device", po::value<std::string>(&device)->default_value("cpu"), "cpu or cuda[:i]")
        ("batch", po::value<int64_t>(&batch)->default_value(32), "batch size of the main sizes")
        ("sizes", po::value<std::string>(&sizes_text),
         "main sizes LENGTHxHIDDEN,... (default 32x256,128x512; on cuda also larger ones, "
         "batch 32 and 128)")
        ("lengths", po::value<std::string>(&lengths_text)->default_value("16,32,64,128,256"),
         "length sweep at hidden = --sweep-hidden, batch = --batch")
        ("batches", po::value<std::string>(&batches_text)->default_value("8,16,32,64"),
         "batch sweep at length 128, hidden = --sweep-hidden")
        ("sweep-hidden", po::value<int64_t>(&sweep_hidden)->default_value(512), "hidden size of the sweeps")
        ("no-sweeps", "time the main sizes only")
        ("models", po::value<std::string>(&models_text),
         "comma-separated encoder names to keep (default: every available model)")
        ("repeats", po::value<int>(&repeats)->default_value(9), "timed repetitions per main size")
        ("sweep-repeats", po::value<int>(&sweep_repeats)->default_value(5), "timed repetitions per sweep point")
        ("warmup", po::value<int>(&warmup)->default_value(2), "untimed repetitions first")
        ("quick", "tiny sizes for a smoke run");
  };
  ExperimentCommandLine cl;
  std::vector<Shape> shapes;
  std::vector<SpeedModelSpec> specs;
  std::vector<std::string> skipped;
  int64_t seed = 1;
  try {
    cl = parseExperimentCommandLine(argc, argv, spec);
    if (cl.help) {
      std::cout << cl.help_text << "\n";
      return 0;
    }
    if (cl.has("config") || cl.has("set") || cl.has("shard") || cl.has("embeddings") ||
        cl.has("jobs") || cl.has("nproc-per-node"))
      throw std::invalid_argument(
          "recurlab_speed takes its settings as options (see --help), not --config, --set, "
          "--shard, --embeddings, --jobs or --nproc-per-node (timings are taken side by side in one process)");
    if (cl.seed) seed = *cl.seed;
    const auto has = [&](const char* name) { return cl.has(name); };
    if (repeats < 1 || sweep_repeats < 1 || warmup < 0)
      throw std::invalid_argument("--repeats and --sweep-repeats must be >= 1, --warmup >= 0");
    if (batch < 1) throw std::invalid_argument("--batch must be >= 1");
    if (device != "cpu" && device.rfind("cuda", 0) != 0)
      throw std::invalid_argument("--device: expected cpu or cuda[:i], got '" + device + "'");
    if (device != "cpu" && !torch::cuda::is_available())
      throw std::invalid_argument("--device " + device +
                                  ": this LibTorch has no CUDA or no GPU is visible (build "
                                  "against a CUDA LibTorch: scripts/gpu-check.sh)");
    const bool cuda = device != "cpu";
    const bool quick = has("quick");
    std::vector<std::pair<int64_t, int64_t>> sizes;
    if (!sizes_text.empty())
      sizes = parseSizes(sizes_text);
    else if (quick)
      sizes = {{16, 64}};
    else if (cuda)
      sizes = {{32, 256}, {128, 512}, {128, 1024}, {128, 2048}, {512, 512}, {1024, 512}};
    else
      sizes = {{32, 256}, {128, 512}};
    std::vector<int64_t> main_batches{batch};
    if (cuda && !has("batch") && sizes_text.empty()) main_batches = {32, 128};
    for (int64_t b : main_batches)
      for (auto [l, d] : sizes) shapes.push_back({kMain, l, d, b});
    if (!has("no-sweeps") && !quick) {
      for (int64_t l : parseIntList(lengths_text, "lengths"))
        shapes.push_back({kLengthSweep, l, sweep_hidden, batch});
      for (int64_t b : parseIntList(batches_text, "batches"))
        shapes.push_back({kBatchSweep, 128, sweep_hidden, b});
    }
    if (quick) {
      repeats = std::min(repeats, 3);
      warmup = std::min(warmup, 1);
    }
    std::vector<std::string> keep;
    if (!models_text.empty()) {
      std::stringstream s(models_text);
      std::string m;
      while (std::getline(s, m, ',')) keep.push_back(m);
    }
    for (const auto& spec : defaultSpeedModels()) {
      if (!keep.empty() && std::find(keep.begin(), keep.end(), spec.encoder) == keep.end())
        continue;
      if (!speedModelAvailable(spec)) {
        skipped.push_back(spec.label + ": encoder '" + spec.encoder + "' is not registered");
        continue;
      }
      specs.push_back(spec);
    }
    for (const auto& k : keep) {
      bool known = false;
      for (const auto& spec : defaultSpeedModels()) known = known || spec.encoder == k;
      if (!known) {
        std::string names;
        for (const auto& spec : defaultSpeedModels())
          if (names.find("'" + spec.encoder + "'") == std::string::npos)
            names += (names.empty() ? "'" : ", '") + spec.encoder + "'";
        throw std::invalid_argument("--models: unknown model '" + k + "'; known: " + names);
      }
    }
    if (specs.empty()) throw std::invalid_argument("--models: nothing left to time");
  } catch (const std::exception& e) {
    std::cerr << "recurlab_speed: " << e.what() << "\n";
    return 2;
  }


  const int used_threads = applyThreadCount(cl.threads);
  nlohmann::json config = {{"device", device},         {"threads", used_threads},
                           {"repeats", repeats},       {"sweep_repeats", sweep_repeats},
                           {"warmup", warmup},         {"seed", seed},
                           {"dtype", "float32"}};
  nlohmann::json model_list = nlohmann::json::array();
  for (const auto& s : specs)
    model_list.push_back({{"label", s.label}, {"encoder", s.encoder},
                          {"options", nlohmann::json::parse(s.config_json)}});
  config["models"] = model_list;
  nlohmann::json shape_list = nlohmann::json::array();
  for (const auto& s : shapes)
    shape_list.push_back({{"study", s.study}, {"length", s.length}, {"hidden", s.hidden},
                          {"batch", s.batch}});
  config["shapes"] = shape_list;

  try {
    std::cout << "recurlab_speed: " << used_threads << " threads on " << device << std::endl;
    const MachineInfo machine = collectMachineInfo(device);
    // One unit: /speed, finished once its status is written. A resumed run with the same
    // config redoes an unfinished one from scratch and never appends to a finished one.
    RunFolder run(cl.run_folder, cl.shard, cl.command_line, config, seed, machine,
                  [](const Hdf5RunLog& log) {
                    return log.exists("/speed") && !log.attribute("/speed", "status")
                               ? std::vector<std::string>{"/speed"}
                               : std::vector<std::string>{};
                  });
    auto& log = run.log();
    if (log.exists("/speed")) {
      std::cout << "recurlab_speed: " << run.path() << " already holds this run's timings\n";
      run.finish();
      return run.runAnalysis() == 0 ? 0 : 1;
    }
    const double copy_gbs = measureCopyBandwidth(device);
    std::cout << "recurlab_speed: BLAS core " << machine.blas_core << ", GEMM "
              << fixed(machine.gemm_gflops, 1) << " GFLOP/s, copy " << fixed(copy_gbs, 1)
              << " GB/s" << std::endl;
    log.createGroup("/speed");
    log.setAttribute("/speed", "copy_bandwidth_gbs", copy_gbs);
    log.setAttribute("/speed", "models", model_list.dump());
    std::string skipped_text;
    for (const auto& s : skipped) skipped_text += s + "\n";
    log.setAttribute("/speed", "skipped", skipped_text);
    log.createTable("/speed/timings", {"study", "length", "hidden", "batch", "model", "repeat",
                                       "seconds", "kernel_bytes"});
    for (const auto& s : skipped) std::cout << "recurlab_speed: skipped " << s << std::endl;

    for (size_t si = 0; si < shapes.size(); ++si) {
      const Shape& shape = shapes[si];
      std::vector<std::unique_ptr<SpeedStep>> steps;
      for (size_t m = 0; m < specs.size(); ++m) {
        try {
          steps.push_back(makeSpeedStep(specs[m], shape.length, shape.hidden, shape.batch,
                                        device, static_cast<uint64_t>(seed) + m));
        } catch (const std::exception& e) {
          steps.push_back(nullptr);
          std::cout << "recurlab_speed: " << specs[m].label << " cannot run at this size: "
                    << e.what() << std::endl;
        }
      }
      const int reps = shape.study == kMain ? repeats : sweep_repeats;
      std::vector<std::vector<double>> times(specs.size());
      std::vector<std::vector<double>> rows;
      for (int r = -warmup; r < reps; ++r) {
        // Round-robin with a rotating start, so slow drifts of a shared machine hit every
        // model alike.
        for (size_t k = 0; k < specs.size(); ++k) {
          const size_t m = (k + static_cast<size_t>(r + warmup)) % specs.size();
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
      log.appendRows("/speed/timings", rows);
      std::cout << "[" << si + 1 << "/" << shapes.size() << "] l=" << shape.length
                << " d=" << shape.hidden << " batch=" << shape.batch << ":";
      for (size_t m = 0; m < specs.size(); ++m) {
        if (times[m].empty()) continue;
        auto v = times[m];
        std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
        std::cout << "  " << specs[m].label << " " << fixed(v[v.size() / 2] * 1e3, 2) << " ms";
      }
      std::cout << std::endl;
    }
    log.setAttribute("/speed", "status", std::string("finished"));
    run.finish();
    return run.runAnalysis() == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "recurlab_speed: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace recurlab::experiments
