#pragma once
// Where a training step's time goes, by operator: while a profile is active every ATen op and
// every named op (RECORD_FUNCTION, e.g. "recurlab::sru_recurrence") on any thread adds its
// self time (its time minus that of the ops it calls) to its category. Categories: "matmul"
// (mm, addmm, bmm, matmul, linear, ...), "recurrence" (the recurrence kernels named
// recurlab::*_recurrence*, or ops called by aten::lstm / aten::_thnn_fused_lstm_cell*),
// "other" (every other op: elementwise, softmax, loss, dropout, optimizer math, ...).
#include <map>
#include <string>

namespace recurlab::experiments {

class OpTimeProfile {
 public:
  OpTimeProfile();   // starts collecting; one profile at a time
  ~OpTimeProfile();  // stops
  OpTimeProfile(const OpTimeProfile&) = delete;
  OpTimeProfile& operator=(const OpTimeProfile&) = delete;

  // Self seconds per category so far.
  std::map<std::string, double> seconds() const;
  // Self seconds per op name so far.
  std::map<std::string, double> byOp() const;
};

// The category of an op by its name and whether it runs inside an LSTM op.
std::string opCategory(const std::string& name, bool inside_lstm);

}  // namespace recurlab::experiments
