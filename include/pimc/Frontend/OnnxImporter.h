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
/// node or value at fault.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importOnnxModel(mlir::MLIRContext &context, const frontend::Model &model,
                llvm::StringRef modelPath);

} // namespace pimc

#endif // PIMC_FRONTEND_ONNXIMPORTER_H
