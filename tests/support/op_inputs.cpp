#include "tests/support/op_inputs.h"

#include <ATen/record_function.h>

#include <memory>
#include <utility>

namespace recurlab::testing {
namespace {

thread_local OpInputs* active = nullptr;  // the innermost OpInputs of this thread

}  // namespace

// RecordFunction takes a plain function pointer: the recorder is found through `active`.
struct OpInputsObserver {
  static std::unique_ptr<at::ObserverContext> onEnter(const at::RecordFunction& fn) {
    OpInputs* r = active;
    if (r == nullptr || r->ops_.count(fn.name()) == 0) return nullptr;
    const auto inputs = fn.inputs();
    const c10::ScalarType type = !inputs.empty() && inputs[0].isTensor()
                                     ? inputs[0].toTensor().scalar_type()
                                     : c10::ScalarType::Undefined;
    ++r->calls_[fn.name()][type];
    return nullptr;
  }
};

OpInputs::OpInputs(std::set<std::string> ops) : ops_(std::move(ops)), outer_(active) {
  active = this;
  handle_ = at::addThreadLocalCallback(
      at::RecordFunctionCallback(&OpInputsObserver::onEnter).needsInputs(true));
}

OpInputs::~OpInputs() {
  at::removeCallback(handle_);
  active = outer_;
}

int64_t OpInputs::callCount() const {
  int64_t n = 0;
  for (const auto& [op, by_type] : calls_)
    for (const auto& [type, count] : by_type) n += count;
  return n;
}

int64_t OpInputs::callsNotInFloat32() const {
  int64_t n = 0;
  for (const auto& [op, by_type] : calls_)
    for (const auto& [type, count] : by_type) n += type == c10::ScalarType::Float ? 0 : count;
  return n;
}

}  // namespace recurlab::testing
