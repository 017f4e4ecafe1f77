//===- Passes.h - pimsim-nn code generation pass ----------------*- C++ -*-===//
#ifndef PIMC_TARGET_PIMSIM_PASSES_H
#define PIMC_TARGET_PIMSIM_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace pimc {
#define GEN_PASS_DECL
#include "pimc/Target/Pimsim/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "pimc/Target/Pimsim/Passes.h.inc"
} // namespace pimc

#endif // PIMC_TARGET_PIMSIM_PASSES_H
