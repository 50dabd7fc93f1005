#pragma once
// Deterministic seeds and shuffles derived from one root seed (--seed), identical on every
// platform: std::shuffle and std::uniform_*_distribution are implementation-defined, so the
// harness uses its own.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace recurlab::experiments {

// SplitMix64 finalizer: a well-mixed 64-bit function of its input.
uint64_t mixSeed(uint64_t x);

// A child seed named by `purpose` (e.g. "trial/MR/sru2/3"): independent streams per unit.
uint64_t deriveSeed(uint64_t root, const std::string& purpose);

// Uniform integer in [0, n) without modulo bias.
uint64_t uniformIndex(std::mt19937_64& rng, uint64_t n);
// Uniform double in [0, 1) from 53 random bits.
double uniformUnit(std::mt19937_64& rng);

// A permutation of 0..n-1 (Fisher-Yates with uniformIndex).
std::vector<size_t> seededPermutation(size_t n, uint64_t seed);

}  // namespace recurlab::experiments
