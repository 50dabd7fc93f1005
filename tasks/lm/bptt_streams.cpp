#include "tasks/lm/bptt_streams.h"

#include <torch/torch.h>

#include <stdexcept>

namespace recurlab::experiments {

BpttStreams::BpttStreams(const std::vector<int64_t>& symbols, int64_t streams,
                         int64_t segment_length, const std::string& where)
    : streams_(streams), length_(segment_length) {
  if (streams < 1 || segment_length < 1)
    throw std::invalid_argument(where + ": batch size and segment length must be >= 1");
  const auto n = static_cast<int64_t>(symbols.size());
  if (n - 1 < streams * segment_length)
    throw std::invalid_argument(
        where + ": " + std::to_string(n) + " symbols, too short for one segment per stream (" +
        std::to_string(streams) + " streams x " + std::to_string(segment_length) +
        " steps + 1 = " + std::to_string(streams * segment_length + 1) +
        " needed); lower the batch size or bptt, or use a longer corpus");
  rows_ = (n - 1) / streams;
  segments_ = (rows_ + length_ - 1) / length_;
  unpredicted_ = (n - 1) % streams;
  const auto all = torch::tensor(symbols, torch::kLong);
  const int64_t used = rows_ * streams;
  x_ = all.slice(0, 0, used).view({streams, rows_}).t().contiguous();
  y_ = all.slice(0, 1, used + 1).view({streams, rows_}).t().contiguous();
}

BpttSegment BpttStreams::segment(int64_t k) const {
  if (k < 0 || k >= segments_)
    throw std::out_of_range("BpttStreams: segment " + std::to_string(k) + " of " +
                            std::to_string(segments_));
  const int64_t from = k * length_, to = std::min(from + length_, rows_);
  return {x_.slice(0, from, to), y_.slice(0, from, to)};
}

}  // namespace recurlab::experiments
