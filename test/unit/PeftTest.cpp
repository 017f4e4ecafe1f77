//===- PeftTest.cpp - PEFT list scheduling on plain data ------------------===//
//
// Two cores of four crossbars; every NoC hop 1 ns, a 16-byte flit, local
// memory 16 bytes a beat at 8 cycles a read and 10 a write (1 ns each). A
// transfer of 16 bytes from core 0 to core 1 then takes the handshake
// (1 + 1 ns), the sender's read (8), the flit (1) and the receiver's write
// (10): 21 ns. The schedules are worked out by hand.
//
//===----------------------------------------------------------------------===//

#include "pimc/Dialect/Spatial/Transforms/Peft.h"

#include "gtest/gtest.h"

using namespace pimc;
using namespace pimc::peft;

namespace {

Arch twoCores() {
  Arch arch;
  arch.coreCount = 2;
  arch.matrix.xbarArrayCount = 4;
  arch.busWidth = 16;
  arch.localMemory.memorySize = 1000; // 750 bytes kept for a task's data
  arch.nocLatency.assign(9, 1.0);     // cores 0, 1 and the global memory
  arch.nocEnergy.assign(9, 0.0);
  return arch;
}

Task task(double cost, int64_t crossbars, llvm::SmallVector<Edge> preds = {}) {
  Task t;
  t.cost = cost;
  t.crossbars = crossbars;
  t.preds = std::move(preds);
  return t;
}

const Schedule &scheduled(const std::variant<Schedule, Misfit> &result) {
  EXPECT_TRUE(std::holds_alternative<Schedule>(result));
  return std::get<Schedule>(result);
}

TEST(PeftTest, ATaskGoesWhereItFinishesFirstTransfersCounted) {
  // A (10 ns) feeds B and C (30 ns each) 16 bytes. A goes first (rank 10 +
  // 30), to core 0. B: on core 0 it starts when A ends, at 10, and ends at
  // 40; on core 1 its input arrives at 10 + 21 = 31, so it would end at 61:
  // core 0. C: core 0 is busy until 40 (ends at 70); core 1 ends at 61.
  std::vector<Task> tasks = {task(10, 1), task(30, 1, {{0, 16}}), task(30, 1, {{0, 16}})};
  auto result = schedule(tasks, twoCores(), {});
  const Schedule &s = scheduled(result);
  ASSERT_EQ(s.placements.size(), 3u);
  EXPECT_EQ(s.placements[0].core, 0);
  EXPECT_EQ(s.placements[0].start, 0);
  EXPECT_EQ(s.placements[0].finish, 10);
  EXPECT_EQ(s.placements[1].core, 0);
  EXPECT_EQ(s.placements[1].start, 10);
  EXPECT_EQ(s.placements[1].finish, 40);
  EXPECT_EQ(s.placements[2].core, 1);
  EXPECT_EQ(s.placements[2].start, 31);
  EXPECT_EQ(s.placements[2].finish, 61);
  EXPECT_EQ(s.makespan, 61);
}

TEST(PeftTest, TasksOfOneCopyOfWeightsShareItsCore) {
  // Two tasks of one copy of 3 crossbars: the second runs after the first
  // on its core (10 to 20), though core 1 is free, and takes no crossbars
  // of its own; a third task of 3 then fits only core 1.
  std::vector<Task> tasks = {task(10, 3), task(10, 3), task(10, 3)};
  tasks[0].copy = tasks[1].copy = 7;
  auto result = schedule(tasks, twoCores(), {});
  const Schedule &s = scheduled(result);
  EXPECT_EQ(s.placements[0].core, 0);
  EXPECT_EQ(s.placements[1].core, 0);
  EXPECT_EQ(s.placements[1].start, 10);
  EXPECT_EQ(s.placements[1].finish, 20);
  EXPECT_EQ(s.placements[2].core, 1);
  EXPECT_EQ(s.placements[2].start, 0);
  EXPECT_EQ(s.makespan, 20);
}

TEST(PeftTest, NoCoreWithTheCrossbarsIsAMisfitNamingTheTask) {
  // Three tasks of 3 crossbars on two cores of 4: the third finds 1 free on
  // each core.
  std::vector<Task> tasks = {task(10, 3), task(10, 3), task(10, 3)};
  auto result = schedule(tasks, twoCores(), {});
  ASSERT_TRUE(std::holds_alternative<Misfit>(result));
  const Misfit &misfit = std::get<Misfit>(result);
  EXPECT_EQ(misfit.task, 2u);
  EXPECT_TRUE(misfit.outOfCrossbars);
  EXPECT_EQ(misfit.crossbars, 3);
  EXPECT_EQ(misfit.freeCrossbars, 2);
  EXPECT_EQ(misfit.mostFreeOnOneCore, 1);
}

TEST(PeftTest, DataLargerThanACoreKeepsIsAMisfitToo) {
  // A core keeps 3/4 of its 1000 bytes for a task's inputs and results.
  std::vector<Task> tasks = {task(10, 0)};
  tasks[0].inputBytes = 500;
  tasks[0].outputBytes = 300;
  auto result = schedule(tasks, twoCores(), {});
  ASSERT_TRUE(std::holds_alternative<Misfit>(result));
  const Misfit &misfit = std::get<Misfit>(result);
  EXPECT_FALSE(misfit.outOfCrossbars);
  EXPECT_EQ(misfit.bytes, 800);
  EXPECT_EQ(misfit.memoryLimit, 750);
}

TEST(PeftTest, LoopingProgramsGiveEachLayerWithWeightsCoresOfItsOwn) {
  // Two layers of one task each (100 ns, 1 crossbar), the second reading 16
  // bytes of the first. For one inference the second goes beside its input
  // (100 to 200, no transfer); when the programs loop, it is a stage of its
  // own on core 1, from when the input arrives (121) to 221.
  std::vector<Task> tasks = {task(100, 1), task(100, 1, {{0, 16}})};
  tasks[0].layer = 0;
  tasks[1].layer = 1;
  auto once = schedule(tasks, twoCores(), {});
  EXPECT_EQ(scheduled(once).placements[1].core, 0);
  EXPECT_EQ(scheduled(once).placements[1].finish, 200);
  auto looping = schedule(tasks, twoCores(), {/*looping=*/true, /*balanceWeightless=*/false});
  const Schedule &s = scheduled(looping);
  EXPECT_EQ(s.placements[0].core, 0);
  EXPECT_EQ(s.placements[1].core, 1);
  EXPECT_EQ(s.placements[1].start, 121);
  EXPECT_EQ(s.placements[1].finish, 221);
}

} // namespace
