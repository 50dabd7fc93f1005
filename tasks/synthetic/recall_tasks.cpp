#include "tasks/synthetic/recall_tasks.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace recurlab::experiments {
namespace {

// A double in [0, 1) from the top 53 bits of one draw.
double uniformUnit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// `count` distinct integers of [low, high], in the order drawn (a partial Fisher-Yates shuffle).
std::vector<int64_t> distinctInts(std::mt19937_64& rng, int64_t low, int64_t high, int64_t count) {
  std::vector<int64_t> pool;
  for (int64_t v = low; v <= high; ++v) pool.push_back(v);
  for (int64_t i = 0; i < count; ++i)
    std::swap(pool[i], pool[uniformInt(rng, i, static_cast<int64_t>(pool.size()) - 1)]);
  pool.resize(count);
  return pool;
}

// `count` of the slots 0..slots-1 without replacement, slot s weighted (s + 1)^(power - 1).
std::vector<int64_t> powerLawSlots(std::mt19937_64& rng, int64_t slots, int64_t count, double power) {
  std::vector<double> weight(slots);
  for (int64_t s = 0; s < slots; ++s) weight[s] = std::pow(static_cast<double>(s + 1), power - 1);
  std::vector<int64_t> chosen;
  for (int64_t i = 0; i < count; ++i) {
    double total = 0;
    for (double w : weight) total += w;
    double u = uniformUnit(rng) * total;
    int64_t s = 0;
    while (s + 1 < slots && (u >= weight[s] || weight[s] == 0)) u -= weight[s++];
    chosen.push_back(s);
    weight[s] = 0;
  }
  return chosen;
}

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

}  // namespace

int64_t uniformInt(std::mt19937_64& rng, int64_t low, int64_t high) {
  const uint64_t span = static_cast<uint64_t>(high - low) + 1;
  if (span == 0) return static_cast<int64_t>(rng());
  const uint64_t limit = UINT64_MAX - UINT64_MAX % span;
  uint64_t draw;
  do draw = rng();
  while (draw >= limit);
  return low + static_cast<int64_t>(draw % span);
}

SyntheticSequence mqarSequence(const std::vector<int64_t>& keys, const std::vector<int64_t>& values,
                               const std::vector<int64_t>& query_slots, int64_t length) {
  const int64_t pairs = static_cast<int64_t>(keys.size());
  require(values.size() == keys.size() && query_slots.size() == keys.size(),
          "mqar: keys, values and query slots differ in number");
  SyntheticSequence s{std::vector<int64_t>(length, 0), std::vector<int64_t>(length, kNoTarget),
                      std::vector<int64_t>(length, kNoTarget)};
  for (int64_t i = 0; i < pairs; ++i) {
    s.tokens[2 * i] = keys[i];
    s.tokens[2 * i + 1] = values[i];
    const int64_t at = 2 * pairs + 2 * query_slots[i];
    require(at < length, "mqar: a query slot lies beyond the sequence");
    s.tokens[at] = keys[i];
    s.targets[at] = values[i];
    s.sources[at] = 2 * i + 1;
  }
  return s;
}

SyntheticSequence sampleMqar(std::mt19937_64& rng, int64_t vocabulary, int64_t length,
                             int64_t pairs, double power) {
  const int64_t half = vocabulary / 2;
  require(pairs >= 1 && 4 * pairs <= length, "mqar: needs 1 <= pairs and 4 * pairs <= length");
  require(pairs <= half - 1, "mqar: more pairs than keys in half the vocabulary");
  const auto keys = distinctInts(rng, 1, half - 1, pairs);
  const auto values = distinctInts(rng, half, vocabulary - 1, pairs);
  const auto slots = powerLawSlots(rng, (length - 2 * pairs) / 2, pairs, power);
  return mqarSequence(keys, values, slots, length);
}

SyntheticSequence selectiveCopySequence(const std::vector<int64_t>& data,
                                        const std::vector<int64_t>& positions, int64_t length) {
  const int64_t count = static_cast<int64_t>(data.size());
  require(positions.size() == data.size(), "selective copying: data and positions differ in number");
  SyntheticSequence s{std::vector<int64_t>(length + count, 0),
                      std::vector<int64_t>(length + count, kNoTarget),
                      std::vector<int64_t>(length + count, kNoTarget)};
  for (int64_t i = 0; i < count; ++i) {
    require(positions[i] < length && (i == 0 || positions[i] > positions[i - 1]),
            "selective copying: positions must increase and lie inside the sequence");
    s.tokens[positions[i]] = data[i];
    s.tokens[length + i] = 1;
    s.targets[length + i] = data[i];
    s.sources[length + i] = positions[i];
  }
  return s;
}

SyntheticSequence sampleSelectiveCopy(std::mt19937_64& rng, int64_t vocabulary, int64_t length,
                                      int64_t count) {
  require(vocabulary >= 3 && count >= 1 && count <= length,
          "selective copying: needs vocabulary >= 3 and 1 <= tokens <= length");
  std::vector<int64_t> data(count);
  for (auto& d : data) d = uniformInt(rng, 2, vocabulary - 1);
  auto positions = distinctInts(rng, 0, length - 1, count);
  std::sort(positions.begin(), positions.end());
  return selectiveCopySequence(data, positions, length);
}

SyntheticSequence inductionSequence(std::vector<int64_t> filler, int64_t trigger_at,
                                    int64_t answer) {
  const int64_t length = static_cast<int64_t>(filler.size()) + 1;
  require(trigger_at >= 0 && trigger_at + 2 < length, "induction: the trigger must come before the end");
  filler[trigger_at] = 0;
  filler[trigger_at + 1] = answer;
  SyntheticSequence s{std::move(filler), std::vector<int64_t>(length, kNoTarget),
                      std::vector<int64_t>(length, kNoTarget)};
  s.tokens.push_back(0);
  s.targets.back() = answer;
  s.sources.back() = trigger_at + 1;
  return s;
}

SyntheticSequence sampleInduction(std::mt19937_64& rng, int64_t vocabulary, int64_t length) {
  require(vocabulary >= 2 && length >= 3, "induction: needs vocabulary >= 2 and length >= 3");
  std::vector<int64_t> filler(length - 1);
  for (auto& t : filler) t = uniformInt(rng, 1, vocabulary - 1);
  const int64_t trigger_at = uniformInt(rng, 0, length - 3);
  return inductionSequence(std::move(filler), trigger_at, uniformInt(rng, 1, vocabulary - 1));
}

}  // namespace recurlab::experiments
