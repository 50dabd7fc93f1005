#include "experiments/training/checkpoint_fields.h"

#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include <stdexcept>

namespace recurlab::experiments {
namespace {

template <typename T>
const T& field(const std::map<std::string, T>& fields, const std::string& name, const char* kind,
               const std::string& source) {
  const auto it = fields.find(name);
  if (it == fields.end())
    throw std::runtime_error(source + ": no " + kind + " field '" + name +
                             "' (written by another version of the trainer?)");
  return it->second;
}

}  // namespace

void CheckpointFields::setMeter(const std::string& name, const Meter& meter) {
  setReal(name + ".sum", meter.sum());
  setReal(name + ".count", meter.count());
  setReal(name + ".seconds", meter.seconds());
}

int64_t CheckpointFields::integer(const std::string& name) const {
  return field(integers_, name, "integer", source_);
}

double CheckpointFields::real(const std::string& name) const {
  return field(reals_, name, "real", source_);
}

Meter::State CheckpointFields::meter(const std::string& name) const {
  return {real(name + ".sum"), real(name + ".count"), real(name + ".seconds")};
}

void CheckpointFields::writeTo(torch::serialize::OutputArchive& archive,
                               const std::string& key) const {
  c10::Dict<std::string, int64_t> integers;
  for (const auto& [name, value] : integers_) integers.insert(name, value);
  c10::Dict<std::string, double> reals;
  for (const auto& [name, value] : reals_) reals.insert(name, value);
  archive.write(key + "_integers", c10::IValue(integers));
  archive.write(key + "_reals", c10::IValue(reals));
}

CheckpointFields CheckpointFields::readFrom(torch::serialize::InputArchive& archive,
                                            const std::string& key, const std::string& source) {
  CheckpointFields fields(source);
  c10::IValue integers, reals;
  if (!archive.try_read(key + "_integers", integers) || !archive.try_read(key + "_reals", reals) ||
      !integers.isGenericDict() || !reals.isGenericDict())
    throw std::runtime_error(source + ": no named fields '" + key +
                             "' (a checkpoint of an older trainer, which kept them by position, "
                             "cannot be resumed: delete it to restart the unit)");
  for (const auto& entry : integers.toGenericDict())
    fields.integers_[entry.key().toStringRef()] = entry.value().toInt();
  for (const auto& entry : reals.toGenericDict())
    fields.reals_[entry.key().toStringRef()] = entry.value().toDouble();
  return fields;
}

}  // namespace recurlab::experiments
