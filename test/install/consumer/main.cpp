// Makes a 4x8 chip from the built-in one with pimc's libraries and loads it.
#include "pimc/Arch/Arch.h"
#include "pimc/Arch/ChipGenerator.h"

#include "llvm/Support/raw_ostream.h"

int main() {
  pimc::ChipParameters parameters;
  parameters.meshRows = 4;
  parameters.meshCols = 8;
  llvm::Expected<pimc::GeneratedChip> chip = pimc::generateChip(
      pimc::Arch::builtinDefaultJson(), "built-in chip-144", parameters);
  if (!chip) {
    llvm::errs() << llvm::toString(chip.takeError()) << "\n";
    return 1;
  }
  llvm::Expected<pimc::Arch> arch = pimc::Arch::parse(chip->archJson, "", "4x8",
                                                      llvm::StringRef(chip->networkJson));
  if (!arch) {
    llvm::errs() << llvm::toString(arch.takeError()) << "\n";
    return 1;
  }
  llvm::outs() << arch->coreCount << " cores, " << chip->networkName << ", "
               << static_cast<int64_t>(arch->nocLatencyNs(0, 31))
               << " ns per flit from core 0 to 31\n";
  return 0;
}
