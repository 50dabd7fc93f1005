#pragma once
// Truncated-BPTT batching of one symbol sequence (the SRU/RRNN language-model scripts'
// create_batches, Lei et al. 2018 App. B.4): with N symbols and B streams, R = (N - 1) div B
// rows; stream j reads inputs x[j·R, (j+1)·R) and predicts the next symbol of each, so every
// one of the first R·B + 1 symbols after the first is a target exactly once per pass and the
// last (N - 1) mod B symbols are never predicted. Segment k holds rows [k·L, min((k+1)·L, R))
// of all streams: (L, B) time-major inputs and targets. A state carried from segment k to k+1
// continues each stream exactly where it stopped.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

namespace recurlab::experiments {

struct BpttSegment {
  at::Tensor inputs, targets;  // (L', B) int64, L' <= segment length
};

class BpttStreams {
 public:
  // Throws std::invalid_argument naming `where` when the sequence is shorter than one
  // segment per stream (N - 1 < streams · segment_length).
  BpttStreams(const std::vector<int64_t>& symbols, int64_t streams, int64_t segment_length,
              const std::string& where);

  int64_t streams() const { return streams_; }
  int64_t rows() const { return rows_; }                // R
  int64_t segments() const { return segments_; }        // ceil(R / L)
  int64_t targets() const { return rows_ * streams_; }  // predicted symbols per pass
  int64_t unpredicted() const { return unpredicted_; }  // (N - 1) mod B
  BpttSegment segment(int64_t k) const;

 private:
  at::Tensor x_, y_;  // (R, B)
  int64_t streams_, length_, rows_, segments_, unpredicted_;
};

}  // namespace recurlab::experiments
