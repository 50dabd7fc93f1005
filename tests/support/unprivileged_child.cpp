#include "tests/support/unprivileged_child.h"

#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <exception>

namespace recurlab::testing {

std::string inUnprivilegedChild(const std::function<std::string()>& check) {
  int fds[2];
  if (::pipe(fds) != 0) return "unprivileged child: pipe failed";
  const pid_t pid = ::fork();
  if (pid < 0) return "unprivileged child: fork failed";
  if (pid == 0) {
    ::close(fds[0]);
    std::string out;
    if (::geteuid() == 0 && (::setgroups(0, nullptr) != 0 || ::setgid(kUnprivilegedId) != 0 ||
                             ::setuid(kUnprivilegedId) != 0 || ::geteuid() != kUnprivilegedId)) {
      out = "unprivileged child: could not drop to uid/gid 65534";
    } else {
      try {
        out = check();
      } catch (const std::exception& e) {
        out = std::string("unprivileged child: threw ") + e.what();
      }
    }
    for (size_t done = 0; done < out.size();) {
      const ssize_t n = ::write(fds[1], out.data() + done, out.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::_exit(0);  // no atexit handlers, no destructors of the parent's objects
  }
  ::close(fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;)
    text.append(buffer, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return "unprivileged child: died (status " + std::to_string(status) + ")";
  return text;
}

void giveToUnprivileged(const std::filesystem::path& path) {
  if (::geteuid() != 0) return;
  (void)::chown(path.c_str(), kUnprivilegedId, kUnprivilegedId);
  if (!std::filesystem::is_directory(path)) return;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(path))
    (void)::chown(entry.path().c_str(), kUnprivilegedId, kUnprivilegedId);
}

}  // namespace recurlab::testing
