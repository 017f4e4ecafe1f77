//===- ArchOption.h - the architecture of a pass ----------------*- C++ -*-===//
#ifndef PIMC_SUPPORT_ARCHOPTION_H
#define PIMC_SUPPORT_ARCHOPTION_H

#include "pimc/Arch/Arch.h"

#include "mlir/IR/Operation.h"

#include <optional>

namespace pimc {

/// The architecture a pass's `arch` option names (the built-in chip when it
/// is empty); on failure the error is emitted at `anchor`.
std::optional<Arch> loadArchOption(mlir::Operation *anchor, llvm::StringRef path);

} // namespace pimc

#endif // PIMC_SUPPORT_ARCHOPTION_H
