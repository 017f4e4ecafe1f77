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

#include "pimc/Dialect/Onnx/OnnxDialect.h.inc"

#define GET_OP_CLASSES
#include "pimc/Dialect/Onnx/OnnxOps.h.inc"

#endif // PIMC_DIALECT_ONNX_ONNXDIALECT_H
