// Data-parallel training on c10d Gloo (experiments/training/data_parallel.h), on loopback only:
// two ranks with parts of a batch give the gradients (in double, to rounding) and the weights
// of one process with the whole batch; a rank that dies ends the other with an error, not a
// hang; a killed data-parallel unit resumes from its ranks' checkpoints. `ctest -R DataParallel`.
#include <gtest/gtest.h>
#include <signal.h>
#include <torch/torch.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "experiments/harness/data_parallel_launch.h"
#include "experiments/training/data_parallel.h"
#include "tests/experiments/harness/run_log_summary.h"
#include "tests/support/child_process.h"
#include "tests/support/file_text.h"
#include "tests/support/required.h"
#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

namespace fs = std::filesystem;
using recurlab::testing::runChild;

using recurlab::testing::fileText;

// A double-precision two-layer net and a fixed batch of 8 examples.
struct Net : torch::nn::Module {
  torch::nn::Linear a{nullptr}, b{nullptr};
  Net() {
    a = register_module("a", torch::nn::Linear(5, 7));
    b = register_module("b", torch::nn::Linear(7, 1));
    to(torch::kDouble);
  }
  torch::Tensor loss(const torch::Tensor& x, const torch::Tensor& y) {
    return torch::mse_loss(b(torch::tanh(a(x))), y);
  }
};

TEST(DataParallel, TwoRanksAverageGradientsLikeOneProcessWithTheWholeBatch) {
  torch::manual_seed(3);
  const auto x = torch::randn({8, 5}, torch::kDouble), y = torch::randn({8, 1}, torch::kDouble);
  const int64_t split = 3;  // unequal parts: the average must weigh them by their examples
  auto part = [&](const torch::Tensor& t, int r) {
    return r == 0 ? t.narrow(0, 0, split) : t.narrow(0, split, 8 - split);
  };
  // One process, the whole batch, from rank 0's initial weights (seed 100).
  torch::manual_seed(100);
  Net reference;
  reference.loss(x, y).backward();
  const auto params = reference.parameters();
  std::vector<torch::Tensor> expected;
  for (const auto& p : params) expected.push_back(p.grad().clone());
  // What an unweighted mean of the parts' gradients would give: the test must tell it apart.
  std::vector<torch::Tensor> unweighted(params.size());
  for (int r = 0; r < 2; ++r) {
    for (auto& p : params) p.mutable_grad() = torch::Tensor();
    reference.loss(part(x, r), part(y, r)).backward();
    for (size_t i = 0; i < params.size(); ++i)
      unweighted[i] = r == 0 ? params[i].grad() * 0.5 : unweighted[i] + params[i].grad() * 0.5;
  }
  EXPECT_GT((unweighted[0] - expected[0]).abs().max().item<double>(), 1e-6);

  // Each rank's net starts from other weights (seeds 100 and 101), built here: torch's global
  // generator is shared by the rank threads. The broadcast must give rank 1 rank 0's weights.
  std::vector<std::shared_ptr<Net>> nets;
  for (int r = 0; r < 2; ++r) {
    torch::manual_seed(100 + r);
    nets.push_back(std::make_shared<Net>());
  }
  const int port = freeLoopbackPort();
  std::vector<std::vector<torch::Tensor>> grads(2);
  std::vector<std::string> errors(2);
  std::vector<int64_t> bytes(2);
  auto rank = [&](int r) {
    try {
      DataParallelOptions o;
      o.rank = r;
      o.world_size = 2;
      o.master_port = port;
      o.timeout_seconds = 30;
      o.bucket_bytes = 100;  // several buckets for 7*5 + 7 + 7 + 1 doubles
      DataParallelGroup group(o);
      Net& net = *nets[static_cast<size_t>(r)];
      group.broadcastFromRankZero(net);
      net.loss(part(x, r), part(y, r)).backward();
      bytes[r] = group.averageGradients(net.parameters(), static_cast<double>(part(x, r).size(0)));
      for (const auto& p : net.parameters()) grads[r].push_back(p.grad().clone());
    } catch (const std::exception& e) {
      errors[r] = e.what();
    }
  };
  std::thread t0(rank, 0), t1(rank, 1);
  t0.join();
  t1.join();
  ASSERT_EQ(errors[0], "");
  ASSERT_EQ(errors[1], "");
  EXPECT_EQ(bytes[0], (5 * 7 + 7 + 7 + 1) * 8);
  ASSERT_EQ(grads[0].size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    for (int r = 0; r < 2; ++r) {
      const double error = (grads[r][i] - expected[i]).abs().max().item<double>();
      EXPECT_LE(error, 4e-16 * (1 + expected[i].abs().max().item<double>()))
          << "parameter " << i << " rank " << r;
    }
}

TEST(DataParallel, WorldOfOneIsThisProcessAlone) {
  DataParallelGroup alone(DataParallelOptions{});
  EXPECT_FALSE(alone.active());
  auto p = torch::ones({3}, torch::requires_grad());
  (p * 2).sum().backward();
  EXPECT_EQ(alone.averageGradients({p}, 3.0), 0);
  EXPECT_TRUE(torch::equal(p.grad(), torch::full({3}, 2.0)));
}

TEST(DataParallel, BackendFollowsTheDeviceAndAMissingOneIsAOneLineError) {
  EXPECT_EQ(dataParallelBackend("cpu"), "gloo");
  EXPECT_EQ(dataParallelBackend("cuda"), "nccl");
  EXPECT_EQ(dataParallelBackend("cuda:1"), "nccl");
  RECURLAB_SKIP_NOT_THIS_BUILD(dataParallelBackendBuilt("nccl") ? "this LibTorch has NCCL" : "");
  DataParallelOptions o;
  o.world_size = 2;
  o.backend = "nccl";
  o.master_port = freeLoopbackPort();
  o.timeout_seconds = 1;  // were a rendezvous tried, it would end soon
  try {
    DataParallelGroup group(o);
    ADD_FAILURE() << "an NCCL group was created without NCCL";
  } catch (const std::runtime_error& e) {
    const std::string said = e.what();
    EXPECT_NE(said.find("needs NCCL"), std::string::npos) << said;
    EXPECT_EQ(said.find('\n'), std::string::npos) << said;
  }
}

TEST(DataParallel, MalformedEnvironmentNamesTheVariable) {
  setenv("WORLD_SIZE", "two", 1);
  try {
    DataParallelOptions::fromEnvironment();
    ADD_FAILURE() << "WORLD_SIZE=two was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("WORLD_SIZE"), std::string::npos) << e.what();
  }
  setenv("WORLD_SIZE", "2", 1);
  setenv("RANK", "2", 1);
  EXPECT_THROW(DataParallelOptions::fromEnvironment(), std::invalid_argument);
  unsetenv("WORLD_SIZE");
  unsetenv("RANK");
  EXPECT_EQ(DataParallelOptions::fromEnvironment().world_size, 1);
}

TEST(DataParallel, RanksNeedANamedRunFolderAndRankZeroOwnsIt) {
  RunFolderOptions o("toy");
  EXPECT_THROW(rankRunFolder(o, 0, 2), std::invalid_argument);
  o.out_dir = "/tmp/run";
  EXPECT_EQ(rankRunFolder(o, 0, 2).out_dir, "/tmp/run");
  EXPECT_EQ(rankRunFolder(o, 1, 2).out_dir, "/tmp/run/ranks/rank-1");
  EXPECT_EQ(rankRunFolder(o, 1, 1).out_dir, "/tmp/run");
}

using recurlab::testing::TempRoot;

std::vector<std::string> toyArgs(const std::string& out, int ranks, int epochs, int examples) {
  return {"--out", out, "--threads", "1", "--nproc-per-node", std::to_string(ranks),
          "--set", "seeds=1", "--set", "keep_checkpoints=true", "--set",
          "train={\"examples\": " + std::to_string(examples) +
              ", \"batch_size\": 8, \"max_epochs\": " + std::to_string(epochs) +
              ", \"lr\": 0.01, \"checkpoint_every_steps\": 16, \"optimizer\": \"adam\"}"};
}

torch::Tensor finalWeight(const std::string& folder) {
  torch::serialize::InputArchive a, model, m;
  a.load_from((fs::path(folder) / "checkpoints" / "toy_seeds_0" / "last.pt").string());
  a.read("model", model);
  model.read("0", m);  // the toy model is a Sequential: its one Linear is the submodule "0"
  torch::Tensor w;
  m.read("weight", w);
  return w;
}

TEST(DataParallel, TwoProcessesTrainTheWeightsOfOneProcess) {
  const std::string program = recurlab::testing::siblingBinary("recurlab_toy_task");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  TempRoot tmp("recurlab_dp_weights");
  const std::string output = (tmp.root / "children.txt").string();
  const std::string one = (tmp.root / "one").string(), two = (tmp.root / "two").string();
  ASSERT_EQ(runChild(program, toyArgs(one, 1, 3, 128), "", -1, output).exit_code, 0)
      << fileText(output);
  ASSERT_EQ(runChild(program, toyArgs(two, 2, 3, 128), "", -1, output).exit_code, 0)
      << fileText(output);
  // 48 Adam steps in float: batch 8 on one process vs 4 + 4 on two.
  const auto w1 = finalWeight(one), w2 = finalWeight(two);
  EXPECT_LE((w1 - w2).abs().max().item<double>(), 1e-5) << w1 << "\n" << w2;
  EXPECT_FALSE(torch::equal(w1, torch::zeros_like(w1)));
  // Rank 1 kept its own log and checkpoints, out of the report's way.
  EXPECT_TRUE(fs::exists(fs::path(two) / "ranks" / "rank-1" / "log.h5"));
  EXPECT_EQ(runLogFiles(two).size(), 1u);
}

TEST(DataParallel, KilledRankEndsTheOtherWithAnErrorNotAHang) {
  const std::string program = recurlab::testing::siblingBinary("recurlab_toy_task");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  TempRoot tmp("recurlab_dp_kill");
  const std::string out = (tmp.root / "run").string();
  const std::string log0 = (tmp.root / "rank0.txt").string();
  const std::string log1 = (tmp.root / "rank1.txt").string();
  const std::string port = std::to_string(freeLoopbackPort());
  auto env = [&](int r) {
    return std::vector<std::pair<std::string, std::string>>{
        {"RANK", std::to_string(r)}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"},
        {"MASTER_PORT", port}, {"RECURLAB_DP_TIMEOUT", "20"}};
  };
  // Long enough to be mid-training when rank 1 is killed: rank 1 kills itself (SIGKILL) at its
  // kill point after its 20th training step, past its first checkpoint (every 16 steps).
  auto args = toyArgs(out, 1, 200, 4096);
  auto env1 = env(1);
  env1.emplace_back("RECURLAB_KILL_AT", "train-step:20");
  const int p0 = recurlab::testing::startChild(program, args, env(0), log0);
  const int p1 = recurlab::testing::startChild(program, args, env1, log1);
  bool finished = false;
  const auto r1 = recurlab::testing::waitChild(p1, 120000, finished);
  if (!finished) {
    kill(-p1, SIGKILL);
    kill(-p0, SIGKILL);
    recurlab::testing::waitChild(p1, 5000, finished);
    recurlab::testing::waitChild(p0, 5000, finished);
    FAIL() << "rank 1 was not killed at its 20th step within 120 s: " << fileText(log0)
           << fileText(log1);
  }
  if (!r1.killed) {
    kill(-p0, SIGKILL);
    recurlab::testing::waitChild(p0, 5000, finished);
    FAIL() << "rank 1 ended by itself (exit " << r1.exit_code << "): " << fileText(log1);
  }
  EXPECT_TRUE(fs::exists(fs::path(out) / "ranks" / "rank-1" / "checkpoints" / "toy_seeds_0" /
                         "last.pt"))
      << "killed mid-training, after its first checkpoint";
  const auto killed_at = std::chrono::steady_clock::now();
  const auto r0 = recurlab::testing::waitChild(p0, 60000, finished);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - killed_at).count();
  if (!finished) {
    kill(-p0, SIGKILL);
    recurlab::testing::waitChild(p0, 5000, finished);
    FAIL() << "rank 0 still ran 60 s after rank 1 was killed: " << fileText(log0);
  }
  EXPECT_NE(r0.exit_code, 0) << fileText(log0);
  const std::string said = fileText(log0);
  // (exit -1 and not killed: ended by another signal, e.g. SIGPIPE on the dead rank's socket)
  EXPECT_NE(said.find("data-parallel all-reduce"), std::string::npos)
      << said << "(rank 0: exit " << r0.exit_code << (r0.killed ? ", SIGKILL" : "") << ")";
  EXPECT_EQ(said.find("frame #"), std::string::npos) << "a backtrace instead of a message: " << said;
  std::cout << "rank 0 stopped " << seconds << " s after rank 1 was killed: " << said;
}

TEST(DataParallel, KilledUnitResumesFromItsRanksCheckpoints) {
  const std::string program = recurlab::testing::siblingBinary("recurlab_toy_task");
  ASSERT_TRUE(fs::exists(program)) << program << " is not built";
  TempRoot tmp("recurlab_dp_resume");
  const std::string output = (tmp.root / "children.txt").string();
  const std::string whole = (tmp.root / "whole").string(), killed = (tmp.root / "killed").string();
  ASSERT_EQ(runChild(program, toyArgs(whole, 2, 4, 256), "", -1, output).exit_code, 0)
      << fileText(output);
  // Both ranks reach the kill point at step 40 (checkpoints every 16 steps), then resume.
  const std::string killed_output = (tmp.root / "killed.txt").string();
  const auto r = runChild(program, toyArgs(killed, 2, 4, 256), "train-step:40", -1, killed_output);
  // The launcher reports each rank's SIGKILL (not a start-up error) and exits with 2.
  const std::string said = fileText(killed_output);
  EXPECT_FALSE(r.killed) << said;
  EXPECT_EQ(r.exit_code, 2) << said;
  for (const char* rank : {"rank 0 ", "rank 1 "}) {
    const auto at = said.find(std::string("--nproc-per-node: ") + rank);
    ASSERT_NE(at, std::string::npos) << rank << "not reported: " << said;
    const std::string line = said.substr(at, said.find('\n', at) - at);
    EXPECT_NE(line.find("was killed by signal 9"), std::string::npos) << line;
  }
  ASSERT_EQ(runChild(program, toyArgs(killed, 2, 4, 256), "", -1, output).exit_code, 0)
      << fileText(output);
  EXPECT_EQ(recurlab::testing::finishedUnits(killed), recurlab::testing::finishedUnits(whole));
  EXPECT_TRUE(torch::equal(finalWeight(killed), finalWeight(whole)));
  // Rank 0's log: the unit was finished by a run that started from the step-32 checkpoint.
  EXPECT_EQ(recurlab::testing::resumedUnits(killed).at("/toy/seeds/0"), 1);
  EXPECT_EQ(recurlab::testing::resumedUnits(whole).at("/toy/seeds/0"), 0);
}

}  // namespace
}  // namespace recurlab::experiments
