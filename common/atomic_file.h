#pragma once
// A file that appears whole or not at all: written beside its place under a name of this
// process's own (<path>.part-<pid>, so that two processes never write one file), then renamed
// into place. A run killed mid-write leaves the part file, never half of `path`.
#include <functional>
#include <string>

namespace recurlab {

// Calls `write(temporary_path)`, then renames the temporary file to `path`.
void writeFileAtomically(const std::string& path,
                         const std::function<void(const std::string& temporary_path)>& write);

}  // namespace recurlab
