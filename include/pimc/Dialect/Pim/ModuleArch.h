//===- ModuleArch.h - the architecture a module is compiled for -*- C++ -*-===//
//
// The chip is an attribute of the module (pim.arch, set by pimc-set-arch or
// the driver) rather than an option of each pass: every pass reads it with
// archOf, and a module printed at any stage compiles on for the same chip.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_DIALECT_PIM_MODULEARCH_H
#define PIMC_DIALECT_PIM_MODULEARCH_H

#include "pimc/Arch/Arch.h"
#include "pimc/Dialect/Pim/PimDialect.h"

#include "mlir/IR/BuiltinOps.h"

#include <memory>

namespace pimc {

/// Attaches `arch` to `module` as pim.arch (the texts it was parsed from),
/// or, for the built-in chip, removes pim.arch.
void setArch(mlir::ModuleOp module, const Arch &arch);

/// The architecture `attr` carries, parsed once for every attribute alike.
llvm::Expected<std::shared_ptr<const Arch>> parseArch(pim::ArchAttr attr);

/// The architecture `module` carries: the built-in chip-144 when it has no
/// pim.arch. Null, after an error at the module, when pim.arch is not one.
std::shared_ptr<const Arch> archOf(mlir::ModuleOp module);

} // namespace pimc

#endif // PIMC_DIALECT_PIM_MODULEARCH_H
