//===- FuzzOnnx.cpp - the ONNX reader, importer and canonicalization ------===//
//
// Input: an ONNX model file. loadModel parses, checks and shape-infers it;
// a model it accepts is imported into the onnx dialect and canonicalized as
// pimc compile does. Any error is fine, a crash or a sanitizer report is a
// finding.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "pimc/Dialect/Onnx/Transforms/Passes.h"
#include "pimc/Frontend/OnnxImporter.h"
#include "pimc/Frontend/ShapeFolding.h"
#include "pimc/Frontend/OnnxModel.h"
#include "pimc/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path = pimc::fuzz::writeScratchFile(
      "model.onnx", llvm::StringRef(reinterpret_cast<const char *>(data), size));
  llvm::Expected<pimc::frontend::Model> model = pimc::frontend::loadModel(path, pimc::frontend::foldKnownNode);
  if (!model) {
    llvm::consumeError(model.takeError());
    return 0;
  }
  // A context per input: constants of one input never reach the next.
  mlir::DialectRegistry registry;
  pimc::registerAllDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  mlir::ScopedDiagnosticHandler quiet(&context, [](mlir::Diagnostic &) {
    return mlir::success();
  });
  auto module = pimc::importOnnxModel(context, *model, path);
  if (!module) {
    llvm::consumeError(module.takeError());
    return 0;
  }
  mlir::PassManager pm(&context);
  pimc::onnx::addCanonicalizationPasses(pm.nest<mlir::func::FuncOp>());
  (void)pm.run(**module);
  return 0;
}
