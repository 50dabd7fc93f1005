#include "experiments/search/search_space.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <stdexcept>

#include "experiments/search/seed_sequence.h"

namespace recurlab::experiments {
namespace {

const char* const kKinds[] = {"loguniform", "uniform", "int", "choice"};

bool isKind(const std::string& k) {
  for (const char* kind : kKinds)
    if (k == kind) return true;
  return false;
}

// Walks every value; `visit` may replace spaces. Object keys come in sorted order.
void walk(nlohmann::json& node, const std::string& path,
          const std::function<void(nlohmann::json&, const std::string&)>& visit) {
  if (isSearchSpace(node)) return visit(node, path);
  if (node.is_object())
    for (auto it = node.begin(); it != node.end(); ++it)
      walk(it.value(), path.empty() ? it.key() : path + "." + it.key(), visit);
}

}  // namespace

bool isSearchSpace(const nlohmann::json& value) {
  return value.is_object() && value.size() == 1 && isKind(value.begin().key());
}

bool hasSearchSpace(const nlohmann::json& config) {
  bool found = false;
  nlohmann::json copy = config;
  walk(copy, "", [&](nlohmann::json&, const std::string&) { found = true; });
  return found;
}

void validateSearchSpaces(const nlohmann::json& config, const std::string& where) {
  nlohmann::json copy = config;
  walk(copy, "", [&](nlohmann::json& space, const std::string& path) {
    const std::string kind = space.begin().key();
    const nlohmann::json& args = space.begin().value();
    auto fail = [&](const std::string& expected) {
      throw std::invalid_argument(where + ": key '" + path + "' = " + space.dump() +
                                  " is not a valid search space; expected " + expected);
    };
    if (kind == "choice") {
      if (!args.is_array() || args.empty()) fail("{\"choice\": [v1, v2, ...]} with at least one value");
      return;
    }
    const std::string shape = "{\"" + kind + "\": [a, b]} with a <= b" +
                              (kind == "loguniform" ? " and a > 0" : "") +
                              (kind == "int" ? ", both integers" : "");
    if (!args.is_array() || args.size() != 2) fail(shape);
    for (const auto& a : args) {
      if (kind == "int" ? !a.is_number_integer() : !a.is_number()) fail(shape);
      // Sampling works in int64_t: JSON integers above its range are refused here.
      if (a.is_number_unsigned() && a.get<uint64_t>() > uint64_t(INT64_MAX))
        fail(shape + ", at most " + std::to_string(INT64_MAX));
    }
    const double a = args[0].get<double>(), b = args[1].get<double>();
    if (!(a <= b) || (kind == "loguniform" && a <= 0)) fail(shape);
    // a + (b - a)·u would be inf or NaN.
    if (kind == "uniform" && !std::isfinite(b - a)) fail(shape + " and b - a a finite double");
  });
}

nlohmann::json sampleSearchSpaces(const nlohmann::json& config, uint64_t seed) {
  nlohmann::json sample = config;
  std::mt19937_64 rng(seed);
  walk(sample, "", [&](nlohmann::json& space, const std::string&) {
    const std::string kind = space.begin().key();
    const nlohmann::json args = space.begin().value();
    if (kind == "choice") {
      space = args[uniformIndex(rng, args.size())];
    } else if (kind == "int") {
      // The span in uint64_t: b - a in int64_t overflows for ranges wider than 2^63.
      const int64_t a = args[0].get<int64_t>(), b = args[1].get<int64_t>();
      const uint64_t span = static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
      const uint64_t offset = span == UINT64_MAX ? rng() : uniformIndex(rng, span + 1);
      space = static_cast<int64_t>(static_cast<uint64_t>(a) + offset);
    } else {
      const double a = args[0].get<double>(), b = args[1].get<double>(), u = uniformUnit(rng);
      space = kind == "uniform" ? a + (b - a) * u
                                : std::exp(std::log(a) + (std::log(b) - std::log(a)) * u);
    }
  });
  return sample;
}

std::vector<nlohmann::json> searchSpaceCorners(const nlohmann::json& config) {
  size_t choices = 1;
  {
    nlohmann::json copy = config;
    walk(copy, "", [&](nlohmann::json& s, const std::string&) {
      if (s.begin().key() == "choice") choices = std::max(choices, s.begin().value().size());
    });
  }
  std::vector<nlohmann::json> corners;
  for (size_t end = 0; end < 2; ++end)
    for (size_t c = 0; c < choices; ++c) {
      nlohmann::json corner = config;
      walk(corner, "", [&](nlohmann::json& s, const std::string&) {
        const nlohmann::json args = s.begin().value();
        // uniform and loguniform draw real numbers: their corners are reals too, so an
        // integer key given {"uniform": [64, 256]} fails the checks before any work, not
        // mid-run at its first draw ({"int": [64, 256]} is the integer space).
        const std::string kind = s.begin().key();
        if (kind == "choice")
          s = args[c % args.size()];
        else if (kind == "int")
          s = args[end];
        else
          s = args[end].get<double>();
      });
      corners.push_back(corner);
    }
  return corners;
}

}  // namespace recurlab::experiments
