//===- BandPlanTest.cpp - the band plan of window layers ------------------===//
//
// Small layers, the plans worked out by hand from the rules in BandPlan.h.
//
//===----------------------------------------------------------------------===//

#include "pimc/Conversion/BandPlan.h"

#include "gtest/gtest.h"

using namespace pimc::plan;

namespace {

WindowLayer layer(double work, int64_t crossbars, int64_t rows, int64_t cols = 1,
                  int64_t maxParts = 1) {
  WindowLayer l;
  l.work = work;
  l.crossbars = crossbars;
  l.rows = rows;
  l.cols = cols;
  l.maxParts = maxParts;
  return l;
}

TEST(BandPlanTest, BandsOfWholeRowsThenOfHalves) {
  // 8 rows of 3 positions, a row cut in at most two parts.
  WindowLayer l = layer(800, 2, 8, 3, 2);
  EXPECT_DOUBLE_EQ(l.bandNs(1), 800);
  EXPECT_DOUBLE_EQ(l.bandNs(3), 300); // bands of 3 rows
  EXPECT_DOUBLE_EQ(l.bandNs(8), 100);
  EXPECT_DOUBLE_EQ(l.bandNs(16), 100 * 2 / 3.0); // 2 of a row's 3 positions
  // Each step is the fewest bands that shorten the longest one.
  EXPECT_EQ(l.next(1), 2);
  EXPECT_EQ(l.next(3), 4);
  EXPECT_EQ(l.next(4), 8);
  EXPECT_EQ(l.next(8), 16);
  EXPECT_EQ(l.next(16), 0);
  // 5 bands are 4 of 2 rows; 9 are every row cut in two.
  EXPECT_EQ(l.actual(5), 4);
  EXPECT_EQ(l.actual(9), 16);
  EXPECT_EQ(l.copyCores(4), 1);
  EXPECT_EQ(layer(800, 9, 8).copyCores(4), 3);
}

TEST(BandPlanTest, OneInferenceBuysTheMostTimePerCrossbar) {
  // 16 crossbars, 12 for weights and copies; one copy of each takes 6.
  BandProblem problem;
  problem.cores = 4;
  problem.crossbarsPerCore = 4;
  problem.copyBudget = 0.75;
  problem.layers = {layer(800, 2, 8), layer(480, 4, 4), layer(100, 0, 4, 4, 2)};
  BandPlan plan = planBands(problem);
  // A's second copy saves 400 ns for 2 crossbars (200 a crossbar), B's 240
  // for 4 (60): A first (8 used). Then B (60 against A's next 100 / 2 =
  // 50): 12 used. A's third copy (2 more) and B's next two (8) no longer fit.
  // The pooling C is cut into pieces of a sixteenth of the slowest band
  // (400 / 16 = 25 ns): 4 of its 100, one row each.
  EXPECT_EQ(plan.bands, (std::vector<int64_t>{2, 2, 4}));
  EXPECT_DOUBLE_EQ(plan.bandNs, 400);
}

TEST(BandPlanTest, MatrixProductsTakeTheirCrossbarsFromTheBudget) {
  // The same budget of 12, a matrix product's 4 crossbars and one copy of
  // each layer taking 10 of it: A's second copy fits (12), B's no longer.
  BandProblem problem;
  problem.cores = 4;
  problem.crossbarsPerCore = 4;
  problem.copyBudget = 0.75;
  problem.matrixCrossbars = 4;
  problem.layers = {layer(800, 2, 8), layer(480, 4, 4)};
  EXPECT_EQ(planBands(problem).bands, (std::vector<int64_t>{2, 1}));
}

TEST(BandPlanTest, PipelineGivesTheSlowestLayerCoresWhileThereAreAny) {
  // 6 cores: the matrix product takes one, A's copy (6 crossbars) two, B's
  // one; 2 are left. A core's share of a band: A 400 / 2, B 300. B gets a
  // core (150 then); A (200) would need two more and gets none.
  BandProblem problem;
  problem.cores = 6;
  problem.crossbarsPerCore = 4;
  problem.oneInference = false;
  problem.matrixCores = 1;
  problem.layers = {layer(400, 6, 4), layer(300, 2, 4)};
  BandPlan plan = planBands(problem);
  EXPECT_EQ(plan.bands, (std::vector<int64_t>{1, 2}));
  EXPECT_DOUBLE_EQ(plan.bandNs, 200);
}

TEST(BandPlanTest, NoWeightsNoBands) {
  BandProblem problem;
  problem.cores = 4;
  problem.crossbarsPerCore = 4;
  problem.layers = {layer(100, 0, 4, 4, 2)};
  BandPlan plan = planBands(problem);
  EXPECT_EQ(plan.bands, (std::vector<int64_t>{1}));
  EXPECT_DOUBLE_EQ(plan.bandNs, 0);
}

} // namespace
