//===- pimc-opt.cpp - the mlir-opt of pimc --------------------------------===//

#include "pimc/InitAll.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  pimc::registerAllDialects(registry);
  pimc::registerAllPasses();
  // Upstream passes used around pimc's own in tests.
  mlir::registerTransformsPasses();
  mlir::bufferization::registerBufferizationPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "pimc optimizer driver\n", registry));
}
