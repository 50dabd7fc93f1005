#include "tasks/synthetic/state_tracking_tasks.h"

#include <stdexcept>
#include <string>

#include "tasks/synthetic/recall_tasks.h"

namespace recurlab::experiments {
namespace {

std::vector<int64_t> uniformString(std::mt19937_64& rng, int64_t length, int64_t symbols) {
  std::vector<int64_t> s(length);
  for (auto& x : s) x = uniformInt(rng, 0, symbols - 1);
  return s;
}

int64_t mod(int64_t x) { return ((x % kModulus) + kModulus) % kModulus; }

// A recursive-descent reader of the expression grammar, values mod 5.
class ExpressionReader {
 public:
  explicit ExpressionReader(const std::vector<int64_t>& tokens) : tokens_(tokens) {}
  int64_t whole() {
    const int64_t value = sum();
    if (at_ != tokens_.size()) fail();
    return value;
  }

 private:
  int64_t sum() {
    int64_t value = product();
    while (peek() == arithmetic_token::kPlus || peek() == arithmetic_token::kMinus) {
      const bool plus = tokens_[at_++] == arithmetic_token::kPlus;
      const int64_t right = product();
      value = mod(plus ? value + right : value - right);
    }
    return value;
  }
  int64_t product() {
    int64_t value = factor();
    while (peek() == arithmetic_token::kTimes) {
      ++at_;
      value = mod(value * factor());
    }
    return value;
  }
  int64_t factor() {
    const int64_t token = peek();
    if (token >= 0 && token < kModulus) return tokens_[at_++];
    if (token != arithmetic_token::kOpen) fail();
    ++at_;
    const int64_t value = sum();
    if (peek() != arithmetic_token::kClose) fail();
    ++at_;
    return value;
  }
  int64_t peek() const { return at_ < tokens_.size() ? tokens_[at_] : -1; }
  [[noreturn]] void fail() const {
    throw std::invalid_argument("modular arithmetic: malformed expression at token " +
                                std::to_string(at_));
  }

  const std::vector<int64_t>& tokens_;
  size_t at_ = 0;
};

void appendExpression(std::mt19937_64& rng, int64_t length, std::vector<int64_t>& out) {
  if (length == 1) {
    out.push_back(uniformInt(rng, 0, kModulus - 1));
    return;
  }
  // Choice 0: brackets; choices 1..(length-1)/2: a left operand of length 2 * choice - 1.
  const int64_t choice = uniformInt(rng, 0, (length - 1) / 2);
  if (choice == 0) {
    out.push_back(arithmetic_token::kOpen);
    appendExpression(rng, length - 2, out);
    out.push_back(arithmetic_token::kClose);
    return;
  }
  const int64_t left = 2 * choice - 1;
  appendExpression(rng, left, out);
  out.push_back(arithmetic_token::kPlus + uniformInt(rng, 0, 2));
  appendExpression(rng, length - 1 - left, out);
}

}  // namespace

SyntheticSequence labelledString(std::vector<int64_t> symbols, int64_t query_token, int64_t label) {
  SyntheticSequence s{std::move(symbols), {}, {}};
  s.tokens.push_back(query_token);
  s.targets.assign(s.tokens.size(), kNoTarget);
  s.targets.back() = label;
  return s;
}

int64_t parityLabel(const std::vector<int64_t>& bits) {
  int64_t ones = 0;
  for (auto b : bits) ones += b;
  return ones % 2;
}

SyntheticSequence sampleParity(std::mt19937_64& rng, int64_t length) {
  auto bits = uniformString(rng, length, 2);
  const int64_t label = parityLabel(bits);
  return labelledString(std::move(bits), 2, label);
}

int64_t cycleLabel(const std::vector<int64_t>& moves) {
  int64_t position = 0;
  for (auto m : moves) position = (position + (m == 1 ? 1 : m == 2 ? kCyclePositions - 1 : 0)) % kCyclePositions;
  return position;
}

SyntheticSequence sampleCycle(std::mt19937_64& rng, int64_t length) {
  auto moves = uniformString(rng, length, 3);
  const int64_t label = cycleLabel(moves);
  return labelledString(std::move(moves), 3, label);
}

int64_t arithmeticLabel(const std::vector<int64_t>& expression) {
  return ExpressionReader(expression).whole();
}

std::vector<int64_t> sampleExpression(std::mt19937_64& rng, int64_t length) {
  if (length < 1 || length % 2 == 0)
    throw std::invalid_argument("modular arithmetic: expressions have odd lengths, not " +
                                std::to_string(length));
  std::vector<int64_t> out;
  appendExpression(rng, length, out);
  return out;
}

SyntheticSequence sampleArithmetic(std::mt19937_64& rng, int64_t length) {
  auto expression = sampleExpression(rng, length);
  const int64_t label = arithmeticLabel(expression);
  return labelledString(std::move(expression), arithmetic_token::kEquals, label);
}

int64_t majorityLabel(const std::vector<int64_t>& string, int64_t symbols) {
  std::vector<int64_t> count(symbols, 0);
  for (auto x : string) ++count.at(x);
  int64_t best = 0;
  for (int64_t s = 1; s < symbols; ++s)
    if (count[s] > count[best]) best = s;
  return best;
}

SyntheticSequence sampleMajority(std::mt19937_64& rng, int64_t length, int64_t symbols) {
  auto string = uniformString(rng, length, symbols);
  const int64_t label = majorityLabel(string, symbols);
  return labelledString(std::move(string), symbols, label);
}

}  // namespace recurlab::experiments
