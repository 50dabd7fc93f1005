#include "experiments/weights/safetensors_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "common/atomic_file.h"

namespace recurlab::experiments::weights {
namespace {

// The format's own bound on the header (its reference library refuses larger ones), so that a
// corrupt length cannot make a reader allocate gigabytes.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

const std::vector<std::pair<SafetensorsDtype, std::string>>& dtypeNames() {
  static const std::vector<std::pair<SafetensorsDtype, std::string>> names = {
      {SafetensorsDtype::F64, "F64"},  {SafetensorsDtype::F32, "F32"},
      {SafetensorsDtype::F16, "F16"},  {SafetensorsDtype::BF16, "BF16"},
      {SafetensorsDtype::I64, "I64"},  {SafetensorsDtype::I32, "I32"},
      {SafetensorsDtype::I16, "I16"},  {SafetensorsDtype::I8, "I8"},
      {SafetensorsDtype::U8, "U8"},    {SafetensorsDtype::BOOL, "BOOL"}};
  return names;
}

bool hostIsLittleEndian() {
  const uint16_t one = 1;
  unsigned char first = 0;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

void requireLittleEndianHost() {
  if (!hostIsLittleEndian())
    throw std::runtime_error("safetensors: this host is big-endian; the format's data is "
                             "little-endian and no byte swapping is implemented");
}

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw std::runtime_error(source + ": not a valid safetensors file: " + what);
}

[[noreturn]] void failTensor(const std::string& source, const std::string& name,
                             const std::string& what) {
  fail(source, "tensor '" + name + "': " + what);
}

uint64_t readLittleEndian64(const std::string& bytes) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  return value;
}

std::string littleEndian64(uint64_t value) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((value >> (8 * i)) & 0xff);
  return bytes;
}

uint64_t nonNegativeInteger(const nlohmann::json& v, const std::string& source,
                            const std::string& name, const std::string& field) {
  if (!v.is_number_unsigned())
    failTensor(source, name, field + " must hold non-negative integers, got " + v.dump());
  return v.get<uint64_t>();
}

struct TensorEntry {
  SafetensorsTensor tensor;
  uint64_t begin = 0, end = 0;
};

TensorEntry parseEntry(const std::string& name, const nlohmann::json& info,
                       const std::string& source) {
  if (!info.is_object()) failTensor(source, name, "expected an object, got " + info.dump());
  for (const char* field : {"dtype", "shape", "data_offsets"})
    if (!info.contains(field)) failTensor(source, name, std::string("no \"") + field + "\"");
  TensorEntry e;
  e.tensor.name = name;
  const auto& dtype = info["dtype"];
  const auto known = std::find_if(dtypeNames().begin(), dtypeNames().end(), [&](const auto& d) {
    return dtype.is_string() && d.second == dtype.get<std::string>();
  });
  if (known == dtypeNames().end())
    failTensor(source, name,
               "dtype " + dtype.dump() + " is not one of F64, F32, F16, BF16, I64, I32, I16, "
               "I8, U8, BOOL");
  e.tensor.dtype = known->first;
  const auto& shape = info["shape"];
  if (!shape.is_array()) failTensor(source, name, "shape must be a list, got " + shape.dump());
  uint64_t numel = 1;
  for (const auto& dim : shape) {
    const uint64_t size = nonNegativeInteger(dim, source, name, "shape");
    if (size > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
        (size != 0 && numel > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / size))
      failTensor(source, name, "shape " + shape.dump() + " has too many elements");
    numel *= size;
    e.tensor.shape.push_back(static_cast<int64_t>(size));
  }
  const auto& offsets = info["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2)
    failTensor(source, name, "data_offsets must be [BEGIN, END], got " + offsets.dump());
  e.begin = nonNegativeInteger(offsets[0], source, name, "data_offsets");
  e.end = nonNegativeInteger(offsets[1], source, name, "data_offsets");
  if (e.end < e.begin)
    failTensor(source, name, "data_offsets " + offsets.dump() + " end before they begin");
  const uint64_t element = dtypeSize(e.tensor.dtype);
  if (numel > std::numeric_limits<uint64_t>::max() / element ||
      e.end - e.begin != numel * element)
    failTensor(source, name,
               "data_offsets " + offsets.dump() + " span " + std::to_string(e.end - e.begin) +
                   " bytes, but shape " + shape.dump() + " of " + dtypeName(e.tensor.dtype) +
                   " needs " + std::to_string(numel * element));
  return e;
}

}  // namespace

std::string dtypeName(SafetensorsDtype dtype) {
  for (const auto& [d, name] : dtypeNames())
    if (d == dtype) return name;
  throw std::logic_error("safetensors: unknown dtype value");
}

size_t dtypeSize(SafetensorsDtype dtype) {
  switch (dtype) {
    case SafetensorsDtype::F64:
    case SafetensorsDtype::I64: return 8;
    case SafetensorsDtype::F32:
    case SafetensorsDtype::I32: return 4;
    case SafetensorsDtype::F16:
    case SafetensorsDtype::BF16:
    case SafetensorsDtype::I16: return 2;
    case SafetensorsDtype::I8:
    case SafetensorsDtype::U8:
    case SafetensorsDtype::BOOL: return 1;
  }
  throw std::logic_error("safetensors: unknown dtype value");
}

bool isFloatingDtype(SafetensorsDtype dtype) {
  return dtype == SafetensorsDtype::F64 || dtype == SafetensorsDtype::F32 ||
         dtype == SafetensorsDtype::F16 || dtype == SafetensorsDtype::BF16;
}

int64_t SafetensorsTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

const SafetensorsTensor* SafetensorsContents::find(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

SafetensorsContents parseSafetensors(const std::string& bytes, const std::string& source) {
  requireLittleEndianHost();
  if (bytes.size() < 8)
    fail(source, "it has " + std::to_string(bytes.size()) +
                     " bytes, fewer than the 8 of the header length (truncated?)");
  const uint64_t header_size = readLittleEndian64(bytes);
  if (header_size > kMaxHeaderBytes)
    fail(source, "the header length " + std::to_string(header_size) + " exceeds the format's " +
                     "limit of " + std::to_string(kMaxHeaderBytes) + " bytes");
  if (header_size > bytes.size() - 8)
    fail(source, "the header length " + std::to_string(header_size) + " runs past the end of " +
                     "the file (" + std::to_string(bytes.size()) + " bytes; truncated?)");
  const std::string header_text = bytes.substr(8, header_size);
  if (header_text.empty() || header_text.front() != '{')
    fail(source, "the header does not start with '{'");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(header_text);
  } catch (const nlohmann::json::parse_error& e) {
    fail(source, std::string("the header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) fail(source, "the header is not a JSON object");

  SafetensorsContents contents;
  std::vector<TensorEntry> entries;
  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__") {
      if (!info.is_object()) fail(source, "__metadata__ must be an object of strings");
      for (const auto& [key, value] : info.items()) {
        if (!value.is_string())
          fail(source, "__metadata__ value of '" + key + "' must be a string, got " +
                           value.dump());
        contents.metadata[key] = value.get<std::string>();
      }
      continue;
    }
    entries.push_back(parseEntry(name, info, source));
  }

  // The tensors must tile the data: sorted by offset, each starts where the previous ended.
  const uint64_t data_size = bytes.size() - 8 - header_size;
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.begin < b.begin || (a.begin == b.begin && a.end < b.end);
  });
  uint64_t position = 0;
  std::string previous;
  for (const auto& e : entries) {
    if (e.end > data_size)
      failTensor(source, e.tensor.name,
                 "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                     "] run past the end of the data (" + std::to_string(data_size) +
                     " bytes; truncated?)");
    if (e.begin < position)
      failTensor(source, e.tensor.name,
                 "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                     "] overlap tensor '" + previous + "' (which ends at " +
                     std::to_string(position) + ")");
    if (e.begin > position)
      failTensor(source, e.tensor.name,
                 "data_offsets begin at " + std::to_string(e.begin) + ", leaving a gap after " +
                     (previous.empty() ? std::string("the header")
                                       : "tensor '" + previous + "'") +
                     " (which ends at " + std::to_string(position) + ")");
    position = e.end;
    previous = e.tensor.name;
  }
  if (position != data_size)
    fail(source, std::to_string(data_size - position) +
                     " bytes after the last tensor's data belong to no tensor");
  const size_t data_start = 8 + header_size;
  for (auto& e : entries) {
    e.tensor.data = bytes.substr(data_start + e.begin, e.end - e.begin);
    contents.tensors.push_back(std::move(e.tensor));
  }
  return contents;
}

std::string serializeSafetensors(const SafetensorsContents& contents) {
  requireLittleEndianHost();
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!contents.metadata.empty()) header["__metadata__"] = contents.metadata;
  uint64_t offset = 0;
  for (const auto& t : contents.tensors) {
    if (t.name == "__metadata__" || header.contains(t.name))
      throw std::invalid_argument("safetensors: tensor name '" + t.name +
                                  "' is reserved or given twice");
    const uint64_t size = static_cast<uint64_t>(t.numel()) * dtypeSize(t.dtype);
    if (t.data.size() != size)
      throw std::invalid_argument("safetensors: tensor '" + t.name + "' has " +
                                  std::to_string(t.data.size()) + " bytes of data, its shape " +
                                  "and dtype need " + std::to_string(size));
    header[t.name] = {{"dtype", dtypeName(t.dtype)},
                      {"shape", t.shape},
                      {"data_offsets", {offset, offset + size}}};
    offset += size;
  }
  std::string header_text = header.dump();
  // Padded with spaces so that the data starts 8-byte aligned, as the reference writer does.
  header_text.append((8 - header_text.size() % 8) % 8, ' ');
  std::string out = littleEndian64(header_text.size()) + header_text;
  out.reserve(out.size() + offset);
  for (const auto& t : contents.tensors) out += t.data;
  return out;
}

SafetensorsContents readSafetensors(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the safetensors file");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw std::runtime_error(path + ": read error");
  return parseSafetensors(bytes.str(), path);
}

void writeSafetensors(const std::string& path, const SafetensorsContents& contents) {
  const std::string bytes = serializeSafetensors(contents);
  writeFileAtomically(path, [&](const std::string& temporary) {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) throw std::runtime_error(path + ": cannot write the safetensors file");
  });
}

}  // namespace recurlab::experiments::weights
