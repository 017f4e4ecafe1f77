//===- Bufferize.cpp - stage 8: One-Shot Bufferize ------------------------===//
//
// One-Shot Bufferize turns every pim.core into memref code; results are
// written in place where the destinations allow it (Spatial-to-PIM gives the
// last instruction of a lane its row of the batch's result as destination).
// Allocations are pim.alloc (placed by liveness planning). The copies it
// inserts for insert_slice are removed where they copy a buffer onto itself
// (after CSE merges identical views); the others become pim.lmv, counted as
// runtime copies. Cores share no tensors, so each is bufferized on its own,
// in parallel when the context is multithreaded. A core whose buffers are
// plain chains of versions (the IR Spatial-to-PIM writes) skips One-Shot's
// conflict analysis: all of it is in place, as that analysis would find.
//
//===----------------------------------------------------------------------===//

#include "pimc/Dialect/Pim/PimDialect.h"
#include "pimc/Dialect/Pim/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/Transforms/Bufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Threading.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace pimc::pim {
#define GEN_PASS_DEF_PIMBUFFERIZE
#include "pimc/Dialect/Pim/Transforms/Passes.h.inc"
} // namespace pimc::pim

using namespace mlir;
using namespace pimc;
using namespace pimc::pim;

namespace {
/// Spatial-to-PIM writes each buffer as a chain of versions: every write
/// (a destination-passing op into the buffer or a view of it, an insert)
/// consumes the current version and makes the next one, and the program
/// reads a version only while it is current. Where that holds for a whole
/// core, every operand bufferizes in place, and this linear walk shows it
/// without One-Shot's conflict analysis, whose cost grows with each alias
/// set (ValueBounds on every slice pair). Where it does not hold (a read of
/// an older version, even of a disjoint part; a loop writing a buffer from
/// outside it; an op it does not know), the core gets One-Shot's analysis.
class LinearVersions {
public:
  /// Whether every use in `core` reads or writes the current version.
  bool run(CoreOp core) { return walk(core.getBody().front(), nullptr); }

private:
  struct Version {
    unsigned root;
    unsigned number;
    /// The extract_slice whose view this value is (directly or written in
    /// place), for an insert of it back into the same place, and how many
    /// writes through the view made it.
    tensor::ExtractSliceOp view;
    unsigned viewWrites = 0;
  };
  struct Loop {
    Loop *outer;
    llvm::SmallDenseSet<unsigned, 4> carried; // roots of its iter_args
    unsigned firstRoot;                       // roots from here on are its own
  };

  bool isCurrent(Value v) const {
    auto it = versions.find(v);
    return it != versions.end() && it->second.number == current[it->second.root];
  }
  /// A write into root `root` inside `loop`: allowed for its own roots and
  /// its iter_args', not for a buffer that outlives an iteration.
  bool mayWrite(unsigned root, const Loop *loop) const {
    for (; loop; loop = loop->outer)
      if (root < loop->firstRoot && !loop->carried.contains(root))
        return false;
    return true;
  }
  void newRoot(Value v) {
    versions[v] = {unsigned(current.size()), 0, nullptr, 0};
    current.push_back(0);
  }
  /// `result` is the next version of `dest`'s buffer.
  bool write(Value dest, Value result, const Loop *loop) {
    if (!isCurrent(dest))
      return false;
    Version v = versions.lookup(dest);
    if (!mayWrite(v.root, loop))
      return false;
    versions[result] = {v.root, ++current[v.root], v.view, v.viewWrites + 1};
    return true;
  }
  static bool sameSlice(tensor::ExtractSliceOp view, tensor::InsertSliceOp insert) {
    return view.getSource() == insert.getDest() &&
           view.getStaticOffsets() == insert.getStaticOffsets() &&
           view.getStaticSizes() == insert.getStaticSizes() &&
           view.getStaticStrides() == insert.getStaticStrides() &&
           view.getOffsets() == insert.getOffsets() && view.getSizes() == insert.getSizes() &&
           view.getStrides() == insert.getStrides();
  }

  bool walk(Block &block, Loop *loop) {
    for (Operation &op : block) {
      if (!visit(op, loop))
        return false;
    }
    return true;
  }

  bool visit(Operation &op, Loop *loop) {
    auto isTensor = [](Value v) { return isa<TensorType>(v.getType()); };
    if (llvm::none_of(op.getOperands(), isTensor) && llvm::none_of(op.getResults(), isTensor) &&
        op.getNumRegions() == 0)
      return true;
    if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
      newRoot(empty);
      return true;
    }
    if (auto extract = dyn_cast<tensor::ExtractSliceOp>(op)) {
      auto it = versions.find(extract.getSource());
      if (it == versions.end())
        return false;
      versions[extract] = {it->second.root, it->second.number, extract, 0};
      return true;
    }
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op)) {
      auto it = versions.find(op.getOperand(0));
      if (it == versions.end())
        return false;
      versions[op.getResult(0)] = {it->second.root, it->second.number, nullptr, 0};
      return true;
    }
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
      if (!isCurrent(insert.getSource()))
        return false;
      Version source = versions.lookup(insert.getSource());
      // Written in place into a view of the same place, with no other
      // write to the buffer since the view was taken: nothing to copy.
      if (source.view && sameSlice(source.view, insert)) {
        Version dest = versions.lookup(insert.getDest());
        if (dest.root == source.root && dest.number + source.viewWrites == source.number) {
          versions[insert] = {source.root, source.number, dest.view,
                              dest.viewWrites + source.viewWrites};
          return true;
        }
      }
      // A copy into the destination, from another buffer.
      auto dest = versions.find(insert.getDest());
      if (dest == versions.end() || dest->second.root == source.root)
        return false;
      return write(insert.getDest(), insert, loop);
    }
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      Loop inner{loop, {}, unsigned(current.size())};
      for (auto [init, arg] : llvm::zip(forOp.getInitArgs(), forOp.getRegionIterArgs())) {
        if (!isCurrent(init))
          return false;
        Version v = versions.lookup(init);
        if (!inner.carried.insert(v.root).second || !mayWrite(v.root, loop))
          return false;
        // Each iteration sees the buffer through its iter_arg only: the
        // init is an older version from here on.
        versions[arg] = {v.root, ++current[v.root], nullptr, 0};
      }
      if (!walk(*forOp.getBody(), &inner))
        return false;
      auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
      for (auto [yielded, init, result] :
           llvm::zip(yield.getOperands(), forOp.getInitArgs(), forOp.getResults())) {
        Version v = versions.lookup(init);
        if (!isCurrent(yielded) || versions.lookup(yielded).root != v.root)
          return false;
        versions[result] = {v.root, current[v.root], nullptr, 0};
      }
      return true;
    }
    if (isa<scf::YieldOp>(op))
      return true; // checked by its loop
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(op)) {
      if (op.getDialect() != op.getParentOfType<CoreOp>()->getDialect())
        return false;
      for (OpOperand *input : dps.getDpsInputOperands())
        if (isTensor(input->get()) && !isCurrent(input->get()))
          return false;
      for (auto [init, result] : llvm::zip(dps.getDpsInits(), op.getResults()))
        if (!write(init, result, loop))
          return false;
      return true;
    }
    if (isa<SendOp, StoreOp>(op))
      return llvm::all_of(op.getOperands(),
                          [&](Value v) { return !isTensor(v) || isCurrent(v); });
    return false;
  }

  DenseMap<Value, Version> versions;
  std::vector<unsigned> current; // the current version of each root
};

/// Marks every tensor operand of `core` in place, with the equivalences
/// One-Shot's analysis would record, for insertTensorCopies.
void markAllInPlace(CoreOp core, bufferization::OneShotAnalysisState &state) {
  core.walk([&](Operation *op) {
    if (!state.getOptions().dynCastBufferizableOp(op))
      return;
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<TensorType>(operand.get().getType()))
        continue;
      state.bufferizeInPlace(operand);
      for (const bufferization::AliasingValue &alias : state.getAliasingValues(operand))
        if (alias.relation == bufferization::BufferRelation::Equivalent)
          state.unionEquivalenceClasses(operand.get(), alias.value);
    }
  });
}

struct PimBufferizePass : public pim::impl::PimBufferizeBase<PimBufferizePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bufferization::OneShotBufferizationOptions options;
    options.allowUnknownOps = false;
    options.bufferizeFunctionBoundaries = false;
    options.allocationFn = [](OpBuilder &b, Location loc, MemRefType type,
                              ValueRange, unsigned) -> FailureOr<Value> {
      // Local memory has no layout beyond the buffer's own rows.
      auto plain = MemRefType::get(type.getShape(), type.getElementType());
      return b.create<AllocOp>(loc, plain, IntegerAttr()).getResult();
    };
    options.unknownTypeConverterFn = [](Value value, Attribute memorySpace,
                                        const bufferization::BufferizationOptions &) {
      auto tensor = cast<TensorType>(value.getType());
      return bufferization::getMemRefTypeWithFullyDynamicLayout(tensor, memorySpace);
    };
    RewritePatternSet patterns(&getContext());
    memref::CopyOp::getCanonicalizationPatterns(patterns, &getContext());
    FrozenRewritePatternSet copyPatterns(std::move(patterns));
    // Cores are isolated from each other: each is bufferized on its own, in
    // parallel where the context allows it (diagnostics keep core order).
    auto cores = llvm::to_vector(module.getOps<CoreOp>());
    ParallelDiagnosticHandler diagnostics(&getContext());
    if (failed(failableParallelForEachN(&getContext(), 0, cores.size(), [&](size_t i) {
          diagnostics.setOrderIDForThread(i);
          LogicalResult result = bufferizeCore(cores[i], options, copyPatterns);
          diagnostics.eraseOrderIDForThread();
          return result;
        })))
      return signalPassFailure();
  }

  static LogicalResult
  bufferizeCore(CoreOp core, const bufferization::OneShotBufferizationOptions &options,
                const FrozenRewritePatternSet &copyPatterns) {
    if (LinearVersions().run(core)) {
      bufferization::OneShotAnalysisState state(core, options);
      markAllInPlace(core, state);
      if (failed(bufferization::insertTensorCopies(core, state)) ||
          failed(bufferization::bufferizeOp(core, options)))
        return failure();
    } else if (failed(bufferization::runOneShotBufferize(core, options))) {
      return failure();
    }
    IRRewriter rewriter(core.getContext());
    DominanceInfo dominance;
    eliminateCommonSubExpressions(rewriter, dominance, core);
    GreedyRewriteConfig config;
    config.enableRegionSimplification = GreedySimplifyRegionLevel::Disabled;
    if (failed(applyPatternsAndFoldGreedily(core, copyPatterns, config)))
      return failure();
    core.walk([&](memref::CopyOp copy) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<LMVOp>(copy, TypeRange{}, copy.getSource(),
                                         copy.getTarget());
    });
    return success();
  }
};
} // namespace
