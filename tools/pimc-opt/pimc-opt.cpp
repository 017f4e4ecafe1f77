//===- pimc-opt.cpp - the mlir-opt of pimc --------------------------------===//

#include "pimc/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  pimc::registerAllDialects(registry);
  pimc::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "pimc optimizer driver\n", registry));
}
