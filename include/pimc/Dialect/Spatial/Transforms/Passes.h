//===- Passes.h - spat dialect passes ---------------------------*- C++ -*-===//
#ifndef PIMC_DIALECT_SPATIAL_TRANSFORMS_PASSES_H
#define PIMC_DIALECT_SPATIAL_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace pimc::spat {
#define GEN_PASS_DECL
#include "pimc/Dialect/Spatial/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "pimc/Dialect/Spatial/Transforms/Passes.h.inc"
} // namespace pimc::spat

#endif // PIMC_DIALECT_SPATIAL_TRANSFORMS_PASSES_H
