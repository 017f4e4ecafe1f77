//===- LoopOrderTest.cpp - timing and shortening looping core programs ----===//
//
// Small programs of two cores, the rounds worked out by hand: a channel
// starts when both of its cores are free, every other node when its core is.
//
//===----------------------------------------------------------------------===//

#include "pimc/Dialect/Spatial/Transforms/LoopOrder.h"

#include "gtest/gtest.h"

using namespace pimc::spat;

namespace {

OrderNode local(size_t core, double ns, llvm::ArrayRef<unsigned> succs = {}) {
  OrderNode node;
  node.cores = {core};
  node.ns = ns;
  node.succs.assign(succs.begin(), succs.end());
  return node;
}

/// A channel from core 0 to core 1; its sender is done after `senderNs`
/// (all of it unless given).
OrderNode channel(double ns, llvm::ArrayRef<unsigned> succs = {}, double senderNs = -1) {
  OrderNode node = local(0, ns, succs);
  node.cores.push_back(1);
  node.senderNs = senderNs < 0 ? ns : senderNs;
  return node;
}

TEST(LoopOrderTest, PipelineRoundIsItsSlowestStage) {
  // Core 0 computes (100) and sends (10) to core 1, which computes (300):
  // core 0 waits in the send for core 1's previous round.
  std::vector<OrderNode> nodes = {local(0, 100, {1}), channel(10, {2}), local(1, 300)};
  EXPECT_DOUBLE_EQ(LoopTiming(nodes, 2, {0, 1, 2}).roundNs(), 310);
}

TEST(LoopOrderTest, SenderGoesOnBeforeTheDataArrives) {
  // Core 0 computes (100), sends (its part 10 of 60) and computes again
  // (200); core 1 receives and computes (50). Core 0's round is its own
  // work and its part of the send.
  std::vector<OrderNode> nodes = {local(0, 100, {1}), channel(60, {3}, 10), local(0, 200),
                                  local(1, 50)};
  EXPECT_DOUBLE_EQ(LoopTiming(nodes, 2, {0, 1, 2, 3}).roundNs(), 310);
  nodes[1].senderNs = 60;
  EXPECT_DOUBLE_EQ(LoopTiming(nodes, 2, {0, 1, 2, 3}).roundNs(), 360);
}

TEST(LoopOrderTest, DataFlowOrderFollowsEarliestStarts) {
  // Core 0 computes (100) and sends to core 1, which first works on its own
  // (10, then 50) and then on what it received (20). By earliest starts:
  // the two first computes, core 1's second one (at 10), the channel (at
  // 100) and what it feeds (at 105).
  enum : unsigned { A, B, C, D, E };
  std::vector<OrderNode> nodes = {local(0, 100, {C}), local(1, 10, {D}), channel(5, {E}),
                                  local(1, 50), local(1, 20)};
  nodes[C].pending = 1;
  nodes[D].pending = 1;
  nodes[E].pending = 1;
  nodes[B].key = 1;
  std::vector<unsigned> expected = {A, B, D, C, E};
  EXPECT_EQ(dataFlowOrder(nodes), expected);
}

/// Core 0 makes two halves (10, then 300) and sends each to core 1, then
/// works 2000 on its own; core 1 works 1000 on each half.
std::vector<OrderNode> hub(bool secondHalfNeedsFirst) {
  enum : unsigned { H1, Ch1, C1, H2, Ch2, W, C2 };
  std::vector<OrderNode> nodes = {
      local(0, 10, {Ch1, H2}),
      channel(5, {C1}),
      local(1, 1000),
      local(0, 300, {Ch2, W}),
      channel(5, {C2}),
      local(0, 2000),
      local(1, 1000),
  };
  if (secondHalfNeedsFirst)
    nodes[C1].succs.push_back(Ch2);
  return nodes;
}

TEST(LoopOrderTest, ShortenDelaysLocalWorkPastAChannel) {
  // Core 1 computes the first half before it takes the second: core 0 waits
  // for that in the second send, 10 + 5 + 1000 + 5 + 2000 a round. With the
  // first half's work after the second channel, core 0 never waits:
  // 10 + 5 + 300 + 5 + 2000.
  std::vector<OrderNode> nodes = hub(false);
  std::vector<unsigned> order = {0, 1, 2, 3, 4, 5, 6};
  EXPECT_DOUBLE_EQ(LoopTiming(nodes, 2, order).roundNs(), 3020);
  shortenLoopRound(nodes, 2, order);
  EXPECT_DOUBLE_EQ(LoopTiming(nodes, 2, order).roundNs(), 2320);
  std::vector<unsigned> expected = {0, 1, 3, 4, 2, 5, 6};
  EXPECT_EQ(order, expected);
}

TEST(LoopOrderTest, ShortenKeepsWorkBeforeWhatItFeeds) {
  // The first half's work feeds the second channel: nothing may move.
  std::vector<OrderNode> nodes = hub(true);
  std::vector<unsigned> order = {0, 1, 2, 3, 4, 5, 6};
  shortenLoopRound(nodes, 2, order);
  std::vector<unsigned> unchanged = {0, 1, 2, 3, 4, 5, 6};
  EXPECT_EQ(order, unchanged);
  EXPECT_DOUBLE_EQ(LoopTiming(nodes, 2, order).roundNs(), 3020);
}

} // namespace
