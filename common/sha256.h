#pragma once
// SHA-256 (FIPS 180-4) of bytes or a file, as lowercase hex: the checksums of a kept model's
// manifest (experiments/kept_model/kept_model.h), computed without a crypto library.
#include <string>

namespace recurlab {

std::string sha256Hex(const std::string& bytes);
// Reads the file in blocks; a file that cannot be read is an error naming it.
std::string sha256OfFile(const std::string& path);

}  // namespace recurlab
