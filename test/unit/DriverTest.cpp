//===- DriverTest.cpp - the driver's throughput sim_time ------------------===//

#include "pimc/Driver/Driver.h"

#include <gtest/gtest.h>

using namespace pimc;

// Programs whose first round is about one round long get 20 rounds after it.
TEST(DriverTest, SimTimeHoldsTwentyRoundsAfterAShortFill) {
  SimulatedTime t = throughputSimTime(5.343e6, 5.060e6);
  EXPECT_EQ(t.simTimeMs, 107); // ceil(5.343 + 20 * 5.060)
  EXPECT_EQ(t.rounds, 21);     // pimsim-nn counted 21 in 107 ms
}

// A pipeline that fills for nine rounds gets a sim_time ten times its fill.
TEST(DriverTest, SimTimeMakesALongFillATenth) {
  SimulatedTime t = throughputSimTime(35.965e6, 4.263e6);
  EXPECT_GE(t.simTimeMs * 1e6, 10 * 35.965e6);
  EXPECT_EQ(t.simTimeMs, 360); // ceil(35.965 + 76 * 4.263)
  EXPECT_EQ(t.rounds, 77);
}
