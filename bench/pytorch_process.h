#pragma once
// The PyTorch side of the bench as a child process (bench/pytorch_side.py): started once, asked
// for one timing at a time over a pipe (one JSON object per line each way), so that recurlab's
// and PyTorch's steps alternate in the same rounds on the same machine.
#include <nlohmann/json.hpp>

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace recurlab::bench {

class PytorchProcess {
 public:
  // Starts `python script` with `environment` added to ours. When Python or its torch module is
  // missing, available() is false and unavailableReason() says why (the bench then runs our
  // side alone).
  PytorchProcess(const std::string& python, const std::string& script,
                 const std::vector<std::pair<std::string, std::string>>& environment);
  ~PytorchProcess();
  PytorchProcess(const PytorchProcess&) = delete;
  PytorchProcess& operator=(const PytorchProcess&) = delete;

  bool available() const { return pid_ > 0; }
  const std::string& unavailableReason() const { return reason_; }
  const std::string& torchVersion() const { return torch_version_; }

  // Sends one request and waits for its reply; throws std::runtime_error when the process died
  // or answered something that is not JSON.
  nlohmann::json request(const nlohmann::json& message);

 private:
  std::string readLine();
  void stop();

  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1;
  std::string buffer_, reason_, torch_version_;
};

}  // namespace recurlab::bench
