//===- OnnxImporter.h - ONNX model to the onnx dialect ----------*- C++ -*-===//
#ifndef PIMC_FRONTEND_ONNXIMPORTER_H
#define PIMC_FRONTEND_ONNXIMPORTER_H

#include "pimc/Frontend/OnnxModel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace pimc {

/// The opsets of the default ONNX domain pimc accepts (an operator whose
/// semantics changed is accepted from the version pimc implements).
constexpr int64_t kMinOpset = 1, kMaxOpset = 17;

/// Builds a module holding one func.func of onnx dialect ops. Errors name the
/// node or value at fault. With `irOwnsWeights`, the caller drops `model`
/// once it is imported, so that nothing outside the IR reads its f32 data:
/// passes may then rewrite the weights in place.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importOnnxModel(mlir::MLIRContext &context, const frontend::Model &model,
                llvm::StringRef modelPath, bool irOwnsWeights = false);

} // namespace pimc

#endif // PIMC_FRONTEND_ONNXIMPORTER_H
