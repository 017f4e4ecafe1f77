//===- ArchOption.cpp - the architecture of a pass ------------------------===//

#include "pimc/Support/ArchOption.h"

std::optional<pimc::Arch> pimc::loadArchOption(mlir::Operation *anchor,
                                               llvm::StringRef path) {
  llvm::Expected<Arch> arch = Arch::loadOrDefault(path);
  if (!arch) {
    anchor->emitError(llvm::toString(arch.takeError()));
    return std::nullopt;
  }
  return std::move(*arch);
}
