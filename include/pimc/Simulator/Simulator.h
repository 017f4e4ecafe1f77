//===- Simulator.h - functional simulator of artifacts ----------*- C++ -*-===//
//
// Executes a compiled program directory instruction by instruction, as
// pimsim-nn would run it, but computing values: one f32 per element slot of
// each core's local memory and of global memory, crossbars programmed from
// weights.bin, global memory initialized from gmem.bin and the inputs.
// Transfers follow pimsim-nn's rendezvous semantics, so a program that would
// deadlock on the simulator deadlocks here and is reported. Programs that
// pimsim-nn would reject, or that would never finish on it, are rejected
// with the core, pc and instruction at fault.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_SIMULATOR_SIMULATOR_H
#define PIMC_SIMULATOR_SIMULATOR_H

#include "pimc/Frontend/OnnxModel.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace pimc::sim {

struct Options {
  /// Give up after this many executed instructions in all (0: no limit).
  uint64_t maxInstructions = 0;
};

struct CoreStats {
  uint64_t executed = 0;
};

struct Result {
  /// One tensor per output of the manifest, in order, named as in it.
  std::vector<frontend::TensorData> outputs;
  std::vector<CoreStats> cores;
  uint64_t executed = 0;
};

/// Runs the program in `directory` on `inputs` (one per manifest input, in
/// order; shapes must match).
llvm::Expected<Result> simulate(llvm::StringRef directory,
                                const std::vector<frontend::TensorData> &inputs,
                                const Options &options = {});

} // namespace pimc::sim

#endif // PIMC_SIMULATOR_SIMULATOR_H
