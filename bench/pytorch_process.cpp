#include "bench/pytorch_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace recurlab::bench {

PytorchProcess::PytorchProcess(const std::string& python, const std::string& script,
                               const std::vector<std::pair<std::string, std::string>>& environment) {
  int in_pipe[2], out_pipe[2];
  if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0) {
    reason_ = std::string("pipe: ") + std::strerror(errno);
    return;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    reason_ = std::string("fork: ") + std::strerror(errno);
    return;
  }
  if (pid == 0) {
    dup2(in_pipe[0], STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    close(in_pipe[0]);
    close(in_pipe[1]);
    close(out_pipe[0]);
    close(out_pipe[1]);
    // Nothing else of ours in the child: an inherited descriptor of the run's HDF5 log would
    // keep its file lock after we close it.
    for (int fd = STDERR_FILENO + 1; fd < static_cast<int>(sysconf(_SC_OPEN_MAX)) && fd < 65536; ++fd)
      close(fd);
    for (const auto& [name, value] : environment) setenv(name.c_str(), value.c_str(), 1);
    execlp(python.c_str(), python.c_str(), script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  pid_ = pid;
  to_child_ = in_pipe[1];
  from_child_ = out_pipe[0];
  signal(SIGPIPE, SIG_IGN);  // a child that died is reported by request(), not by a signal
  std::string why;
  try {
    const auto hello = nlohmann::json::parse(readLine());
    if (hello.value("ready", false))
      torch_version_ = hello.value("torch", "?");
    else
      why = hello.value("reason", "no torch");
  } catch (const std::exception&) {
    why = "did not start";
  }
  if (!why.empty()) {
    stop();
    reason_ = python + " " + script + ": " + why + " (Python 3 with PyTorch is needed: " +
              "scripts/install-deps.sh --bench installs Debian's python3-torch; " +
              "RECURLAB_BENCH_PYTHON names another interpreter)";
  }
}

PytorchProcess::~PytorchProcess() { stop(); }

void PytorchProcess::stop() {
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  to_child_ = from_child_ = -1;
  if (pid_ > 0) {
    int status = 0;
    waitpid(pid_, &status, 0);  // stdin closed: the script's loop ends
  }
  pid_ = -1;
}

std::string PytorchProcess::readLine() {
  for (;;) {
    const auto end = buffer_.find('\n');
    if (end != std::string::npos) {
      std::string line = buffer_.substr(0, end);
      buffer_.erase(0, end + 1);
      return line;
    }
    char chunk[4096];
    const ssize_t n = read(from_child_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("the PyTorch side exited");
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

nlohmann::json PytorchProcess::request(const nlohmann::json& message) {
  if (!available()) throw std::runtime_error("the PyTorch side is not running: " + reason_);
  const std::string line = message.dump() + "\n";
  size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = write(to_child_, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("the PyTorch side exited");
    written += static_cast<size_t>(n);
  }
  const std::string reply = readLine();
  try {
    return nlohmann::json::parse(reply);
  } catch (const std::exception&) {
    throw std::runtime_error("the PyTorch side answered '" + reply + "'");
  }
}

}  // namespace recurlab::bench
