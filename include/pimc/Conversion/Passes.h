//===- Passes.h - dialect conversions ---------------------------*- C++ -*-===//
#ifndef PIMC_CONVERSION_PASSES_H
#define PIMC_CONVERSION_PASSES_H

#include "pimc/Dialect/Pim/PimDialect.h"
#include "pimc/Dialect/Spatial/SpatialDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace pimc {
#define GEN_PASS_DECL
#include "pimc/Conversion/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "pimc/Conversion/Passes.h.inc"
} // namespace pimc

#endif // PIMC_CONVERSION_PASSES_H
