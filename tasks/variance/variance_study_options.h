#pragma once
// Options of the variance-at-initialization study (Lei et al. 2018, App. A and
// Gehring et al. 2017, App. A), read from the driver's JSON config with every key checked.
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace recurlab::experiments {

struct SruVarianceOptions {
  int64_t layers = 20;
  int64_t hidden = 512;   // d; pretrained vectors use their own dimension instead
  int64_t length = 256;   // L of the synthetic sequences
  int64_t samples = 64;   // synthetic sequences per configuration
  int64_t batch = 32;     // sequences per forward pass (bounds memory)
  int64_t burn_in = 32;   // synthetic: first steps left out (c starts at 0, not stationary)
  int64_t sentences = 512;  // MR sentences per configuration
  double input_std = 0.1;    // iid/correlated inputs and the random embedding table
  std::vector<double> highway_biases{0.0, -1.0, -2.0, -3.0};
  std::vector<bool> alphas{false, true};
  // "iid", "correlated", "sentences" (MR through a random embedding table), "pretrained"
  // (MR through --embeddings; added automatically when the file is given).
  std::vector<std::string> inputs{"iid", "correlated", "sentences"};
};

struct GluVarianceOptions {
  bool enabled = true;
  int64_t layers = 20;
  int64_t channels = 256;
  int64_t width = 3;
  int64_t length = 64;   // interior steps measured (boundary steps are added and ignored)
  int64_t batch = 32;
  double input_std = 0.1;  // ConvS2S embeddings ~ N(0, 0.1)
  std::vector<double> retain{1.0, 0.8, 0.5};  // dropout retain probabilities p
  bool residual = false;  // the appendix derives the plain stack; residual is an extension
};

struct VarianceStudyOptions {
  SruVarianceOptions sru;
  GluVarianceOptions glu;
  int64_t seed = 1;
  std::string data_dir = "data";   // holds classification/rt-polarity.all
  std::string embeddings;          // pretrained vectors file, or empty

  // Reads {"sru": {...}, "glu": {...}, "seed": n, "data_dir": s, "embeddings": s}; unknown keys
  // and bad values throw std::invalid_argument naming the key.
  static VarianceStudyOptions fromJson(const nlohmann::json& config);
  nlohmann::json toJson() const;
};

// The MR file: <data_dir>/classification/rt-polarity.all, falling back to ../shared/data when
// data_dir is the default "data" and ./data lacks it. Throws naming the paths tried.
std::string findMrFile(const std::string& data_dir);

}  // namespace recurlab::experiments
