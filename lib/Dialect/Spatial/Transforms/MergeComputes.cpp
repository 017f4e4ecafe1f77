//===- MergeComputes.cpp - stage 3: graph and trivial merge ---------------===//
//
// A compute whose results feed only one consumer, which has no other
// producer, can run inside that consumer without losing parallelism: the
// consumer could not start before it anyway and nothing else waits for it.
// Such chains are merged into one compute (fewer transfers, one placement).
//
//===----------------------------------------------------------------------===//

#include "pimc/Dialect/Pim/ModuleArch.h"
#include "pimc/Dialect/Spatial/SpatialUtils.h"
#include "pimc/Dialect/Spatial/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace pimc::spat {
#define GEN_PASS_DEF_SPATMERGECOMPUTES
#include "pimc/Dialect/Spatial/Transforms/Passes.h.inc"
} // namespace pimc::spat

using namespace mlir;
using namespace pimc;
using namespace pimc::spat;

namespace {

/// The compute a value comes from through single-source views, if any.
ComputeOpInterface producerOf(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto compute = dyn_cast<ComputeOpInterface>(def))
      return compute;
    if (!isa<ReshapeOp, tensor::ExtractSliceOp>(def))
      return {};
    value = def->getOperand(0);
  }
  return {};
}

/// Adds to `found` the computes whose results reach `values` through
/// non-compute operations, until it holds `limit` of them. Breadth first, each
/// operation once: a tensor assembled from many computes shows two of them
/// after a step or two, wherever its chain of insertions starts.
void collectProducers(ValueRange values, llvm::SmallPtrSetImpl<Operation *> &found,
                      size_t limit) {
  SmallVector<Value> queue(values);
  llvm::SmallPtrSet<Operation *, 16> visited;
  for (size_t next = 0; next < queue.size() && found.size() < limit; ++next) {
    Operation *def = queue[next].getDefiningOp();
    if (!def || !visited.insert(def).second)
      continue;
    if (isa<ComputeOpInterface>(def))
      found.insert(def);
    else
      llvm::append_range(queue, def->getOperands());
  }
}

/// Merges `producer` into `consumer` when the producer's results reach only
/// the consumer and the consumer reads no other compute.
struct MergeChain : public OpInterfaceRewritePattern<ComputeOpInterface> {
  MergeChain(MLIRContext *context, const Arch &arch)
      : OpInterfaceRewritePattern(context), arch(arch) {}

  LogicalResult matchAndRewrite(ComputeOpInterface consumer,
                                PatternRewriter &rewriter) const override {
    llvm::SmallPtrSet<Operation *, 2> producers;
    collectProducers(consumer->getOperands(), producers, /*limit=*/2);
    if (producers.size() != 1)
      return failure(); // none, or several that may run in parallel
    auto producer = cast<ComputeOpInterface>(*producers.begin());
    // Each input from the producer must be one of its results, seen through
    // views only (not assembled with other data).
    for (Value input : consumer->getOperands()) {
      if (producerOf(input) == producer)
        continue;
      llvm::SmallPtrSet<Operation *, 1> reached;
      collectProducers(input, reached, /*limit=*/1);
      if (!reached.empty())
        return failure();
    }
    if (producer->getBlock() != consumer->getBlock() ||
        producer.getLaneCount() != consumer.getLaneCount())
      return failure();
    // Every use of the producer must be (a view used only by) the consumer.
    bool batch = consumer.getLaneCount() > 1;
    for (Value result : producer->getResults())
      for (OpOperand &use : result.getUses()) {
        Operation *user = use.getOwner();
        if (user == consumer.getOperation()) {
          // In a batch, per-lane data must stay per-lane.
          if (batch && !llvm::is_contained(consumer.getLaneInputs(), use.get()))
            return failure();
          continue;
        }
        if (batch || !isa<ReshapeOp, tensor::ExtractSliceOp>(user) ||
            !user->hasOneUse() || *user->user_begin() != consumer.getOperation())
          return failure();
      }
    if (crossbarsOf(producer, arch) + crossbarsOf(consumer, arch) >
        arch.matrix.xbarArrayCount)
      return failure();
    // The merged compute runs where the copy of weights it uses is; no
    // compute can use two.
    auto copyAttr = dialectOf(producer).getCopyAttrHelper();
    IntegerAttr copy = copyAttr.getAttr(producer);
    if (IntegerAttr consumerCopy = copyAttr.getAttr(consumer)) {
      if (copy)
        return failure();
      copy = consumerCopy;
    }

    // The consumer's inputs that come from the producer are computed inside
    // the merged body; the rest become inputs of the merged compute.
    auto fromProducer = [&](Value input) {
      return producerOf(input) == producer;
    };
    SmallVector<Value> laneInputs(producer.getLaneInputs());
    SmallVector<Value> sharedInputs(producer.getSharedInputs());
    for (Value input : consumer.getLaneInputs())
      if (!fromProducer(input))
        laneInputs.push_back(input);
    for (Value input : consumer.getSharedInputs())
      if (!fromProducer(input))
        sharedInputs.push_back(input);
    SmallVector<TileAttr> tiles;
    for (Attribute tile : producer.getTiles())
      tiles.push_back(cast<TileAttr>(tile));
    int64_t tileShift = tiles.size();
    for (Attribute tile : consumer.getTiles())
      tiles.push_back(cast<TileAttr>(tile));
    SmallVector<Type> laneResultTypes;
    for (Value yielded : cast<YieldOp>(consumer.getBodyBlock().getTerminator()).getValues())
      laneResultTypes.push_back(yielded.getType());

    rewriter.setInsertionPoint(consumer);
    ComputeOpInterface merged = buildCompute(
        rewriter, consumer.getLoc(), consumer.getLaneCount(), laneInputs,
        sharedInputs, tiles, laneResultTypes,
        [&](OpBuilder &b, Location, ValueRange args) -> SmallVector<Value> {
          // Merged arguments: producer lane, consumer lane (kept), producer
          // shared, consumer shared (kept).
          size_t pLane = producer.getLaneInputs().size();
          size_t pShared = producer.getSharedInputs().size();
          size_t keptLane = laneInputs.size() - pLane;
          IRMapping producerMap, consumerMap;
          Block &pBody = producer.getBodyBlock();
          for (size_t i = 0; i < pLane; ++i)
            producerMap.map(pBody.getArgument(i), args[i]);
          for (size_t i = 0; i < pShared; ++i)
            producerMap.map(pBody.getArgument(pLane + i), args[pLane + keptLane + i]);
          for (Operation &op : pBody.without_terminator())
            b.clone(op, producerMap);
          SmallVector<Value> produced;
          for (Value yielded : cast<YieldOp>(pBody.getTerminator()).getValues())
            produced.push_back(producerMap.lookup(yielded));
          // A consumer input from the producer, rebuilt inside the body: the
          // per-lane yield itself, or the views of a whole yield.
          auto rebuild = [&](Value input) -> Value {
            SmallVector<Operation *> views;
            Value root = input;
            while (!isa<OpResult>(root) ||
                   root.getDefiningOp() != producer.getOperation()) {
              views.push_back(root.getDefiningOp());
              root = root.getDefiningOp()->getOperand(0);
            }
            Value value = produced[cast<OpResult>(root).getResultNumber()];
            for (Operation *view : llvm::reverse(views)) {
              IRMapping viewMap;
              viewMap.map(view->getOperand(0), value);
              value = b.clone(*view, viewMap)->getResult(0);
            }
            return value;
          };
          Block &cBody = consumer.getBodyBlock();
          size_t cLane = consumer.getLaneInputs().size();
          size_t nextLane = pLane, nextShared = pLane + keptLane + pShared;
          for (auto [i, input] : llvm::enumerate(consumer->getOperands())) {
            Value mapped;
            if (fromProducer(input))
              mapped = rebuild(input);
            else if (i < cLane)
              mapped = args[nextLane++];
            else
              mapped = args[nextShared++];
            consumerMap.map(cBody.getArgument(i), mapped);
          }
          for (Operation &op : cBody.without_terminator()) {
            Operation *clone = b.clone(op, consumerMap);
            if (auto mvm = dyn_cast<MVMOp>(clone))
              mvm.setTile(mvm.getTile() + tileShift);
          }
          SmallVector<Value> results;
          for (Value yielded : cast<YieldOp>(cBody.getTerminator()).getValues())
            results.push_back(consumerMap.lookup(yielded));
          return results;
        });
    if (copy)
      copyAttr.setAttr(merged, copy);
    // It is part of the consumer's node, whose location it has.
    auto layerAttr = dialectOf(consumer).getLayerAttrHelper();
    if (IntegerAttr layer = layerAttr.getAttr(consumer))
      layerAttr.setAttr(merged, layer);
    rewriter.replaceOp(consumer, merged->getResults());
    // The views between the two have no users now; erase them from the
    // consumer's side, then the producer.
    SmallVector<Operation *> dead;
    SmallVector<Value> pending(producer->getResults());
    while (!pending.empty()) {
      Value value = pending.pop_back_val();
      for (Operation *user : value.getUsers()) {
        dead.push_back(user);
        llvm::append_range(pending, user->getResults());
      }
    }
    for (Operation *view : llvm::reverse(dead))
      rewriter.eraseOp(view);
    rewriter.eraseOp(producer);
    return success();
  }

  const Arch &arch;
};

struct SpatMergeComputesPass
    : public spat::impl::SpatMergeComputesBase<SpatMergeComputesPass> {
  using SpatMergeComputesBase::SpatMergeComputesBase;
  void runOnOperation() override {
    std::shared_ptr<const Arch> arch = archOf(getOperation());
    if (!arch)
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    patterns.add<MergeChain>(&getContext(), *arch);
    GreedyRewriteConfig config;
    config.useTopDownTraversal = true;
    // Merging leaves no dead ops or blocks to clean up.
    config.enableRegionSimplification = GreedySimplifyRegionLevel::Disabled;
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns),
                                            config)))
      signalPassFailure();
  }
};
} // namespace
