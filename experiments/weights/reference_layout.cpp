#include "experiments/weights/reference_layout.h"

#include <map>
#include <stdexcept>

namespace recurlab::experiments::weights {
namespace {

torch::Tensor applyTransform(const torch::Tensor& t, ReferenceTransform transform) {
  switch (transform) {
    case ReferenceTransform::kTranspose: return t.t();
    case ReferenceTransform::kRollRows: return torch::roll(t, {1}, {0});
    case ReferenceTransform::kNegate: return -t;
    case ReferenceTransform::kLeadingUnitDim: return t.unsqueeze(0);
    case ReferenceTransform::kNone: break;
  }
  return t;
}

torch::Tensor undoTransform(const torch::Tensor& t, ReferenceTransform transform) {
  switch (transform) {
    case ReferenceTransform::kTranspose: return t.t();
    case ReferenceTransform::kRollRows: return torch::roll(t, {-1}, {0});
    case ReferenceTransform::kNegate: return -t;
    case ReferenceTransform::kLeadingUnitDim: return t.squeeze(0);
    case ReferenceTransform::kNone: break;
  }
  return t;
}

const torch::Tensor& byName(const NamedTensors& tensors, const std::string& name,
                            const std::string& reference) {
  for (const auto& [n, t] : tensors)
    if (n == name) return t;
  throw std::logic_error("weights: the layout of " + reference + " names '" + name +
                         "', which the model lacks");
}

}  // namespace

NamedTensors toReference(const ReferenceLayout& layout, const NamedTensors& recurlab) {
  std::map<std::string, std::vector<bool>> covered;
  NamedTensors out;
  for (const auto& r : layout.tensors) {
    if (r.constant.defined()) {
      out.emplace_back(r.name, r.constant);
      continue;
    }
    std::vector<torch::Tensor> parts;
    for (const auto& p : r.pieces) {
      const torch::Tensor& t = byName(recurlab, p.name, layout.reference);
      parts.push_back(t.detach().chunk(p.blocks, -1).at(static_cast<size_t>(p.block)));
      auto& blocks = covered[p.name];
      blocks.resize(static_cast<size_t>(p.blocks));
      blocks.at(static_cast<size_t>(p.block)) = true;
    }
    out.emplace_back(r.name, applyTransform(torch::cat(parts, -1), r.transform).contiguous());
  }
  // A tensor the layout leaves out would be lost without a word.
  for (const auto& [name, t] : recurlab) {
    const auto it = covered.find(name);
    bool whole = it != covered.end();
    if (whole)
      for (bool b : it->second) whole = whole && b;
    if (!whole)
      throw std::logic_error("weights: the layout of " + layout.reference + " leaves '" + name +
                             "' out");
  }
  return out;
}

NamedTensors fromReference(const ReferenceLayout& layout, const NamedTensors& reference,
                           const NamedTensors& like, const std::string& source) {
  std::map<std::string, std::vector<torch::Tensor>> blocks;
  for (const auto& r : layout.tensors) {
    const torch::Tensor& value = byName(reference, r.name, layout.reference);
    if (r.constant.defined()) {
      if (!torch::equal(value.to(r.constant.scalar_type()), r.constant))
        throw std::runtime_error(source + ": tensor '" + r.name + "' is not " +
                                 r.constant_meaning);
      continue;
    }
    const torch::Tensor joined = undoTransform(value, r.transform);
    std::vector<int64_t> widths;
    for (const auto& p : r.pieces)
      widths.push_back(byName(like, p.name, layout.reference).size(-1) / p.blocks);
    const auto parts = joined.split_with_sizes(widths, -1);
    for (size_t i = 0; i < r.pieces.size(); ++i) {
      auto& b = blocks[r.pieces[i].name];
      b.resize(static_cast<size_t>(r.pieces[i].blocks));
      b.at(static_cast<size_t>(r.pieces[i].block)) = parts[i];
    }
  }
  NamedTensors out;
  for (const auto& [name, model_tensor] : like) {
    const auto it = blocks.find(name);
    if (it == blocks.end())
      throw std::logic_error("weights: the layout of " + layout.reference + " leaves '" + name +
                             "' out");
    out.emplace_back(name, torch::cat(it->second, -1).contiguous());
  }
  return out;
}

}  // namespace recurlab::experiments::weights
