#include "experiments/search/seed_sequence.h"

#include <numeric>

namespace recurlab::experiments {

uint64_t mixSeed(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

uint64_t deriveSeed(uint64_t root, const std::string& purpose) {
  uint64_t h = 0xCBF29CE484222325ULL;  // FNV-1a of the purpose string
  for (unsigned char c : purpose) h = (h ^ c) * 0x100000001B3ULL;
  // Keep it below 2^53 so it survives a round trip through a float64 HDF5 column.
  return mixSeed(mixSeed(root) ^ h) >> 11;
}

uint64_t uniformIndex(std::mt19937_64& rng, uint64_t n) {
  if (n <= 1) return 0;
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do x = rng();
  while (x >= limit);
  return x % n;
}

double uniformUnit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

std::vector<size_t> seededPermutation(size_t n, uint64_t seed) {
  std::vector<size_t> p(n);
  std::iota(p.begin(), p.end(), size_t{0});
  std::mt19937_64 rng(seed);
  for (size_t i = n; i > 1; --i) std::swap(p[i - 1], p[uniformIndex(rng, i)]);
  return p;
}

}  // namespace recurlab::experiments
