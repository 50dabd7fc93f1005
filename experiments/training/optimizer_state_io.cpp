#include "experiments/training/optimizer_state_io.h"

#include <stdexcept>
#include <string>

#include "common/runtime/torch_build.h"
#include "experiments/training/adamax_optimizer.h"

namespace recurlab::experiments {
namespace {

constexpr const char* kFormat = "recurlab-optimizer-1";

std::string groupKey(size_t group) { return "group/" + std::to_string(group); }

template <typename State, typename Options>
void saveAs(const torch::optim::Optimizer& optimizer, const std::string& kind,
            torch::serialize::OutputArchive& archive) {
  archive.write("format", c10::IValue(std::string(kFormat)));
  archive.write("optimizer", c10::IValue(kind));
  const auto& groups = optimizer.param_groups();
  archive.write("groups", c10::IValue(static_cast<int64_t>(groups.size())));
  for (size_t g = 0; g < groups.size(); ++g) {
    torch::serialize::OutputArchive group(archive.compilation_unit()), options(archive.compilation_unit());
    static_cast<const Options&>(groups[g].options()).serialize(options);
    group.write("options", options);
    const auto& params = groups[g].params();
    group.write("params", c10::IValue(static_cast<int64_t>(params.size())));
    for (size_t k = 0; k < params.size(); ++k) {
      const auto it = optimizer.state().find(optimizerStateKey(params[k].unsafeGetTensorImpl()));
      if (it == optimizer.state().end()) continue;  // no step has touched it yet
      torch::serialize::OutputArchive state(archive.compilation_unit());
      static_cast<const State&>(*it->second).serialize(state);
      group.write("state/" + std::to_string(k), state);
    }
    archive.write(groupKey(g), group);
  }
}

template <typename State, typename Options>
void loadAs(torch::optim::Optimizer& optimizer, const std::string& kind,
            torch::serialize::InputArchive& archive) {
  c10::IValue v;
  archive.read("optimizer", v);
  if (v.toStringRef() != kind)
    throw std::runtime_error("the checkpoint holds the state of optimizer " + v.toStringRef() +
                             ", this unit trains with " + kind);
  auto& groups = optimizer.param_groups();
  archive.read("groups", v);
  if (v.toInt() != static_cast<int64_t>(groups.size()))
    throw std::runtime_error("the checkpoint's optimizer has " + std::to_string(v.toInt()) +
                             " parameter groups, this one " + std::to_string(groups.size()));
  for (size_t g = 0; g < groups.size(); ++g) {
    torch::serialize::InputArchive group, options;
    archive.read(groupKey(g), group);
    const auto& params = groups[g].params();
    group.read("params", v);
    if (v.toInt() != static_cast<int64_t>(params.size()))
      throw std::runtime_error("the checkpoint's optimizer group " + std::to_string(g) + " has " +
                               std::to_string(v.toInt()) + " parameters, this one " +
                               std::to_string(params.size()));
    group.read("options", options);
    static_cast<Options&>(groups[g].options()).serialize(options);
    for (size_t k = 0; k < params.size(); ++k) {
      torch::serialize::InputArchive saved;
      if (!group.try_read("state/" + std::to_string(k), saved)) continue;
      auto state = std::make_unique<State>();
      state->serialize(saved);
      optimizer.state()[optimizerStateKey(params[k].unsafeGetTensorImpl())] = std::move(state);
    }
  }
}

// Calls fn.template operator()<State, Options>(kind) for the optimizer's type.
template <typename Fn>
void byOptimizerType(const torch::optim::Optimizer& optimizer, Fn&& fn) {
  namespace optim = torch::optim;
  if (dynamic_cast<const optim::AdamW*>(&optimizer))
    fn(optim::AdamWParamState{}, optim::AdamWOptions{}, "adamw");
  else if (dynamic_cast<const optim::Adam*>(&optimizer))
    fn(optim::AdamParamState{}, optim::AdamOptions{}, "adam");
  else if (dynamic_cast<const optim::SGD*>(&optimizer))
    fn(optim::SGDParamState{}, optim::SGDOptions{0.0}, "sgd");
  else if (dynamic_cast<const Adamax*>(&optimizer))
    fn(AdamaxParamState{}, AdamaxOptions{}, "adamax");
  else
    throw std::logic_error("optimizer state: no checkpoint format for this optimizer type");
}

}  // namespace

void saveOptimizerState(const torch::optim::Optimizer& optimizer,
                        torch::serialize::OutputArchive& archive) {
  byOptimizerType(optimizer, [&](auto state, auto options, const char* kind) {
    saveAs<decltype(state), decltype(options)>(optimizer, kind, archive);
  });
}

void loadOptimizerState(torch::optim::Optimizer& optimizer,
                        torch::serialize::InputArchive& archive) {
  c10::IValue format;
  if (!archive.try_read("format", format)) {
    optimizer.load(archive);  // torch's own layout: a checkpoint from before this format
    return;
  }
  if (!format.isString() || format.toStringRef() != kFormat)
    throw std::runtime_error("optimizer state of an unknown format (expected " +
                             std::string(kFormat) + ")");
  byOptimizerType(optimizer, [&](auto state, auto options, const char* kind) {
    loadAs<decltype(state), decltype(options)>(optimizer, kind, archive);
  });
}

}  // namespace recurlab::experiments
