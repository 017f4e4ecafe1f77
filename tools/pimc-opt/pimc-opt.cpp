//===- pimc-opt.cpp - the mlir-opt of pimc --------------------------------===//

#include "pimc/InitAll.h"
#include "pimc/Pipeline.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

static llvm::cl::opt<bool>
    irSizes("pimc-ir-sizes",
            llvm::cl::desc("print on stderr, after each pass run on the module, its seconds "
                           "and the ops and values it left"),
            llvm::cl::init(false));

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  pimc::registerAllDialects(registry);
  pimc::registerAllPasses();
  // Upstream passes used around pimc's own in tests.
  mlir::registerTransformsPasses();
  mlir::bufferization::registerBufferizationPasses();
  auto [inputFile, outputFile] =
      mlir::registerAndParseCLIOptions(argc, argv, "pimc optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  // The passes the command line asks for, and then the instrumentation.
  if (irSizes)
    config.setPassPipelineSetupFn([asked = config](mlir::PassManager &pm) {
      if (mlir::failed(asked.setupPassPipeline(pm)))
        return mlir::failure();
      pm.addInstrumentation(std::make_unique<pimc::IrSizeInstrumentation>(llvm::errs()));
      return mlir::success();
    });
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = mlir::openInputFile(inputFile, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output = mlir::openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
