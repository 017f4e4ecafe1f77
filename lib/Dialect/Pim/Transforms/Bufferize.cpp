//===- Bufferize.cpp - stage 8: One-Shot Bufferize ------------------------===//
//
// Destination tensors that are only inserted into a larger tensor are first
// replaced by slices of it (empty-tensor elimination), so that results are
// written in place; One-Shot Bufferize then turns every pim.core into memref
// code. Its allocations are pim.alloc (placed by liveness planning) and the
// copies it cannot avoid are pim.lmv, counted as runtime copies.
//
//===----------------------------------------------------------------------===//

#include "pimc/Dialect/Pim/PimDialect.h"
#include "pimc/Dialect/Pim/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

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
    options.memCpyFn = [](OpBuilder &b, Location loc, Value from,
                          Value to) -> LogicalResult {
      b.create<LMVOp>(loc, TypeRange{}, from, to);
      return success();
    };
    options.unknownTypeConverterFn = [](Value value, Attribute memorySpace,
                                        const bufferization::BufferizationOptions &) {
      auto tensor = cast<TensorType>(value.getType());
      return bufferization::getMemRefTypeWithFullyDynamicLayout(tensor, memorySpace);
    };
    IRRewriter rewriter(&getContext());
    if (failed(bufferization::eliminateEmptyTensors(rewriter, module)) ||
        failed(bufferization::runOneShotBufferize(module, options)))
      return signalPassFailure();
  }
};
} // namespace
