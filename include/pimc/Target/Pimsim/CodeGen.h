//===- CodeGen.h - pimsim-nn code generation --------------------*- C++ -*-===//
#ifndef PIMC_TARGET_PIMSIM_CODEGEN_H
#define PIMC_TARGET_PIMSIM_CODEGEN_H

#include "pimc/Arch/Arch.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace pimc {

/// What one core's program holds, by instruction class.
struct CoreCodeStats {
  int64_t id = 0;
  int64_t instructions = 0;
  int64_t mvm = 0, vector = 0, scalar = 0, setbw = 0; // scalar: sldi
  /// Register operands that hold an address or a value, and so would need an
  /// sldi each without register reuse.
  int64_t registerOperands = 0;
  int64_t send = 0, recv = 0, sendBytes = 0, recvBytes = 0;
  int64_t load = 0, store = 0, loadBytes = 0, storeBytes = 0;
  int64_t copies = 0, copyBytes = 0; // lmv
  int64_t other = 0;                 // lldi, wait, sync
  int64_t groups = 0, crossbars = 0;
  int64_t memoryBytes = 0;
  /// (first pc, node) where the model node the instructions come from
  /// changes; nodes index CodeGenStats::nodes.
  std::vector<std::pair<uint64_t, int32_t>> nodeMarks;
};

struct CodeGenStats {
  std::vector<CoreCodeStats> cores; // one per core id 0..coreCount-1
  int64_t weightBytes = 0;          // programmed into crossbars (as f32 here)
  int64_t weightCount = 0;          // weights (cells) programmed
  int64_t globalMemoryBytes = 0;
  std::vector<std::string> nodes; // model node names ("" for none)
  CoreCodeStats total() const;
};

struct CodeGenOptions {
  std::string outputDir;
  bool emitJson = false;
  /// The programs compute the module's inference this many times, one
  /// sample after another: the inputs and outputs in global memory hold as
  /// many samples along their first axis, the module's one each.
  int64_t samples = 1;
};

/// Sets the `sim_config` of the architecture file written beside a program:
/// latency mode (sim_mode 1) for one inference, or throughput mode (sim_mode
/// 0, every core looping its program) for `simTimeMs` of simulated time.
/// Only sim_config differs from the architecture the program was made for.
llvm::Error setSimulationMode(llvm::StringRef directory, bool throughput,
                              int64_t simTimeMs = 0);

/// Writes the artifacts of a planned pim module (target spec, section 9, is
/// the checklist it follows) and counts what it wrote.
llvm::Expected<CodeGenStats> emitPimsimArtifacts(mlir::ModuleOp module,
                                                 const Arch &arch,
                                                 const CodeGenOptions &options);

} // namespace pimc

#endif // PIMC_TARGET_PIMSIM_CODEGEN_H
