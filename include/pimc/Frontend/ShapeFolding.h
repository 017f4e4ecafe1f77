//===- ShapeFolding.h - constant shape computations at import ---*- C++ -*-===//
//
// Exporters compute shapes in the graph (torch's x.view(x.size(0), -1) is
// Shape -> Gather -> Unsqueeze -> Concat -> Reshape). With static shapes
// every such node computes a constant; the importer folds them as it reads
// them, so that only constants reach the onnx dialect (whose operators take
// float data and int64 shapes).
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_FRONTEND_SHAPEFOLDING_H
#define PIMC_FRONTEND_SHAPEFOLDING_H

#include "pimc/Frontend/OnnxModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace pimc::frontend {

/// Whether foldConstantNode folds `opType` when its inputs are constants.
bool isFoldedShapeOperator(llvm::StringRef opType);

/// The output of `node`, one of the isFoldedShapeOperator operators, whose
/// inputs are the constants `inputs` (null for an omitted one) and whose
/// output has shape `resultShape` (from shape inference): int64 values, or
/// float ones (Cast to float, ConstantOfShape, Range of floats). Errors say
/// what is wrong with the node.
llvm::Expected<TensorData> foldConstantNode(const Node &node,
                                            llvm::ArrayRef<const TensorData *> inputs,
                                            llvm::ArrayRef<int64_t> resultShape);

/// The value of a Constant node (its `value`, `value_float(s)` or
/// `value_int(s)` attribute).
llvm::Expected<TensorData> constantNodeValue(const Node &node);

/// The output of `node` when its inputs are the constants `inputs`, if it is
/// a Constant or one of the isFoldedShapeOperator operators; nullopt for
/// any other. loadModel folds with it when shape inference left shapes
/// unknown behind computed shapes.
llvm::Expected<std::optional<TensorData>>
foldKnownNode(const Node &node, llvm::ArrayRef<const TensorData *> inputs,
              llvm::ArrayRef<int64_t> resultShape);

} // namespace pimc::frontend

#endif // PIMC_FRONTEND_SHAPEFOLDING_H
