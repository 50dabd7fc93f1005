// A checkpoint's scalar state is kept by name: it goes through a torch archive and back, a
// field added (or the fields written in another order) shifts no other, a missing field or a
// checkpoint of the older positional format is an error naming it, and the trainer's whole
// state comes back field by field.
#include "experiments/training/checkpoint_fields.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <sstream>

#include "experiments/training/training_state.h"

namespace recurlab::experiments {
namespace {

CheckpointFields throughArchive(const CheckpointFields& fields) {
  torch::serialize::OutputArchive out;
  fields.writeTo(out, "state");
  std::stringstream bytes;
  out.save_to(bytes);
  torch::serialize::InputArchive in;
  in.load_from(bytes);
  return CheckpointFields::readFrom(in, "state", "test checkpoint");
}

TEST(CheckpointFields, GoThroughAnArchiveByName) {
  CheckpointFields f;
  f.setInteger("epoch", 3);
  f.setInteger("step", -7);
  f.setReal("lr", 0.125);
  Meter loss = Meter::average();
  loss.add(1.5, 4);
  loss.addSeconds(0.25);
  f.setMeter("train_loss", loss);
  const auto back = throughArchive(f);
  EXPECT_EQ(back.integers(), f.integers());
  EXPECT_EQ(back.reals(), f.reals());
  EXPECT_EQ(back.integer("epoch"), 3);
  EXPECT_EQ(back.integer("step"), -7);
  EXPECT_EQ(back.real("lr"), 0.125);
  const auto m = back.meter("train_loss");
  EXPECT_EQ(m.sum, 1.5);
  EXPECT_EQ(m.count, 4.0);
  EXPECT_EQ(m.seconds, 0.25);
}

TEST(CheckpointFields, AnAddedOrReorderedFieldShiftsNoOther) {
  CheckpointFields before;
  before.setInteger("epoch", 3);
  before.setInteger("step", 40);
  before.setReal("lr", 0.5);
  before.setReal("plateau.best", 0.75);
  // A later version writes its fields in another order, with new ones among them.
  CheckpointFields after;
  after.setReal("plateau.best", 0.75);
  after.setInteger("added_counter", 99);  // sorts before "epoch"
  after.setReal("a_new_real", -1.0);      // sorts before "lr"
  after.setReal("lr", 0.5);
  after.setInteger("step", 40);
  after.setInteger("epoch", 3);
  for (const auto& f : {throughArchive(before), throughArchive(after)}) {
    EXPECT_EQ(f.integer("epoch"), 3);
    EXPECT_EQ(f.integer("step"), 40);
    EXPECT_EQ(f.real("lr"), 0.5);
    EXPECT_EQ(f.real("plateau.best"), 0.75);
  }
}

TEST(CheckpointFields, AMissingFieldOrAPositionalCheckpointIsAnErrorNamingIt) {
  CheckpointFields f("checkpoint /runs/x/last.pt");
  f.setInteger("epoch", 1);
  try {
    f.integer("step");
    FAIL() << "a missing field was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'step'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("/runs/x/last.pt"), std::string::npos) << e.what();
  }
  EXPECT_THROW(f.real("epoch"), std::runtime_error);  // an integer is not a real

  // The older format: the state as positional vectors of ints and doubles.
  torch::serialize::OutputArchive old;
  old.write("ints", torch::tensor(std::vector<int64_t>{2, 0, 10}));
  old.write("doubles", torch::tensor(std::vector<double>{0.1}, torch::kDouble));
  std::stringstream bytes;
  old.save_to(bytes);
  torch::serialize::InputArchive in;
  in.load_from(bytes);
  try {
    CheckpointFields::readFrom(in, "state", "checkpoint old.pt");
    FAIL() << "a positional checkpoint was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("checkpoint old.pt"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("older trainer"), std::string::npos) << e.what();
  }
}

// Every field of a state with distinct values.
TrainingState distinctState() {
  TrainingState s({"acc"}, {"dev_acc", "train_acc"});
  s.epoch = 4;
  s.batch = 6;
  s.step = 36;
  s.finished = Finished::EarlyStopping;
  s.lr = 0.0625;
  s.plateau = {3, 2, 1, 1, 0.875};
  s.meters.train_loss.add(12.5, 24);
  s.meters.tallies[0].add(20, 24);
  s.meters.examples_per_second.addCount(24);
  s.meters.examples_per_second.addSeconds(0.5);
  s.meters.data_seconds.addSeconds(0.01);
  s.meters.forward_seconds.addSeconds(0.2);
  s.meters.backward_seconds.addSeconds(0.3);
  s.meters.step_seconds.addSeconds(0.04);
  s.meters.eval_seconds.addSeconds(0.05);
  s.window_loss.add(2.25, 3);
  s.outcome.epochs = 3;
  s.outcome.steps = 36;
  s.outcome.best_epoch = 2;
  s.outcome.train_seconds = 7.5;
  s.outcome.final_lr = 0.125;
  s.outcome.times = {1, 2, 3, 4, 5, 6};
  s.outcome.best = {{"dev_acc", 0.8125}, {"train_acc", 0.9375}};
  return s;
}

TEST(TrainingState, ComesBackFieldByFieldEvenWithAFieldAdded) {
  const TrainingState saved = distinctState();
  auto fields = throughArchive(saved.fields());
  fields.setReal("epoch.some_new_meter.sum", 123.0);  // a field this trainer does not know
  fields.setInteger("aaa_first", 5);
  TrainingState back({"acc"}, {"dev_acc", "train_acc"});
  back.restore(fields);
  EXPECT_EQ(back.fields().integers(), saved.fields().integers());
  EXPECT_EQ(back.fields().reals(), saved.fields().reals());
  EXPECT_EQ(back.epoch, 4);
  EXPECT_EQ(back.batch, 6);
  EXPECT_EQ(back.step, 36);
  EXPECT_EQ(back.finished, Finished::EarlyStopping);
  EXPECT_EQ(back.lr, 0.0625);
  EXPECT_EQ(back.plateau.best_epoch, 2);
  EXPECT_EQ(back.plateau.best, 0.875);
  EXPECT_EQ(back.meters.train_loss.value(), 12.5 / 24);
  EXPECT_EQ(back.meters.tallies[0].value(), 20.0 / 24);
  EXPECT_EQ(back.meters.examples_per_second.value(), 48.0);
  EXPECT_EQ(back.meters.backward_seconds.value(), 0.3);
  EXPECT_EQ(back.window_loss.value(), 0.75);
  EXPECT_EQ(back.outcome.best_epoch, 2);
  EXPECT_EQ(back.outcome.times.evaluation, 5.0);
  EXPECT_EQ(back.outcome.times.checkpoint, 6.0);
  EXPECT_EQ(back.outcome.best.at("train_acc"), 0.9375);
}

}  // namespace
}  // namespace recurlab::experiments
