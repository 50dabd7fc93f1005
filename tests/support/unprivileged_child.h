#pragma once
// Permission checks that hold under root too: CI runs as root, for whom chmod 000 denies
// nothing. The check runs in a forked child that first drops to the user and group nobody.
#include <filesystem>
#include <functional>
#include <string>

namespace recurlab::testing {

// The user and group the child drops to (nobody on Debian).
constexpr unsigned kUnprivilegedId = 65534;

// Runs `check` in a forked child, as nobody when this process is root (as itself otherwise),
// and returns the text it returned; a child that could not drop privileges, threw or died
// returns "unprivileged child: <why>". Only the child's return value comes back: gtest
// assertions inside `check` are not seen by the parent.
std::string inUnprivilegedChild(const std::function<std::string()>& check);

// Gives `path` and everything under it to nobody when this process is root (so that nobody
// may write where the check needs to); does nothing otherwise.
void giveToUnprivileged(const std::filesystem::path& path);

}  // namespace recurlab::testing
