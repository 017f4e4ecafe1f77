//===- Passes.h - onnx dialect passes ---------------------------*- C++ -*-===//
#ifndef PIMC_DIALECT_ONNX_TRANSFORMS_PASSES_H
#define PIMC_DIALECT_ONNX_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace pimc::onnx {
/// On a convolution onnx-pack-pixels made: how many neighbouring pixels it
/// computes with one matrix.
constexpr llvm::StringLiteral kPackedPixelsAttr = "pimc.packed_pixels";

#define GEN_PASS_DECL
#include "pimc/Dialect/Onnx/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "pimc/Dialect/Onnx/Transforms/Passes.h.inc"
} // namespace pimc::onnx

#endif // PIMC_DIALECT_ONNX_TRANSFORMS_PASSES_H
