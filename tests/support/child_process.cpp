#include "tests/support/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <thread>

namespace recurlab::testing {

namespace {

ChildResult resultOf(int status) {
  return {WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
          WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

// No test waits on a child for ever: runChild without a kill delay and runCommand kill a child
// (its process group) still running after this long, saying so on stderr (a ChildResult then
// reads killed, a CommandOutput exit code -1).
constexpr int kChildTimeoutMs = 10 * 60 * 1000;

// Waits up to `limit_ms` for the child `pid` (the leader of its process group), then kills the
// group with SIGKILL and reaps it; `timed_out` says whether it had to.
ChildResult waitOrKill(int pid, int limit_ms, bool& timed_out) {
  bool finished = false;
  const ChildResult early = waitChild(pid, limit_ms, finished);
  timed_out = !finished;
  if (finished) return early;
  kill(-pid, SIGKILL);  // the whole group: its children (the analyzer) too
  int status = 0;
  waitpid(pid, &status, 0);
  return resultOf(status);
}

void reportTimeout(const std::string& program) {
  std::cerr << program << " still ran after " << kChildTimeoutMs / 1000
            << " s: killed (tests/support/child_process.cpp)" << std::endl;
}

}  // namespace

int startChild(const std::string& program, const std::vector<std::string>& args,
               const std::vector<std::pair<std::string, std::string>>& environment,
               const std::string& output_file) {
  std::vector<std::string> argv_strings{program};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    setpgid(0, 0);  // its own process group: a kill takes its children (the analyzer) too
    unsetenv("RECURLAB_KILL_AT");
    for (const auto& [name, value] : environment) setenv(name.c_str(), value.c_str(), 1);
    const int fd = open(output_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    std::vector<char*> argv;
    for (auto& a : argv_strings) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so the group exists whichever runs first
  return pid;
}

ChildResult runChild(const std::string& program, const std::vector<std::string>& args,
                     const std::string& kill_at, int kill_after_ms, const std::string& output_file) {
  std::vector<std::pair<std::string, std::string>> environment;
  if (!kill_at.empty()) environment.emplace_back("RECURLAB_KILL_AT", kill_at);
  const int pid = startChild(program, args, environment, output_file);
  bool timed_out = false;
  const ChildResult r =
      waitOrKill(pid, kill_after_ms >= 0 ? kill_after_ms : kChildTimeoutMs, timed_out);
  if (timed_out && kill_after_ms < 0) reportTimeout(program);
  return r;
}

ChildResult waitChild(int pid, int timeout_ms, bool& finished) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  int status = 0;
  finished = false;
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      finished = true;
      return resultOf(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return {};
}

CommandOutput runCommand(const std::string& program, const std::vector<std::string>& args,
                         const std::string& scratch) {
  const std::string out_file = scratch + "/command.stdout", err_file = scratch + "/command.stderr";
  std::vector<std::string> argv_strings{program};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    setpgid(0, 0);  // its own process group, killed whole past the time limit
    unsetenv("RECURLAB_KILL_AT");
    const int out = open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0) _exit(126);
    dup2(out, 1);
    dup2(err, 2);
    std::vector<char*> argv;
    for (auto& a : argv_strings) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  setpgid(pid, pid);
  bool timed_out = false;
  const ChildResult r = waitOrKill(pid, kChildTimeoutMs, timed_out);
  if (timed_out) reportTimeout(program);
  auto read = [](const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  return {timed_out ? -1 : r.exit_code, read(out_file), read(err_file)};
}

std::string siblingBinary(const std::string& name) {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (exe.parent_path() / name).string();
}

}  // namespace recurlab::testing
