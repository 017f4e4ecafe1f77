//===- CrossbarPackingTest.cpp - do the weights left still fit the cores --===//
//
// Two cores of four crossbars; the packings worked out by hand.
//
//===----------------------------------------------------------------------===//

#include "pimc/Arch/CrossbarPacking.h"

#include "gtest/gtest.h"

using pimc::CrossbarPacking;

namespace {

TEST(CrossbarPackingTest, LargeMeansHalfACoreOrMoreForOneInference) {
  EXPECT_TRUE(CrossbarPacking::isLarge(2, 4, /*looping=*/false));
  EXPECT_FALSE(CrossbarPacking::isLarge(1, 4, false));
  // Looping programs: only what cannot share a core (more than half).
  EXPECT_FALSE(CrossbarPacking::isLarge(2, 4, /*looping=*/true));
  EXPECT_TRUE(CrossbarPacking::isLarge(3, 4, true));
}

TEST(CrossbarPackingTest, ASmallComputeMustNotTakeALargeOnesCore) {
  // Two computes of 3 to come: each needs a core of its own, so a third
  // compute of 2 leaves no room for both wherever it goes.
  CrossbarPacking packing(2, 4, false);
  packing.addUnplaced(3);
  packing.addUnplaced(3);
  EXPECT_TRUE(packing.leavesRoom(4, 0, true));
  EXPECT_FALSE(packing.leavesRoom(4, 2, false));
  // Placing one of them leaves room for the other on the other core.
  packing.removeUnplaced(3);
  EXPECT_TRUE(packing.leavesRoom(4, 3, true));
}

TEST(CrossbarPackingTest, LargeComputesShareACoreWhenNothingElseFits) {
  // Two computes of 2 to come, and 3 to take on one core: with each large
  // one on a core of its own, the 1 left there is too little; packed best
  // fit, both go to the other core.
  CrossbarPacking packing(2, 4, false);
  packing.addUnplaced(2);
  packing.addUnplaced(2);
  EXPECT_FALSE(packing.packs(4, 3, /*apart=*/true));
  EXPECT_TRUE(packing.packs(4, 3, /*apart=*/false));
  EXPECT_FALSE(packing.leavesRoom(4, 3, /*apart=*/true));
  EXPECT_TRUE(packing.leavesRoom(4, 3, /*apart=*/false));
}

TEST(CrossbarPackingTest, SmallComputesGoWhereTheyLeaveAWholeCore) {
  // A compute of 4 to come: a compute of 1 fits beside it on neither core
  // once another 1 took a crossbar of one of them, unless it goes there.
  CrossbarPacking packing(2, 4, false);
  packing.addUnplaced(4);
  EXPECT_TRUE(packing.leavesRoom(4, 1, true));
  packing.take(4, 1); // cores with 4 and 3 free
  EXPECT_FALSE(packing.leavesRoom(4, 1, false));
  EXPECT_TRUE(packing.leavesRoom(3, 1, true));
}

} // namespace
