//===- Passes.h - onnx dialect passes ---------------------------*- C++ -*-===//
#ifndef PIMC_DIALECT_ONNX_TRANSFORMS_PASSES_H
#define PIMC_DIALECT_ONNX_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace pimc::onnx {
/// On a convolution onnx-pack-pixels made: how many neighbouring pixels it
/// computes with one matrix.
constexpr llvm::StringLiteral kPackedPixelsAttr = "pimc.packed_pixels";

/// Stage 1, graph canonicalization, as pimc compile runs it on a function:
/// onnx-canonicalize, onnx-channels-last, then onnx-canonicalize again (and
/// onnx-pack-pixels, for the module's chip, with `packPixels`).
void addCanonicalizationPasses(mlir::OpPassManager &func, bool packPixels = false);

#define GEN_PASS_DECL
#include "pimc/Dialect/Onnx/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "pimc/Dialect/Onnx/Transforms/Passes.h.inc"
} // namespace pimc::onnx

#endif // PIMC_DIALECT_ONNX_TRANSFORMS_PASSES_H
