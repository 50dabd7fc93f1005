#include "tasks/variance/variance_study_options.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/json_options.h"

namespace recurlab::experiments {

namespace {

// JsonOptions has no list-of-doubles reader: take the key out and check it here.
std::vector<double> takeDoubleList(nlohmann::json& object, const std::string& key,
                                   const std::string& where, std::vector<double> fallback,
                                   double min, double max) {
  if (!object.is_object() || !object.contains(key)) return fallback;
  const nlohmann::json v = object[key];
  object.erase(key);
  const std::string expected = "a non-empty list of numbers in [" + std::to_string(min) + ", " +
                               std::to_string(max) + "]";
  if (!v.is_array() || v.empty())
    throw std::invalid_argument(where + ": key '" + key + "' = " + v.dump() + " is invalid; expected " +
                                expected);
  std::vector<double> out;
  for (const auto& e : v) {
    if (!e.is_number() || e.get<double>() < min || e.get<double>() > max)
      throw std::invalid_argument(where + ": key '" + key + "' = " + v.dump() +
                                  " is invalid; expected " + expected);
    out.push_back(e.get<double>());
  }
  return out;
}

std::vector<std::string> takeStringList(nlohmann::json& object, const std::string& key,
                                        const std::string& where,
                                        std::vector<std::string> fallback,
                                        const std::vector<std::string>& accepted) {
  if (!object.is_object() || !object.contains(key)) return fallback;
  const nlohmann::json v = object[key];
  object.erase(key);
  std::string names;
  for (const auto& a : accepted) names += (names.empty() ? "" : ", ") + a;
  const std::string expected = "a non-empty list of names from {" + names + "}";
  if (!v.is_array() || v.empty())
    throw std::invalid_argument(where + ": key '" + key + "' = " + v.dump() +
                                " is invalid; expected " + expected);
  std::vector<std::string> out;
  for (const auto& e : v) {
    if (!e.is_string() ||
        std::find(accepted.begin(), accepted.end(), e.get<std::string>()) == accepted.end())
      throw std::invalid_argument(where + ": key '" + key + "' = " + v.dump() +
                                  " is invalid; expected " + expected);
    out.push_back(e.get<std::string>());
  }
  return out;
}

}  // namespace

VarianceStudyOptions VarianceStudyOptions::fromJson(const nlohmann::json& config) {
  VarianceStudyOptions o;
  if (!config.is_null() && !config.is_object())
    throw std::invalid_argument("variance config: expected a JSON object, got " + config.dump());
  nlohmann::json rest = config.is_null() ? nlohmann::json::object() : config;
  nlohmann::json sru = rest.contains("sru") ? rest["sru"] : nlohmann::json::object();
  nlohmann::json glu = rest.contains("glu") ? rest["glu"] : nlohmann::json::object();
  rest.erase("sru");
  rest.erase("glu");
  {
    JsonOptions top(rest, "variance config");
    o.seed = top.getInt("seed", o.seed, 0, (int64_t{1} << 62));
    o.data_dir = top.getString("data_dir", o.data_dir);
    o.embeddings = top.getString("embeddings", o.embeddings);
    top.finish();
  }
  {
    const std::string where = "variance config 'sru'";
    o.sru.highway_biases =
        takeDoubleList(sru, "highway_biases", where, o.sru.highway_biases, -10.0, 10.0);
    std::vector<std::string> accepted{"iid", "correlated", "sentences", "pretrained"};
    o.sru.inputs = takeStringList(sru, "inputs", where, o.sru.inputs, accepted);
    std::vector<double> alphas(o.sru.alphas.begin(), o.sru.alphas.end());
    if (sru.is_object() && sru.contains("alpha")) {
      const auto v = sru["alpha"];
      sru.erase("alpha");
      if (!v.is_array() || v.empty())
        throw std::invalid_argument(where + ": key 'alpha' = " + v.dump() +
                                    " is invalid; expected a non-empty list of booleans");
      o.sru.alphas.clear();
      for (const auto& e : v) {
        if (!e.is_boolean())
          throw std::invalid_argument(where + ": key 'alpha' = " + v.dump() +
                                      " is invalid; expected a non-empty list of booleans");
        o.sru.alphas.push_back(e.get<bool>());
      }
    }
    JsonOptions s(sru, where);
    o.sru.layers = s.getInt("layers", o.sru.layers, 1, 1000);
    o.sru.hidden = s.getInt("hidden", o.sru.hidden, 1, 1 << 16);
    o.sru.length = s.getInt("length", o.sru.length, 1, 1 << 20);
    o.sru.samples = s.getInt("samples", o.sru.samples, 2, 1 << 24);
    o.sru.batch = s.getInt("batch", o.sru.batch, 1, 1 << 20);
    o.sru.burn_in = s.getInt("burn_in", o.sru.burn_in, 0, 1 << 20);
    o.sru.sentences = s.getInt("sentences", o.sru.sentences, 2, 1 << 24);
    o.sru.input_std = s.getDouble("input_std", o.sru.input_std, 1e-6, 100.0);
    s.finish();
    if (o.sru.burn_in >= o.sru.length)
      throw std::invalid_argument(where + ": key 'burn_in' = " + std::to_string(o.sru.burn_in) +
                                  " must be smaller than 'length' = " +
                                  std::to_string(o.sru.length));
  }
  {
    const std::string where = "variance config 'glu'";
    o.glu.retain = takeDoubleList(glu, "retain", where, o.glu.retain, 0.05, 1.0);
    JsonOptions g(glu, where);
    o.glu.enabled = g.getBool("enabled", o.glu.enabled);
    o.glu.layers = g.getInt("layers", o.glu.layers, 1, 1000);
    o.glu.channels = g.getInt("channels", o.glu.channels, 1, 1 << 16);
    o.glu.width = g.getInt("width", o.glu.width, 1, 64);
    o.glu.length = g.getInt("length", o.glu.length, 1, 1 << 20);
    o.glu.batch = g.getInt("batch", o.glu.batch, 2, 1 << 20);
    o.glu.input_std = g.getDouble("input_std", o.glu.input_std, 1e-6, 100.0);
    o.glu.residual = g.getBool("residual", o.glu.residual);
    g.finish();
  }
  return o;
}

nlohmann::json VarianceStudyOptions::toJson() const {
  nlohmann::json j;
  j["seed"] = seed;
  j["data_dir"] = data_dir;
  j["embeddings"] = embeddings;
  j["sru"] = {{"layers", sru.layers},
              {"hidden", sru.hidden},
              {"length", sru.length},
              {"samples", sru.samples},
              {"batch", sru.batch},
              {"burn_in", sru.burn_in},
              {"sentences", sru.sentences},
              {"input_std", sru.input_std},
              {"highway_biases", sru.highway_biases},
              {"alpha", std::vector<bool>(sru.alphas.begin(), sru.alphas.end())},
              {"inputs", sru.inputs}};
  j["glu"] = {{"enabled", glu.enabled},   {"layers", glu.layers}, {"channels", glu.channels},
              {"width", glu.width},       {"length", glu.length}, {"batch", glu.batch},
              {"input_std", glu.input_std}, {"retain", glu.retain},
              {"residual", glu.residual}};
  return j;
}

std::string findMrFile(const std::string& data_dir) {
  namespace fs = std::filesystem;
  const std::string rel = "classification/rt-polarity.all";
  std::vector<fs::path> tried{fs::path(data_dir) / rel};
  if (data_dir == "data") {
    tried.push_back(fs::path("../shared/data") / rel);
#ifdef RECURLAB_SOURCE_DIR
    tried.push_back(fs::path(RECURLAB_SOURCE_DIR) / "../shared/data" / rel);
#endif
  }
  for (const auto& p : tried)
    if (fs::exists(p)) return p.string();
  std::string list;
  for (const auto& p : tried) list += (list.empty() ? "" : ", ") + p.string();
  throw std::runtime_error("MR data not found (tried " + list +
                           "); run scripts/get-data.sh or pass --data-dir");
}

}  // namespace recurlab::experiments
