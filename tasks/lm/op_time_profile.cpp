#include "tasks/lm/op_time_profile.h"

#include <ATen/record_function.h>

#include <chrono>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "experiments/training/meter.h"

namespace recurlab::experiments {
namespace {

using Clock = std::chrono::steady_clock;

struct Frame {
  std::string name;
  Clock::time_point start;
  double children = 0;  // seconds spent in nested ops
  bool inside_lstm = false;
};

thread_local std::vector<Frame> t_stack;
std::mutex g_mutex;
std::map<std::string, Meter> g_by_category, g_by_op;  // self seconds
bool g_active = false;
at::CallbackHandle g_handle = 0;

bool isLstmOp(const std::string& name) {
  return name == "aten::lstm" || name.rfind("aten::_thnn_fused_lstm_cell", 0) == 0 ||
         name.find("LstmBackward") != std::string::npos ||
         name.find("FusedLstm") != std::string::npos;
}

std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction& fn) {
  Frame f;
  f.name = fn.name();
  f.inside_lstm = !t_stack.empty() && (t_stack.back().inside_lstm || isLstmOp(t_stack.back().name));
  f.start = Clock::now();
  t_stack.push_back(std::move(f));
  return nullptr;
}

void onEnd(const at::RecordFunction&, at::ObserverContext*) {
  if (t_stack.empty()) return;
  const Frame f = std::move(t_stack.back());
  t_stack.pop_back();
  const double total = std::chrono::duration<double>(Clock::now() - f.start).count();
  if (!t_stack.empty()) t_stack.back().children += total;
  const double self = std::max(0.0, total - f.children);
  std::lock_guard<std::mutex> lock(g_mutex);
  const std::string category = opCategory(f.name, f.inside_lstm);
  g_by_category.try_emplace(category, Meter::time()).first->second.addSeconds(self);
  g_by_op.try_emplace(f.name, Meter::time()).first->second.addSeconds(self);
}

}  // namespace

std::string opCategory(const std::string& name, bool inside_lstm) {
  static const std::vector<std::string> matmuls = {
      "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul", "aten::linear",
      "aten::addmv", "aten::mv", "aten::dot", "aten::addmm_", "aten::_addmm_activation"};
  for (const auto& m : matmuls)
    if (name == m) return "matmul";
  if (name.rfind("recurlab::", 0) == 0 && name.find("recurrence") != std::string::npos)
    return "recurrence";
  if (inside_lstm || isLstmOp(name)) return "recurrence";
  return "other";
}

OpTimeProfile::OpTimeProfile() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_active) throw std::logic_error("OpTimeProfile: a profile is already active");
  g_active = true;
  g_by_category.clear();
  g_by_op.clear();
  g_handle = at::addGlobalCallback(
      at::RecordFunctionCallback(&onStart, &onEnd).needsInputs(false).scopes(
          {at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION,
           at::RecordScope::USER_SCOPE}));
}

OpTimeProfile::~OpTimeProfile() {
  at::removeCallback(g_handle);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_active = false;
}

namespace {

std::map<std::string, double> secondsOf(const std::map<std::string, Meter>& meters) {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::map<std::string, double> seconds;
  for (const auto& [name, meter] : meters) seconds[name] = meter.value();
  return seconds;
}

}  // namespace

std::map<std::string, double> OpTimeProfile::seconds() const { return secondsOf(g_by_category); }

std::map<std::string, double> OpTimeProfile::byOp() const { return secondsOf(g_by_op); }

}  // namespace recurlab::experiments
