//===- LoopOrder.h - the order of looping core programs ---------*- C++ -*-===//
//
// The nodes spat-order-communication orders, and the timing of programs
// that loop over one order: a send blocks until its receiver is there, so a
// core that runs ahead waits, and the order decides the round.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_DIALECT_SPATIAL_TRANSFORMS_LOOPORDER_H
#define PIMC_DIALECT_SPATIAL_TRANSFORMS_LOOPORDER_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <utility>
#include <vector>

namespace pimc::spat {

/// An operation of one core, or a channel: its send and its recv, on two.
struct OrderNode {
  llvm::SmallVector<mlir::Operation *, 2> ops;
  llvm::SmallVector<size_t, 2> cores; // indices of the cores it runs on
  double key = 0;                     // the lower, the more urgent
  double ns = 0;                      // its time on the chip
  /// A channel's sender is done after the handshake and the read of its
  /// data (this part of ns); the receiver, once the data has arrived and is
  /// written.
  double senderNs = 0;
  bool sendsFirst = true; // the sender is cores[0]
  bool compute = false;   // a compute, which the schedule timed
  llvm::SmallVector<unsigned> succs;  // the nodes that use its results
  unsigned pending = 0;               // its inputs' nodes
  bool isChannel() const { return cores.size() == 2; }
  /// Its time on its `k`th core.
  double nsOn(size_t k) const {
    return isChannel() && (k == 0) == sendsFirst ? senderNs : ns;
  }
};

/// Programs that all loop over `order` (every node once), timed over a few
/// rounds: a node starts when its cores are done with the nodes before it (a
/// channel when both ends are).
class LoopTiming {
public:
  LoopTiming(llvm::ArrayRef<OrderNode> nodes, size_t coreCount,
             llvm::ArrayRef<unsigned> order);

  /// Times `order` instead, in the storage it has (a search that times
  /// many orders of a large program allocates it once).
  void retime(llvm::ArrayRef<unsigned> order);

  /// The time of a round, over the later half of the rounds.
  double roundNs() const;

  /// The chain that held up the last round: walking back from the node that
  /// ends last, each channel one of whose cores came late from local work,
  /// with that work.
  std::vector<std::pair<unsigned, unsigned>> lateLocalWork() const;

private:
  double end(unsigned instance) const;

  llvm::ArrayRef<OrderNode> nodes;
  size_t coreCount;
  std::vector<double> start;    // of round r's copy of node n, at r * size + n
  std::vector<unsigned> heldBy; // the copy before it on the core it waited for
  std::vector<double> ends;     // of each round
};

/// The nodes in the order of their earliest starts if each had a core of
/// its own (ties by key): every core then takes its inputs, works and hands
/// its results on as the data flows through the pipeline.
std::vector<unsigned> dataFlowOrder(llvm::ArrayRef<OrderNode> nodes);

/// Shortens the round of looping programs: a channel whose core came late
/// from local work that does not feed the channel lets that work wait until
/// after it, while that shortens the round.
void shortenLoopRound(llvm::ArrayRef<OrderNode> nodes, size_t coreCount,
                      std::vector<unsigned> &order);

} // namespace pimc::spat

#endif // PIMC_DIALECT_SPATIAL_TRANSFORMS_LOOPORDER_H
