#include "experiments/kept_model/kept_model.h"

#include <torch/torch.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#include "common/log/hdf5_run_log.h"
#include "common/sha256.h"
#include "common/runtime/kill_point.h"
#include "recurlab_git_commit.h"  // generated at build time

namespace recurlab::experiments {
namespace fs = std::filesystem;
namespace {

constexpr const char* kFormat = "recurlab-kept-model";
constexpr int64_t kFormatVersion = 1;

void writeJson(const nlohmann::json& value, const std::string& path) {
  std::ofstream out(path);
  out << value.dump(2) << "\n";
  if (!out) throw std::runtime_error(path + ": cannot be written");
}

nlohmann::json readJson(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": missing or unreadable");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": not valid JSON (" + e.what() + ")");
  }
}

}  // namespace

KeepModel keepModelNamed(const std::string& name) {
  if (name == "best") return KeepModel::Best;
  if (name == "last") return KeepModel::Last;
  if (name == "averaged") return KeepModel::Averaged;
  if (name == "none") return KeepModel::None;
  throw std::invalid_argument("keep_model '" + name + "': expected best, last, averaged or none");
}

std::string keepModelName(KeepModel keep) {
  switch (keep) {
    case KeepModel::Best: return "best";
    case KeepModel::Last: return "last";
    case KeepModel::Averaged: return "averaged";
    case KeepModel::None: return "none";
  }
  return "none";
}

void saveNamedTensors(const torch::nn::Module& module, const std::string& path) {
  torch::NoGradGuard no_grad;
  torch::serialize::OutputArchive archive;
  auto cpu = [](const torch::Tensor& t) {
    auto x = t.detach().to(torch::kCPU);
    return x.is_floating_point() ? x.to(torch::kFloat).contiguous() : x.contiguous();
  };
  for (const auto& p : module.named_parameters()) archive.write(p.key(), cpu(p.value()));
  for (const auto& b : module.named_buffers()) archive.write(b.key(), cpu(b.value()), true);
  archive.save_to(path);
}

void setKeptScore(KeptModelSpec& spec, const KeptScore& best,
                  const std::function<KeptScore()>& last) {
  const KeptScore score = spec.weights == KeepModel::Last ? last() : best;
  spec.metric = score.metric;
  spec.value = score.value;
  spec.epoch = score.epoch;
}

std::function<KeptScore()> lastEpochScore(Hdf5RunLog& log, const std::string& group,
                                          const std::string& metric, int64_t epochs) {
  return [&log, group, metric, epochs] {
    return KeptScore{metric, log.readTable(group + "/epochs").column(metric).back(), epochs};
  };
}

void keepTrainedModel(const TrainedModel& model, const std::string& dir, const std::string& unit,
                      const CheckpointStore& checkpoints) {
  if (model.weights == KeepModel::None) return;
  if (!model.module) throw std::logic_error("keepTrainedModel: no module");
  KeptModelSpec spec;
  spec.task = model.task;
  spec.model = model.model;
  spec.unit = unit;
  spec.weights = model.weights;
  setKeptScore(spec, model.best, model.last);
  spec.config = model.config;
  spec.files = model.files;
  selectKeptWeights(model.weights, checkpoints,
                    model.checkpointed ? *model.checkpointed : *model.module);
  spec.module = model.module.get();
  writeKeptModel(dir, spec);
}

void writeKeptModel(const std::string& dir, const KeptModelSpec& spec) {
  if (!spec.module) throw std::logic_error("writeKeptModel: no module");
  const fs::path final_dir(dir);
  const fs::path part = final_dir.string() + ".part-" + std::to_string(::getpid());
  fs::remove_all(part);
  fs::create_directories(part);
  nlohmann::json files = nlohmann::json::object();
  auto add = [&](const std::string& name, const std::function<void(const std::string&)>& write) {
    const std::string path = (part / name).string();
    write(path);
    files[name] = sha256OfFile(path);
  };
  add("config.json", [&](const std::string& p) { writeJson(spec.config, p); });
  add("weights.pt", [&](const std::string& p) { saveNamedTensors(*spec.module, p); });
  for (const auto& f : spec.files) add(f.name, f.write);
  const nlohmann::json manifest = {
      {"format", kFormat},
      {"format_version", kFormatVersion},
      {"task", spec.task},
      {"model", spec.model},
      {"unit", spec.unit},
      {"weights", keepModelName(spec.weights)},
      {"metric", spec.metric},
      {"value", spec.value},
      {"epoch", spec.epoch},
      {"recurlab_commit", RECURLAB_GIT_COMMIT},
      {"created", utcTimestamp()},
      {"files", files}};
  writeJson(manifest, (part / "manifest.json").string());  // last: the folder is complete
  killPoint("kept-model-written");
  // A folder cannot be renamed over a non-empty one: the old one steps aside first.
  const fs::path old = final_dir.string() + ".old-" + std::to_string(::getpid());
  fs::create_directories(final_dir.parent_path());
  if (fs::exists(final_dir)) {
    fs::remove_all(old);
    fs::rename(final_dir, old);
  }
  fs::rename(part, final_dir);
  fs::remove_all(old);
}

std::string KeptModel::path(const std::string& file) const { return (fs::path(dir) / file).string(); }

KeptModel openKeptModel(const std::string& dir, const std::string& task,
                        const std::vector<std::string>& required) {
  if (!fs::is_directory(dir))
    throw std::runtime_error(dir + ": not a folder (expected a kept model, <run>/models/<unit>)");
  KeptModel m;
  m.dir = dir;
  const std::string manifest_path = m.path("manifest.json");
  if (!fs::exists(manifest_path))
    throw std::runtime_error(manifest_path + ": missing; " + dir +
                             " is not a complete kept model (expected <run>/models/<unit>)");
  m.manifest = readJson(manifest_path);
  if (!m.manifest.is_object() || m.manifest.value("format", "") != kFormat ||
      !m.manifest.contains("files") || !m.manifest["files"].is_object())
    throw std::runtime_error(manifest_path + ": not a recurlab kept-model manifest");
  const auto version = m.manifest.value("format_version", int64_t{0});
  if (version != kFormatVersion)
    throw std::runtime_error(manifest_path + ": format version " + std::to_string(version) +
                             ", this recurlab reads version " + std::to_string(kFormatVersion));
  const std::string its_task = m.manifest.value("task", "");
  if (its_task != task)
    throw std::runtime_error(manifest_path + ": a model of task '" + its_task + "', not '" +
                             task + "' (use recurlab_" + its_task + ")");
  std::vector<std::string> needed = {"weights.pt", "config.json"};
  needed.insert(needed.end(), required.begin(), required.end());
  for (const auto& name : needed)
    if (!m.manifest["files"].contains(name))
      throw std::runtime_error(manifest_path + ": lists no " + name);
  for (const auto& [name, sum] : m.manifest["files"].items()) {
    const std::string path = m.path(name);
    if (!fs::is_regular_file(path)) throw std::runtime_error(path + ": missing (the manifest lists it)");
    if (!sum.is_string() || sha256OfFile(path) != sum.get<std::string>())
      throw std::runtime_error(path + ": sha256 differs from the manifest's (a changed or corrupt file)");
  }
  m.config = readJson(m.path("config.json"));
  if (!m.config.is_object()) throw std::runtime_error(m.path("config.json") + ": expected a JSON object");
  return m;
}

void loadKeptWeights(torch::nn::Module& module, const KeptModel& model) {
  const std::string path = model.path("weights.pt");
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
  } catch (const c10::Error& e) {
    throw std::runtime_error(path + ": not a LibTorch archive (" + e.what_without_backtrace() + ")");
  }
  torch::NoGradGuard no_grad;
  std::set<std::string> unused;
  for (const auto& k : archive.keys()) unused.insert(k);
  auto load = [&](const std::string& name, torch::Tensor& target, bool buffer) {
    torch::Tensor value;
    if (!archive.try_read(name, value, buffer))
      throw std::runtime_error(path + ": has no tensor '" + name +
                               "' (weights of another model or config)");
    if (value.sizes() != target.sizes())
      throw std::runtime_error(path + ": '" + name + "' has shape " + c10::str(value.sizes()) +
                               ", the model's is " + c10::str(target.sizes()) +
                               " (a vocabulary or config mismatch)");
    target.copy_(value.to(target.dtype()));
    unused.erase(name);
  };
  for (auto& p : module.named_parameters()) load(p.key(), p.value(), false);
  for (auto& b : module.named_buffers()) load(b.key(), b.value(), true);
  if (!unused.empty())
    throw std::runtime_error(path + ": tensor '" + *unused.begin() +
                             "' belongs to no part of the model (weights of another model)");
}

void loadCheckpointModel(torch::nn::Module& module, const std::string& checkpoint_file) {
  torch::serialize::InputArchive archive, model;
  try {
    archive.load_from(checkpoint_file);
    archive.read("model", model);
    module.load(model);
  } catch (const c10::Error& e) {
    throw std::runtime_error("checkpoint " + checkpoint_file + ": cannot read its model: " +
                             e.what_without_backtrace());
  }
}

void selectKeptWeights(KeepModel keep, const CheckpointStore& checkpoints, torch::nn::Module& trained) {
  if (keep != KeepModel::Best && keep != KeepModel::Last) return;
  const std::string name = keep == KeepModel::Best ? "best" : "last";
  if (!checkpoints.has(name))
    throw std::runtime_error("keep_model " + name + ": no checkpoint " + checkpoints.path(name));
  loadCheckpointModel(trained, checkpoints.path(name));
}

}  // namespace recurlab::experiments
