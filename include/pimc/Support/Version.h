//===- Version.h - which pimc this is ---------------------------*- C++ -*-===//

#ifndef PIMC_SUPPORT_VERSION_H
#define PIMC_SUPPORT_VERSION_H

#include "llvm/ADT/StringRef.h"

namespace pimc {

/// "pimc 0.2.0".
llvm::StringRef pimcVersion();
/// The git commit pimc was built from (12 hex digits, "-dirty" when the
/// tree had uncommitted changes), or "unknown".
llvm::StringRef pimcCommit();

} // namespace pimc

#endif // PIMC_SUPPORT_VERSION_H
