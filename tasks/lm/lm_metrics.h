#pragma once
// The two scores of a language model from its mean cross-entropy in nats per predicted
// symbol: bits per character (or byte) = nats / ln 2, perplexity = e^nats.
#include <cmath>

namespace recurlab::experiments {

inline double bitsPerSymbol(double mean_nats) { return mean_nats / std::log(2.0); }
inline double perplexity(double mean_nats) { return std::exp(mean_nats); }

}  // namespace recurlab::experiments
