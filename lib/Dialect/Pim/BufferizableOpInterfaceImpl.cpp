//===- BufferizableOpInterfaceImpl.cpp - One-Shot Bufferize for pim -------===//
//
// Every destination-passing pim op writes its `out` in place and reads only
// its other buffer operands; send and st only read.
//
//===----------------------------------------------------------------------===//

#include "pimc/Dialect/Pim/PimDialect.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace pimc::pim;

/// Rebuilds `op` with the buffers of its tensor operands and no results.
static FailureOr<Operation *> rebuildOnBuffers(Operation *op,
                                               RewriterBase &rewriter,
                                               const BufferizationOptions &options) {
  SmallVector<Value> operands;
  for (Value operand : op->getOperands()) {
    if (!isa<TensorType>(operand.getType())) {
      operands.push_back(operand);
      continue;
    }
    FailureOr<Value> buffer = getBuffer(rewriter, operand, options);
    if (failed(buffer))
      return failure();
    operands.push_back(*buffer);
  }
  rewriter.setInsertionPoint(op);
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(operands);
  state.addAttributes(llvm::to_vector(op->getDiscardableAttrs()));
  state.propertiesAttr = op->getPropertiesAsAttribute();
  return rewriter.create(state);
}

namespace {
template <typename OpT>
struct DpsOpModel
    : public DstBufferizableOpInterfaceExternalModel<DpsOpModel<OpT>, OpT> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &) const {
    return !cast<DestinationStyleOpInterface>(op).isDpsInit(&operand);
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options) const {
    auto dps = cast<DestinationStyleOpInterface>(op);
    FailureOr<Value> out = getBuffer(rewriter, dps.getDpsInits()[0], options);
    if (failed(out) || failed(rebuildOnBuffers(op, rewriter, options)))
      return failure();
    replaceOpWithBufferizedValues(rewriter, op, *out);
    return success();
  }
};

template <typename OpT>
struct ReadOnlyOpModel
    : public BufferizableOpInterface::ExternalModel<ReadOnlyOpModel<OpT>, OpT> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &, const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &, const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options) const {
    if (failed(rebuildOnBuffers(op, rewriter, options)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void pimc::pim::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, PimDialect *) {
    MVMOp::attachInterface<DpsOpModel<MVMOp>>(*context);
    VVAddOp::attachInterface<DpsOpModel<VVAddOp>>(*context);
    VVSubOp::attachInterface<DpsOpModel<VVSubOp>>(*context);
    VVMulOp::attachInterface<DpsOpModel<VVMulOp>>(*context);
    VVMaxOp::attachInterface<DpsOpModel<VVMaxOp>>(*context);
    VReluOp::attachInterface<DpsOpModel<VReluOp>>(*context);
    VSigmOp::attachInterface<DpsOpModel<VSigmOp>>(*context);
    VTanhOp::attachInterface<DpsOpModel<VTanhOp>>(*context);
    VMVOp::attachInterface<DpsOpModel<VMVOp>>(*context);
    LMVOp::attachInterface<DpsOpModel<LMVOp>>(*context);
    VRSLOp::attachInterface<DpsOpModel<VRSLOp>>(*context);
    VRSUOp::attachInterface<DpsOpModel<VRSUOp>>(*context);
    LLDIOp::attachInterface<DpsOpModel<LLDIOp>>(*context);
    LoadOp::attachInterface<DpsOpModel<LoadOp>>(*context);
    RecvOp::attachInterface<DpsOpModel<RecvOp>>(*context);
    SendOp::attachInterface<ReadOnlyOpModel<SendOp>>(*context);
    StoreOp::attachInterface<ReadOnlyOpModel<StoreOp>>(*context);
  });
}
