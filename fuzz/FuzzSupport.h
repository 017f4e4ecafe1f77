//===- FuzzSupport.h - what the fuzz targets share --------------*- C++ -*-===//
//
// pimc reads files by path: each target writes its input into a directory
// of its own process and reads it back from there.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_FUZZ_FUZZSUPPORT_H
#define PIMC_FUZZ_FUZZSUPPORT_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace pimc::fuzz {

/// A directory of this process, created on first use.
const std::string &scratchDirectory();

/// Writes `data` to `name` in scratchDirectory(); returns its path.
std::string writeScratchFile(llvm::StringRef name, llvm::StringRef data);

} // namespace pimc::fuzz

#endif // PIMC_FUZZ_FUZZSUPPORT_H
