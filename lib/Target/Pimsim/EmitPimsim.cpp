//===- EmitPimsim.cpp - the code generation pass --------------------------===//

#include "pimc/Dialect/Pim/ModuleArch.h"
#include "pimc/Target/Pimsim/CodeGen.h"
#include "pimc/Target/Pimsim/Passes.h"

namespace pimc {
#define GEN_PASS_DEF_PIMEMITPIMSIM
#include "pimc/Target/Pimsim/Passes.h.inc"
} // namespace pimc

using namespace mlir;
using namespace pimc;

namespace {
struct PimEmitPimsimPass : public pimc::impl::PimEmitPimsimBase<PimEmitPimsimPass> {
  using PimEmitPimsimBase::PimEmitPimsimBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (outputDir.empty()) {
      module.emitError("pim-emit-pimsim needs output-dir");
      return signalPassFailure();
    }
    std::shared_ptr<const Arch> arch = archOf(module);
    if (!arch)
      return signalPassFailure();
    llvm::Expected<CodeGenStats> stats =
        emitPimsimArtifacts(module, *arch, {outputDir, emitJson});
    if (!stats) {
      module.emitError(llvm::toString(stats.takeError()));
      return signalPassFailure();
    }
  }
};
} // namespace
