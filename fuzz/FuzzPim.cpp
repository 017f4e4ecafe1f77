//===- FuzzPim.cpp - the .pim program decoder -----------------------------===//
//
// Input: a .pim file (the first byte chooses .json instead, for the JSON
// form of programs).
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "pimc/Target/Pimsim/Isa.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  bool json = data[0] == '[';
  std::string path = pimc::fuzz::writeScratchFile(
      json ? "core_0.json" : "core_0.pim",
      llvm::StringRef(reinterpret_cast<const char *>(data), size));
  llvm::Expected<std::vector<pimc::isa::Instruction>> program = pimc::isa::readProgram(path);
  if (!program)
    llvm::consumeError(program.takeError());
  return 0;
}
