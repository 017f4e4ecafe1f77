//===- Version.cpp - which pimc this is -----------------------------------===//

#include "pimc/Support/Version.h"

#include "pimc/Support/Version.inc"

llvm::StringRef pimc::pimcVersion() { return "pimc " PIMC_VERSION; }

llvm::StringRef pimc::pimcCommit() { return PIMC_GIT_COMMIT; }
