#pragma once
// The state-tracking tasks of the synthetic suite, after Deletang et al. (2023): parity, cycle
// navigation, modular arithmetic with brackets, and majority (docs/synthetic.md). A string of
// `length` symbols is followed by one query token, whose target is the string's label; the
// label functions are separate so the tests check them on hand-computed strings.
#include <cstdint>
#include <random>
#include <vector>

#include "tasks/synthetic/synthetic_sequence.h"

namespace recurlab::experiments {

// The string, the query token after it and its label as the target there.
SyntheticSequence labelledString(std::vector<int64_t> symbols, int64_t query_token, int64_t label);

// Parity: bits 0/1 (query token 2); the label is the number of ones mod 2.
int64_t parityLabel(const std::vector<int64_t>& bits);
SyntheticSequence sampleParity(std::mt19937_64& rng, int64_t length);

// Cycle navigation on 5 positions from position 0: 0 stays, 1 moves +1, 2 moves -1 (query
// token 3); the label is the final position.
constexpr int64_t kCyclePositions = 5;
int64_t cycleLabel(const std::vector<int64_t>& moves);
SyntheticSequence sampleCycle(std::mt19937_64& rng, int64_t length);

// Modular arithmetic with brackets, modulus 5: tokens 0-4 digits, 5 '+', 6 '-', 7 '*', 8 '(',
// 9 ')' (query token 10 '='); '*' binds tighter than '+' and '-', which associate left; the
// label is the value mod 5. Expressions have odd lengths.
constexpr int64_t kModulus = 5;
namespace arithmetic_token {
constexpr int64_t kPlus = 5, kMinus = 6, kTimes = 7, kOpen = 8, kClose = 9, kEquals = 10;
}
// Throws std::invalid_argument for a malformed expression.
int64_t arithmeticLabel(const std::vector<int64_t>& expression);
// A random expression of exactly `length` tokens (odd): a digit, a bracketed expression, or
// two expressions joined by an operator, each equally likely where the length allows.
std::vector<int64_t> sampleExpression(std::mt19937_64& rng, int64_t length);
SyntheticSequence sampleArithmetic(std::mt19937_64& rng, int64_t length);

// Majority over `symbols` symbols 0..symbols-1 (query token `symbols`): the label is the most
// frequent symbol, the smallest of those tied.
int64_t majorityLabel(const std::vector<int64_t>& string, int64_t symbols);
SyntheticSequence sampleMajority(std::mt19937_64& rng, int64_t length, int64_t symbols);

}  // namespace recurlab::experiments
