//===- OnnxDialect.h - the onnx dialect -------------------------*- C++ -*-===//
#ifndef PIMC_DIALECT_ONNX_ONNXDIALECT_H
#define PIMC_DIALECT_ONNX_ONNXDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "pimc/Reference/Reference.h"

#include "pimc/Dialect/Onnx/OnnxDialect.h.inc"

#define GET_OP_CLASSES
#include "pimc/Dialect/Onnx/OnnxOps.h.inc"

namespace pimc::onnx {
/// Element-wise work of one operand (Clip's bounds are scalars): it commutes
/// with any regrouping or permutation of its operand's elements.
inline bool isElementwiseUnary(mlir::Operation *op) {
  return mlir::isa<ReluOp, SigmoidOp, TanhOp, LeakyReluOp, ClipOp, IdentityOp>(op);
}
} // namespace pimc::onnx

#endif // PIMC_DIALECT_ONNX_ONNXDIALECT_H
