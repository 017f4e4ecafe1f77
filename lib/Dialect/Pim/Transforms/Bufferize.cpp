//===- Bufferize.cpp - stage 8: One-Shot Bufferize ------------------------===//
//
// One-Shot Bufferize turns every pim.core into memref code; results are
// written in place where the destinations allow it (Spatial-to-PIM gives the
// last instruction of a lane its row of the batch's result as destination).
// Allocations are pim.alloc (placed by liveness planning). The copies it
// inserts for insert_slice are removed where they copy a buffer onto itself
// (after CSE merges identical views); the others become pim.lmv, counted as
// runtime copies. Cores share no tensors, so each is bufferized on its own,
// in parallel when the context is multithreaded.
//
//===----------------------------------------------------------------------===//

#include "pimc/Dialect/Pim/PimDialect.h"
#include "pimc/Dialect/Pim/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
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
    if (failed(bufferization::runOneShotBufferize(core, options)))
      return failure();
    IRRewriter rewriter(core.getContext());
    DominanceInfo dominance;
    eliminateCommonSubExpressions(rewriter, dominance, core);
    if (failed(applyPatternsAndFoldGreedily(core, copyPatterns)))
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
