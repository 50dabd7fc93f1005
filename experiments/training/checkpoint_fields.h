#pragma once
// The scalar part of a checkpoint as named fields: integers and reals kept in maps from name to
// value and written into the checkpoint as two such maps, so a field is found by its name
// alone: adding, removing or reordering fields never shifts another. Reading a field that the
// checkpoint lacks is an error that names the field and the file.
#include <cstdint>
#include <map>
#include <string>

#include "experiments/training/meter.h"

namespace torch::serialize {
class InputArchive;
class OutputArchive;
}  // namespace torch::serialize

namespace recurlab::experiments {

class CheckpointFields {
 public:
  explicit CheckpointFields(std::string source = "checkpoint") : source_(std::move(source)) {}

  void setInteger(const std::string& name, int64_t value) { integers_[name] = value; }
  void setReal(const std::string& name, double value) { reals_[name] = value; }
  // A meter's state as the reals <name>.sum, <name>.count and <name>.seconds.
  void setMeter(const std::string& name, const Meter& meter);

  int64_t integer(const std::string& name) const;
  double real(const std::string& name) const;
  Meter::State meter(const std::string& name) const;
  bool hasInteger(const std::string& name) const { return integers_.count(name) > 0; }
  bool hasReal(const std::string& name) const { return reals_.count(name) > 0; }

  const std::map<std::string, int64_t>& integers() const { return integers_; }
  const std::map<std::string, double>& reals() const { return reals_; }

  // Writes the fields into `archive` under <key>_integers and <key>_reals (name -> value maps).
  void writeTo(torch::serialize::OutputArchive& archive, const std::string& key) const;
  // Reads what writeTo wrote; `source` (e.g. the file) names it in errors.
  static CheckpointFields readFrom(torch::serialize::InputArchive& archive, const std::string& key,
                                   const std::string& source);

 private:
  std::string source_;
  std::map<std::string, int64_t> integers_;
  std::map<std::string, double> reals_;
};

}  // namespace recurlab::experiments
