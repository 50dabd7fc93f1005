#pragma once
// The safetensors format (Hugging Face's weights container, documented in docs/weights.md),
// read and written without its library and without LibTorch:
//   8 bytes   N, the header's length, unsigned little-endian
//   N bytes   a JSON object: {"NAME": {"dtype": "F32", "shape": [2, 3],
//             "data_offsets": [BEGIN, END]}, ..., "__metadata__": {"key": "value"}}
//   the rest  the tensors' raw little-endian bytes, row-major; offsets count from here.
// Reading checks what the format requires, as its reference library does: offsets inside the
// data, END - BEGIN = elements x element size, the tensors tiling the data without overlaps,
// gaps or trailing bytes. Every error names the file and, where there is one, the tensor.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace recurlab::experiments::weights {

enum class SafetensorsDtype { F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL };

std::string dtypeName(SafetensorsDtype dtype);  // "F32", ...
size_t dtypeSize(SafetensorsDtype dtype);       // bytes per element
bool isFloatingDtype(SafetensorsDtype dtype);

struct SafetensorsTensor {
  std::string name;
  SafetensorsDtype dtype = SafetensorsDtype::F32;
  std::vector<int64_t> shape;
  std::string data;  // raw little-endian bytes, numel() x dtypeSize(dtype) of them

  int64_t numel() const;
};

struct SafetensorsContents {
  std::vector<SafetensorsTensor> tensors;       // in the order of their data
  std::map<std::string, std::string> metadata;  // "__metadata__"; empty when absent

  const SafetensorsTensor* find(const std::string& name) const;
};

// `source` names the bytes in errors (the file's path).
SafetensorsContents parseSafetensors(const std::string& bytes, const std::string& source);
std::string serializeSafetensors(const SafetensorsContents& contents);

SafetensorsContents readSafetensors(const std::string& path);
// Written atomically (the file appears whole or not at all).
void writeSafetensors(const std::string& path, const SafetensorsContents& contents);

}  // namespace recurlab::experiments::weights
