//===- ConstantTensors.h - onnx constants as reference tensors --*- C++ -*-===//
//
// Stage-1 rewrites compute new weights with the reference kernels; these
// helpers read constants for them and make constants of their results.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_DIALECT_ONNX_TRANSFORMS_CONSTANTTENSORS_H
#define PIMC_DIALECT_ONNX_TRANSFORMS_CONSTANTTENSORS_H

#include "pimc/Reference/Reference.h"
#include "pimc/Support/Constants.h"

#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>

namespace pimc::onnx {

/// The f32 values of the onnx.Constant defining `value`, viewed in place.
std::optional<FloatData> constantData(mlir::Value value);

/// The same values as a reference tensor (a copy).
std::optional<ref::Tensor> constantTensor(mlir::Value value);

/// An onnx.Constant holding `tensor`'s values, which it takes.
mlir::Value makeConstant(mlir::PatternRewriter &rewriter, mlir::Location loc,
                         ref::Tensor tensor, llvm::StringRef name);

/// The name of the model node `op` comes from, for the constants made for it.
std::string constantName(mlir::Operation *op);

} // namespace pimc::onnx

#endif // PIMC_DIALECT_ONNX_TRANSFORMS_CONSTANTTENSORS_H
