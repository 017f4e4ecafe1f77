//===- SetArch.cpp - the chip the module is compiled for ------------------===//

#include "pimc/Dialect/Pim/ModuleArch.h"
#include "pimc/Dialect/Pim/Transforms/Passes.h"

namespace pimc::pim {
#define GEN_PASS_DEF_PIMCSETARCH
#include "pimc/Dialect/Pim/Transforms/Passes.h.inc"
} // namespace pimc::pim

using namespace mlir;
using namespace pimc;

namespace {
struct PimcSetArchPass : public pim::impl::PimcSetArchBase<PimcSetArchPass> {
  using PimcSetArchBase::PimcSetArchBase;
  void runOnOperation() override {
    llvm::Expected<Arch> arch = Arch::loadOrDefault(archFile);
    if (!arch) {
      getOperation().emitError(llvm::toString(arch.takeError()));
      return signalPassFailure();
    }
    setArch(getOperation(), *arch);
  }
};
} // namespace
