#include "experiments/harness/worker_processes.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <stdexcept>

namespace recurlab::experiments {

std::string WorkerExit::describe() const {
  return signaled ? "was killed by signal " + std::to_string(code)
                  : "exited with status " + std::to_string(code);
}

std::vector<std::string> dropOptions(const std::vector<std::string>& args,
                                     const std::vector<std::string>& with_value,
                                     const std::vector<std::string>& flags) {
  auto among = [](const std::vector<std::string>& names, const std::string& name) {
    for (const auto& n : names)
      if (n == name) return true;
    return false;
  };
  std::vector<std::string> kept;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (among(flags, a)) continue;
    const auto eq = a.find('=');
    if (among(with_value, eq == std::string::npos ? a : a.substr(0, eq))) {
      if (eq == std::string::npos) ++i;  // its value is the next argument
      continue;
    }
    kept.push_back(a);
  }
  return kept;
}

pid_t spawnWorker(const std::string& argv0, const std::vector<std::string>& args,
                  const std::vector<std::pair<std::string, std::string>>& environment) {
  return spawnProcess("/proc/self/exe", argv0, args, environment);
}

pid_t spawnProcess(const std::string& program, const std::string& argv0,
                   const std::vector<std::string>& args,
                   const std::vector<std::pair<std::string, std::string>>& environment) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(argv0.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("cannot start " + argv0 + " (fork failed)");
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);  // the parent died before prctl
    for (const auto& [name, value] : environment) setenv(name.c_str(), value.c_str(), 1);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

std::vector<WorkerExit> waitWorkers(const std::vector<pid_t>& pids) {
  std::vector<WorkerExit> exits;
  for (const pid_t pid : pids) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
      if (errno != EINTR) throw std::runtime_error("waitpid failed for a worker process");
    }
    WorkerExit e;
    if (WIFSIGNALED(status)) {
      e.signaled = true;
      e.code = WTERMSIG(status);
    } else {
      e.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    }
    exits.push_back(e);
  }
  return exits;
}

}  // namespace recurlab::experiments
