//===- OrderCommunication.cpp - stage 6: deferred communication -----------===//
//
// A send blocks until its receiver reaches the matching recv, and a core runs
// one transfer at a time, so the order of transfers within each core decides
// whether the program deadlocks. All operations of all cores are sorted by
// one topological order of their dependencies, in which the two ends of a
// channel are a single event; each core's program is that order restricted
// to the core. Every core then meets its channels in the same global order,
// and the first unfinished channel in that order always has both ends ready:
// the program cannot deadlock. Among the orders, the one chosen follows the
// schedule's times: work and transfers happen as soon as their data is ready
// by the schedule's estimate.
//
//===----------------------------------------------------------------------===//

#include "pimc/Dialect/Spatial/SpatialUtils.h"
#include "pimc/Dialect/Spatial/Transforms/Passes.h"

#include <queue>

namespace pimc::spat {
#define GEN_PASS_DEF_SPATORDERCOMMUNICATION
#include "pimc/Dialect/Spatial/Transforms/Passes.h.inc"
} // namespace pimc::spat

using namespace mlir;
using namespace pimc;
using namespace pimc::spat;

namespace {

struct Node {
  SmallVector<Operation *, 2> ops; // two for a channel (send, recv)
  double key = 0;
  unsigned sequence = 0;
  SmallVector<unsigned> succs;
  unsigned pending = 0;
};

/// Checks that replaying every core's channels in program order completes.
LogicalResult replayChannels(ModuleOp module) {
  struct Cursor {
    int64_t core;
    SmallVector<Operation *> transfers;
    size_t next = 0;
  };
  SmallVector<Cursor> cursors;
  DenseMap<int64_t, size_t> byCore;
  for (CoreOp core : module.getOps<CoreOp>()) {
    Cursor cursor{static_cast<int64_t>(core.getId()), {}};
    for (Operation &op : core.getBody().front())
      if (isa<SendOp, RecvOp>(op))
        cursor.transfers.push_back(&op);
    byCore[core.getId()] = cursors.size();
    cursors.push_back(std::move(cursor));
  }
  auto headChannel = [&](Cursor &c, int64_t &peer, bool &sending) -> int64_t {
    if (c.next >= c.transfers.size())
      return -1;
    Operation *op = c.transfers[c.next];
    if (auto send = dyn_cast<SendOp>(op)) {
      peer = send.getTarget();
      sending = true;
      return send.getChannel();
    }
    auto recv = cast<RecvOp>(op);
    peer = recv.getSource();
    sending = false;
    return recv.getChannel();
  };
  for (bool progress = true; progress;) {
    progress = false;
    for (Cursor &c : cursors) {
      int64_t peer, peerOfPeer;
      bool sending, peerSending;
      int64_t channel = headChannel(c, peer, sending);
      if (channel < 0 || !sending || !byCore.count(peer))
        continue;
      Cursor &other = cursors[byCore[peer]];
      if (headChannel(other, peerOfPeer, peerSending) == channel && !peerSending) {
        ++c.next;
        ++other.next;
        progress = true;
      }
    }
  }
  for (Cursor &c : cursors)
    if (c.next < c.transfers.size())
      return c.transfers[c.next]->emitOpError()
             << "on core " << c.core
             << " never completes: the communication order deadlocks";
  return success();
}

struct SpatOrderCommunicationPass
    : public spat::impl::SpatOrderCommunicationBase<SpatOrderCommunicationPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::vector<Node> nodes;
    DenseMap<Operation *, unsigned> nodeOf;
    DenseMap<int64_t, unsigned> channelNode;
    SmallVector<CoreOp> cores(module.getOps<CoreOp>());
    for (CoreOp core : cores)
      for (Operation &op : core.getBody().front()) {
        int64_t channel = -1;
        if (auto send = dyn_cast<SendOp>(op))
          channel = send.getChannel();
        else if (auto recv = dyn_cast<RecvOp>(op))
          channel = recv.getChannel();
        if (channel >= 0) {
          auto [it, inserted] = channelNode.try_emplace(channel, nodes.size());
          if (inserted)
            nodes.emplace_back();
          nodes[it->second].ops.push_back(&op);
          nodeOf[&op] = it->second;
          continue;
        }
        nodeOf[&op] = nodes.size();
        nodes.emplace_back();
        nodes.back().ops.push_back(&op);
      }
    for (auto [channel, node] : channelNode)
      if (nodes[node].ops.size() != 2) {
        nodes[node].ops.front()->emitOpError()
            << "channel " << channel << " has no matching end";
        return signalPassFailure();
      }
    // Dependencies: every use of a value within a core.
    for (unsigned n = 0; n < nodes.size(); ++n) {
      nodes[n].sequence = n;
      for (Operation *op : nodes[n].ops)
        for (Value result : op->getResults())
          for (Operation *user : result.getUsers()) {
            Operation *top = user;
            while (!nodeOf.count(top))
              top = top->getParentOp();
            unsigned to = nodeOf[top];
            if (to != n) {
              nodes[n].succs.push_back(to);
              ++nodes[to].pending;
            }
          }
    }
    // Keys from the schedule: a compute at its start; the work that produces
    // data for a compute (loads, views, receives) just before it; sends and
    // stores as soon as their data is ready.
    auto isCompute = [](Operation *op) { return isa<ComputeOpInterface>(op); };
    SmallVector<unsigned> topo;
    {
      SmallVector<unsigned> pending(nodes.size());
      for (unsigned n = 0; n < nodes.size(); ++n)
        pending[n] = nodes[n].pending;
      SmallVector<unsigned> work;
      for (unsigned n = 0; n < nodes.size(); ++n)
        if (!pending[n])
          work.push_back(n);
      while (!work.empty()) {
        unsigned n = work.pop_back_val();
        topo.push_back(n);
        for (unsigned s : nodes[n].succs)
          if (--pending[s] == 0)
            work.push_back(s);
      }
      if (topo.size() != nodes.size()) {
        module.emitError("the core programs have cyclic dependencies");
        return signalPassFailure();
      }
    }
    // Forward: the time data is ready (a compute's finish).
    std::vector<double> ready(nodes.size(), 0);
    for (unsigned n : topo) {
      Operation *op = nodes[n].ops.front();
      if (isCompute(op))
        ready[n] = getTimeAttr(op, kFinishAttr);
      for (unsigned s : nodes[n].succs)
        ready[s] = std::max(ready[s], ready[n]);
    }
    // Backward: the work feeding a compute takes the compute's start.
    std::vector<double> needed(nodes.size(), std::numeric_limits<double>::infinity());
    for (unsigned n : llvm::reverse(topo)) {
      Operation *op = nodes[n].ops.front();
      if (isCompute(op))
        needed[n] = getTimeAttr(op, kStartAttr);
      else
        for (unsigned s : nodes[n].succs)
          needed[n] = std::min(needed[n], needed[s]);
    }
    auto pushes = [&](unsigned n) {
      return nodes[n].ops.size() == 2 || isa<StoreOp>(nodes[n].ops.front());
    };
    for (unsigned n = 0; n < nodes.size(); ++n) {
      Operation *op = nodes[n].ops.front();
      nodes[n].key = isCompute(op) ? needed[n]
                     : pushes(n) || std::isinf(needed[n]) ? ready[n]
                                                          : needed[n];
    }
    // At equal times, pushing data out (sends, stores) goes first: a waiting
    // receiver is released before the core starts other work.
    auto later = [&](unsigned a, unsigned b) {
      if (nodes[a].key != nodes[b].key)
        return nodes[a].key > nodes[b].key;
      if (pushes(a) != pushes(b))
        return pushes(b);
      return nodes[a].sequence > nodes[b].sequence;
    };
    std::priority_queue<unsigned, std::vector<unsigned>, decltype(later)> queue(later);
    for (unsigned n = 0; n < nodes.size(); ++n)
      if (!nodes[n].pending)
        queue.push(n);
    while (!queue.empty()) {
      unsigned n = queue.top();
      queue.pop();
      for (Operation *op : nodes[n].ops)
        op->moveBefore(op->getBlock(), op->getBlock()->end());
      for (unsigned s : nodes[n].succs)
        if (--nodes[s].pending == 0)
          queue.push(s);
    }
    if (failed(replayChannels(module)))
      signalPassFailure();
  }
};
} // namespace
