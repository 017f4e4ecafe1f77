//===- Version.cpp - which pimc this is -----------------------------------===//

#include "pimc/Support/Version.h"

llvm::StringRef pimc::pimcVersion() { return "pimc " PIMC_VERSION; }

llvm::StringRef pimc::pimcCommit() {
  return
#include "pimc/Support/Commit.inc"
      ;
}
