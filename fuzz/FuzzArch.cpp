//===- FuzzArch.cpp - the architecture and network parser -----------------===//
//
// Input: an architecture file, a NUL byte, and its network file.
//
//===----------------------------------------------------------------------===//

#include "pimc/Arch/Arch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef input(reinterpret_cast<const char *>(data), size);
  auto [arch, network] = input.split('\0');
  llvm::Expected<pimc::Arch> parsed = pimc::Arch::parse(arch, "", "fuzz", network);
  if (!parsed)
    llvm::consumeError(parsed.takeError());
  return 0;
}
