#include "tasks/synthetic/synthetic_config.h"

#include <stdexcept>

#include "common/config_json.h"
#include "common/json_options.h"
#include "experiments/harness/model_map.h"
#include "models/registry.h"

namespace recurlab::experiments {
namespace {

constexpr const char* kWhere = "synthetic config";

std::vector<SyntheticTaskSpec> readTasks(const nlohmann::json& tasks) {
  if (!tasks.is_object() || tasks.empty())
    throw std::invalid_argument(std::string(kWhere) +
                                ": key 'tasks' must be a non-empty object of name -> "
                                "{\"kind\": " + joinNames(syntheticTaskKinds()) + ", ...}");
  std::vector<SyntheticTaskSpec> specs;
  for (auto it = tasks.begin(); it != tasks.end(); ++it)
    specs.push_back(SyntheticTaskSpec::fromJson(it.key(), it.value(),
                                                std::string(kWhere) + ": tasks." + it.key()));
  return specs;
}

std::vector<double> readLearningRates(const nlohmann::json& rates) {
  const std::string expected = "a non-empty list of learning rates > 0";
  if (!rates.is_array() || rates.empty())
    throw std::invalid_argument(std::string(kWhere) + ": key 'learning_rates' = " + rates.dump() +
                                " is invalid; expected " + expected);
  std::vector<double> out;
  for (const auto& r : rates) {
    if (!r.is_number() || r.get<double>() <= 0)
      throw std::invalid_argument(std::string(kWhere) + ": key 'learning_rates' holds " +
                                  r.dump() + "; expected " + expected);
    out.push_back(r.get<double>());
  }
  return out;
}

// Builds the encoder at every width and reads every unit's train keys: the registry's and
// the Trainer's checks, before any work.
void checkUnits(const SyntheticConfig& c) {
  for (const auto& m : c.models)
    for (const auto w : c.widths) {
      const std::string where = std::string(kWhere) + ": models." + m.name;
      const auto unit = c.unitTemplate(m, w, c.learning_rates.front());
      SyntheticTrainOptions::fromJson(unit.at("train"), where + ".train");
      try {
        models::makeEncoder(m.encoder, unit.at("config"), w);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(where + ".config (width " + std::to_string(w) +
                                    " as its 'hidden'): " + e.what());
      }
    }
}

}  // namespace

SyntheticTrainOptions SyntheticTrainOptions::fromJson(const nlohmann::json& train,
                                                      const std::string& where) {
  JsonOptions j(train, where);
  SyntheticTrainOptions o;
  o.optimizer = OptimizerOptions::read(j);
  o.trainer = TrainerOptions::read(j);
  o.batch_size = j.getInt("batch_size", o.batch_size, 1, 1 << 16);
  j.finish();
  return o;
}

SyntheticConfig SyntheticConfig::fromJson(const nlohmann::json& json) {
  SyntheticConfig c;
  JsonOptions j(json, kWhere);
  readRunKeys(j, "synthetic", c.seed, c.keep_model, {"best", "last", "none"});
  c.seeds = j.getInt("seeds", c.seeds, 1, 1000);
  c.widths = j.getIntList("widths", {64}, 1, 1 << 16);
  if (c.widths.empty()) throw std::invalid_argument(std::string(kWhere) + ": key 'widths' is empty");
  c.learning_rates = readLearningRates(j.getJson("learning_rates", {1e-4, 1e-3, 1e-2}));
  c.tasks = readTasks(j.getJson("tasks", nullptr));
  c.train = readObjectKeys(j, {"train"}).at("train");
  if (c.train.contains("lr"))
    throw std::invalid_argument(std::string(kWhere) +
                                ": key 'train.lr' is not used; the grid 'learning_rates' sets it");
  ModelMapFormat format;
  format.where = kWhere;
  format.registered = models::encoderNames();
  format.entry_form = "{\"encoder\": <registry name>, \"config\": {...}, \"train\": {...}}";
  for (const auto& e : readModelMap(j, format)) {
    if (e.objects.at("config").contains("hidden"))
      throw std::invalid_argument(e.where + ".config: key 'hidden' is set by 'widths'");
    c.models.push_back({e.name, e.registry_name, e.objects.at("config"), e.objects.at("train")});
  }
  j.finish();
  checkUnits(c);
  return c;
}

const SyntheticTaskSpec& SyntheticConfig::task(const std::string& name) const {
  return specNamed(tasks, name, kWhere);
}

const SyntheticModelSpec& SyntheticConfig::model(const std::string& name) const {
  return specNamed(models, name, kWhere);
}

nlohmann::json SyntheticConfig::unitTemplate(const SyntheticModelSpec& m, int64_t width,
                                             double lr) const {
  auto config = m.config;
  config["hidden"] = width;
  auto unit_train = withOverrides(train, m.train);
  unit_train["lr"] = lr;
  return {{"encoder", m.encoder}, {"config", config}, {"train", unit_train}};
}

}  // namespace recurlab::experiments
