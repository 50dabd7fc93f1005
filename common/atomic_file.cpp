#include "common/atomic_file.h"

#include <unistd.h>

#include <filesystem>

namespace recurlab {

void writeFileAtomically(const std::string& path,
                         const std::function<void(const std::string&)>& write) {
  const std::string temporary = path + ".part-" + std::to_string(::getpid());
  write(temporary);
  std::filesystem::rename(temporary, path);
}

}  // namespace recurlab
