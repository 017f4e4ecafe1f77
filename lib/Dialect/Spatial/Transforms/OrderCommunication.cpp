//===- OrderCommunication.cpp - stage 6: deferred communication -----------===//
//
// A send blocks until its receiver reaches the matching recv, and a core runs
// one instruction at a time, so the order of work and transfers within each
// core decides both whether the program deadlocks and how long cores wait.
// The order is found by simulating the cores with the timing model: a core
// that becomes free takes a transfer whose peer is free and waiting for it,
// else the most urgent local work that is ready (for one inference, halfway
// between the schedule's time and the latest start that keeps the critical
// path; for looping programs, the schedule's time; the assembly of a
// compute's inputs only for its next few computes), unless a more urgent
// send's receiver is about to be free, else it waits. The two ends of a
// channel run at one simulated time; each core's program is its operations
// in the order of their simulated start.
// Every core then meets its channels in one global order, and the first
// unfinished channel in that order always has both ends ready: the program
// cannot deadlock (and the pass checks it by replaying the channels).
// Programs that loop are simulated over several rounds too, and their order
// shortened (LoopOrder.h): one round from idle cores is not the steady state.
//
//===----------------------------------------------------------------------===//

#include "pimc/Arch/CostModel.h"
#include "pimc/Dialect/Spatial/CostAnalysis.h"
#include "pimc/Dialect/Spatial/SpatialUtils.h"
#include "pimc/Dialect/Spatial/Transforms/LoopOrder.h"
#include "pimc/Dialect/Spatial/Transforms/Passes.h"
#include "pimc/Dialect/Pim/ModuleArch.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Threading.h"

#include <array>
#include <queue>
#include <set>

namespace pimc::spat {
#define GEN_PASS_DEF_SPATORDERCOMMUNICATION
#include "pimc/Dialect/Spatial/Transforms/Passes.h.inc"
} // namespace pimc::spat

using namespace mlir;
using namespace pimc;
using namespace pimc::spat;

namespace {

int64_t bytesOf(Value value, const Arch &arch) {
  return cast<ShapedType>(value.getType()).getNumElements() * arch.inputBytes();
}

/// The time of a node: computes and transfers by the timing model, loads and
/// stores by the global memory, copies into place by local memory; views
/// cost nothing.
double nodeNs(const OrderNode &node, int64_t coreId, int64_t peerId, const CostModel &cost) {
  const Arch &arch = cost.getArch();
  Operation *op = node.ops.front();
  if (node.isChannel()) {
    auto send = isa<SendOp>(op) ? cast<SendOp>(op) : cast<SendOp>(node.ops[1]);
    int64_t from = isa<SendOp>(op) ? coreId : peerId, to = isa<SendOp>(op) ? peerId : coreId;
    return cost.transferNs(from, to, bytesOf(send.getValue(), arch));
  }
  if (auto compute = dyn_cast<ComputeOpInterface>(op))
    return computeNs(compute, cost);
  if (auto load = dyn_cast<LoadOp>(op))
    return cost.loadNs(coreId, bytesOf(load.getResult(), arch));
  if (auto store = dyn_cast<StoreOp>(op))
    return cost.storeNs(coreId, bytesOf(store.getValue(), arch));
  if (auto fill = dyn_cast<FillOp>(op))
    return cost.localWriteNs(bytesOf(fill.getResult(), arch));
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
    int64_t bytes = bytesOf(insert.getSource(), arch);
    return cost.localReadNs(bytes) + cost.localWriteNs(bytes);
  }
  return 0;
}

/// The computes of a core whose inputs may be assembled ahead of time. Of 1
/// to 8 on the benchmark models, 3 and 4 were best: fewer leave the core
/// idle, more let the assemblies run ahead. With bands of half rows and of
/// shared copies, 4 is faster than 3 on five of six (googlenet +0.3%).
constexpr size_t kPreparedComputes = 4;

/// Looping programs: the most rounds a simulation runs before the round
/// whose order they take. Each of 1 to 6 gave the shortest loop on some
/// layer-stage plan of the benchmark models.
constexpr unsigned kSimulatedRounds = 6;

/// The simulation that orders the nodes: their start order. With `rounds`
/// above 1 the programs loop: a core starts the nodes of a round once it
/// has run all of the round before, so a round meets the cores as the
/// rounds before left them, and the order is the last round's.
class OrderSimulation {
public:
  OrderSimulation(llvm::ArrayRef<OrderNode> nodes, llvm::ArrayRef<double> keys,
                  size_t coreCount, unsigned rounds = 1)
      : nodes(nodes), keys(keys), rounds(rounds), cores(coreCount),
        pending(nodes.size() * rounds), deferred(coreCount) {}

  /// The nodes in the order of their simulated start, or nothing if some
  /// never start.
  std::optional<std::vector<unsigned>> run() {
    size_t count = nodes.size();
    for (unsigned n = 0; n < count; ++n) {
      for (size_t c : nodes[n].cores)
        ++cores[c].perRound;
      if (nodes[n].compute) {
        cores[nodes[n].cores[0]].computes.push_back(n);
        cores[nodes[n].cores[0]].computeKeys.insert(keys[n]);
      }
    }
    for (size_t c = 0; c < cores.size(); ++c) {
      cores[c].left = cores[c].perRound;
      deferred[c].resize(rounds);
    }
    for (unsigned r = 0; r < rounds; ++r)
      for (unsigned n = 0; n < count; ++n) {
        pending[r * count + n] = nodes[n].pending;
        if (!nodes[n].pending)
          makeReady(r * count + n);
      }
    for (size_t c = 0; c < cores.size(); ++c)
      tryStart(c, 0);
    while (!events.empty()) {
      auto [t, sequence, i] = *events.begin();
      events.erase(events.begin());
      lastEnd = t;
      const OrderNode &node = nodes[i % count];
      std::set<size_t> touched(node.cores.begin(), node.cores.end());
      for (size_t c : node.cores) {
        cores[c].busy = false;
        if (!cores[c].left && cores[c].round + 1 < rounds)
          nextRound(c);
      }
      unsigned base = i - i % count;
      for (unsigned s : node.succs)
        if (--pending[base + s] == 0) {
          makeReady(base + s);
          touched.insert(nodes[s].cores.begin(), nodes[s].cores.end());
        }
      for (size_t c : touched)
        tryStart(c, t);
    }
    if (order.size() != count * rounds)
      return std::nullopt;
    std::vector<unsigned> last;
    for (unsigned i : order)
      if (i >= (rounds - 1) * count)
        last.push_back(i - (rounds - 1) * count);
    return last;
  }

  /// When the last node ended (after run()).
  double end() const { return lastEnd; }

private:
  // Node instances: round r's copy of node n is r * nodes.size() + n.
  struct CoreState {
    bool busy = false;
    double freeAt = 0; // when the node it runs ends
    unsigned round = 0;
    size_t perRound = 0, left = 0; // nodes a round, of this round not started
    std::vector<unsigned> computes;
    std::multiset<double> computeKeys; // of this round's computes not started yet
    std::set<std::pair<double, unsigned>> local, channels; // ready, by key
  };

  const OrderNode &nodeOf(unsigned i) const { return nodes[i % nodes.size()]; }
  double keyOf(unsigned i) const { return keys[i % nodes.size()]; }
  unsigned roundOf(unsigned i) const { return i / nodes.size(); }

  void makeReady(unsigned i) {
    const OrderNode &node = nodeOf(i);
    for (size_t c : node.cores) {
      if (cores[c].round != roundOf(i)) {
        deferred[c][roundOf(i)].push_back(i);
        continue;
      }
      (node.isChannel() ? cores[c].channels : cores[c].local).insert({keyOf(i), i});
    }
  }

  void nextRound(size_t c) {
    CoreState &core = cores[c];
    ++core.round;
    core.left = core.perRound;
    for (unsigned n : core.computes)
      core.computeKeys.insert(keys[n]);
    for (unsigned i : deferred[c][core.round])
      (nodeOf(i).isChannel() ? core.channels : core.local).insert({keyOf(i), i});
    deferred[c][core.round].clear();
  }

  void start(unsigned i, double t) {
    const OrderNode &node = nodeOf(i);
    for (size_t c : node.cores) {
      cores[c].busy = true;
      cores[c].freeAt = t + node.ns;
      --cores[c].left;
      (node.isChannel() ? cores[c].channels : cores[c].local).erase({keyOf(i), i});
    }
    if (node.compute) {
      CoreState &core = cores[node.cores[0]];
      core.computeKeys.erase(core.computeKeys.find(keyOf(i)));
    }
    order.push_back(i);
    events.insert({t + node.ns, sequence++, i});
  }

  /// Lets a free core start something at time `t`.
  void tryStart(size_t c, double t) {
    CoreState &core = cores[c];
    if (core.busy)
      return;
    // A transfer whose peer is free (and so waiting) first: it releases the
    // peer at once.
    for (auto [key, i] : core.channels) {
      const OrderNode &node = nodeOf(i);
      size_t peer = node.cores[0] == c ? node.cores[1] : node.cores[0];
      if (!cores[peer].busy && cores[peer].channels.count({key, i})) {
        start(i, t);
        return;
      }
    }
    // Else local work. The work that assembles a compute's inputs (fills,
    // copies into place, loads) waits until that compute is one of the next
    // few: its buffer lives from then on, and a core that ran ahead filled
    // its memory with the inputs of computes far ahead.
    double prepareUpTo = core.computeKeys.size() < kPreparedComputes
                             ? std::numeric_limits<double>::infinity()
                             : *std::next(core.computeKeys.begin(), kPreparedComputes - 1);
    auto pick = llvm::find_if(core.local, [&](const std::pair<double, unsigned> &entry) {
      const OrderNode &node = nodeOf(entry.second);
      return node.compute || isa<StoreOp>(node.ops.front()) || entry.first <= prepareUpTo;
    });
    if (pick == core.local.end())
      return;
    // Unless a more urgent send's receiver is free within a quarter of that
    // work's time: the receiver would wait for all of it.
    auto [localKey, local] = *pick;
    for (auto [key, i] : core.channels) {
      if (key >= localKey)
        break;
      const OrderNode &node = nodeOf(i);
      bool first = node.cores[0] == c;
      size_t peer = node.cores[first ? 1 : 0];
      if (isa<SendOp>(node.ops[first ? 0 : 1]) &&
          cores[peer].freeAt < t + nodeOf(local).ns / 4)
        return;
    }
    start(local, t);
  }

  llvm::ArrayRef<OrderNode> nodes;
  llvm::ArrayRef<double> keys; // of each node, in place of its own
  unsigned rounds;
  std::vector<CoreState> cores;
  std::vector<unsigned> pending; // of each node instance
  std::vector<std::vector<std::vector<unsigned>>> deferred; // [core][round]: ready early
  std::set<std::tuple<double, unsigned, unsigned>> events; // (end, sequence, instance)
  unsigned sequence = 0;
  std::vector<unsigned> order;
  double lastEnd = 0;
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
  using SpatOrderCommunicationBase::SpatOrderCommunicationBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::shared_ptr<const Arch> arch = archOf(module);
    if (!arch)
      return signalPassFailure();
    CostModel cost(*arch);
    std::vector<OrderNode> nodes;
    DenseMap<Operation *, unsigned> nodeOf;
    DenseMap<int64_t, unsigned> channelNode;
    SmallVector<CoreOp> cores(module.getOps<CoreOp>());
    for (auto [index, core] : llvm::enumerate(cores))
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
          nodes[it->second].cores.push_back(index);
          nodeOf[&op] = it->second;
          continue;
        }
        nodeOf[&op] = nodes.size();
        nodes.emplace_back();
        nodes.back().ops.push_back(&op);
        nodes.back().cores.push_back(index);
        nodes.back().compute = isa<ComputeOpInterface>(op);
      }
    for (auto [channel, node] : channelNode)
      if (nodes[node].ops.size() != 2) {
        nodes[node].ops.front()->emitOpError()
            << "channel " << channel << " has no matching end";
        return signalPassFailure();
      }
    // Dependencies: every use of a value within a core.
    for (unsigned n = 0; n < nodes.size(); ++n) {
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
      if (nodes[n].compute)
        ready[n] = finishOf(nodes[n].ops.front());
      for (unsigned s : nodes[n].succs)
        ready[s] = std::max(ready[s], ready[n]);
    }
    // Backward: the work feeding a compute takes the compute's start.
    std::vector<double> needed(nodes.size(), std::numeric_limits<double>::infinity());
    for (unsigned n : llvm::reverse(topo)) {
      if (nodes[n].compute)
        needed[n] = startOf(nodes[n].ops.front());
      else
        for (unsigned s : nodes[n].succs)
          needed[n] = std::min(needed[n], needed[s]);
    }
    auto pushes = [&](unsigned n) {
      return nodes[n].isChannel() || isa<StoreOp>(nodes[n].ops.front());
    };
    for (unsigned n = 0; n < nodes.size(); ++n)
      nodes[n].key = nodes[n].compute                      ? needed[n]
                     : pushes(n) || std::isinf(needed[n]) ? ready[n]
                                                          : needed[n];
    for (OrderNode &node : nodes) {
      int64_t self = cores[node.cores[0]].getId();
      int64_t peer = node.cores.size() == 2 ? int64_t(cores[node.cores[1]].getId()) : self;
      node.ns = nodeNs(node, self, peer, cost);
      if (node.isChannel()) {
        node.sendsFirst = isa<SendOp>(node.ops.front());
        int64_t from = node.sendsFirst ? self : peer, to = node.sendsFirst ? peer : self;
        auto send = cast<SendOp>(node.ops[node.sendsFirst ? 0 : 1]);
        node.senderNs = cost.transferSenderNs(from, to, bytesOf(send.getValue(), cost.getArch()));
      }
    }
    // The schedule's times alone let a core run work whose successors have
    // time to spare before work on the longest path to the end; the latest
    // start that does not delay the end (the critical path less the longest
    // path from the node) alone runs long chains ahead of the rest. Keys
    // between them, `towardLatest` of the way:
    std::vector<double> tail(nodes.size(), 0); // the longest path from a node to the end
    for (unsigned n : llvm::reverse(topo)) {
      for (unsigned s : nodes[n].succs)
        tail[n] = std::max(tail[n], tail[s]);
      tail[n] += nodes[n].ns;
    }
    double criticalPath = tail.empty() ? 0 : *llvm::max_element(tail);
    auto keyedToward = [&](double towardLatest) {
      std::vector<double> keys(nodes.size());
      for (unsigned n = 0; n < keys.size(); ++n)
        keys[n] = (1 - towardLatest) * nodes[n].key + towardLatest * (criticalPath - tail[n]);
      return keys;
    };
    // The simulations only read the IR: they run in parallel.
    std::optional<std::vector<unsigned>> order;
    if (throughput) {
      // Looping programs: of the orders of 1 to kSimulatedRounds rounds, with
      // the schedule's times or halfway to the latest start as keys (each
      // the best on some benchmark model), the one whose loop has the
      // shortest round is kept, and shortened further.
      constexpr std::array<double, 2> towardLatest = {0, 0.5};
      std::array<std::optional<std::vector<unsigned>>, 2 * kSimulatedRounds> trialOrders;
      parallelFor(&getContext(), 0, trialOrders.size(), [&](size_t i) {
        std::vector<double> keys = keyedToward(towardLatest[i / kSimulatedRounds]);
        trialOrders[i] =
            OrderSimulation(nodes, keys, cores.size(), i % kSimulatedRounds + 1).run();
      });
      double bestRound = 0;
      for (std::optional<std::vector<unsigned>> &trial : trialOrders) {
        if (!trial)
          continue;
        double round = LoopTiming(nodes, cores.size(), *trial).roundNs();
        if (!order || round < bestRound) {
          order = std::move(trial);
          bestRound = round;
        }
      }
      // And the order of the data's flow. Each of the two is shortened, and
      // the shorter loop kept.
      std::array<std::vector<unsigned>, 2> finalists = {dataFlowOrder(nodes), {}};
      if (order)
        finalists[1] = std::move(*order);
      std::array<double, 2> rounds = {};
      parallelFor(&getContext(), 0, finalists.size(), [&](size_t i) {
        if (finalists[i].empty())
          return;
        shortenLoopRound(nodes, cores.size(), finalists[i]);
        rounds[i] = LoopTiming(nodes, cores.size(), finalists[i]).roundNs();
      });
      order = std::move(finalists[!finalists[1].empty() && rounds[1] < rounds[0]]);
    } else {
      // One inference: of the schedule's times, a fifth, half or 0.7 of the
      // way to the latest start, whichever order the simulation finishes
      // first. (0.5 and 0.7 were the best of 0.3 to 0.9 on the benchmark
      // models; since a compute of some row tiles receives only their
      // kernel rows, 0.2 shortens vgg16 by 5% and alexnet by 1%, 0 shortens
      // squeezenet1_0 by 1%.)
      constexpr std::array<double, 4> towardLatest = {0, 0.2, 0.5, 0.7};
      std::array<std::optional<std::vector<unsigned>>, 4> trialOrders;
      std::array<double, 4> trialEnds = {};
      parallelFor(&getContext(), 0, towardLatest.size(), [&](size_t i) {
        std::vector<double> keys = keyedToward(towardLatest[i]);
        OrderSimulation simulation(nodes, keys, cores.size());
        trialOrders[i] = simulation.run();
        trialEnds[i] = simulation.end();
      });
      double bestEnd = 0;
      for (size_t i = 0; i < towardLatest.size(); ++i)
        if (trialOrders[i] && (!order || trialEnds[i] < bestEnd)) {
          order = std::move(trialOrders[i]);
          bestEnd = trialEnds[i];
        }
    }
    if (!order) {
      module.emitError("the core programs cannot all be ordered");
      return signalPassFailure();
    }
    for (unsigned n : *order)
      for (Operation *op : nodes[n].ops)
        op->moveBefore(op->getBlock(), op->getBlock()->end());
    if (failed(replayChannels(module)))
      signalPassFailure();
  }
};
} // namespace
