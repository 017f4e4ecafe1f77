//===- ConstantTensors.cpp - onnx constants as reference tensors ----------===//

#include "ConstantTensors.h"

#include "pimc/Dialect/Onnx/OnnxDialect.h"

using namespace mlir;
using namespace pimc;

std::optional<FloatData> onnx::constantData(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  return FloatData::get(constant.getValue());
}

std::optional<ref::Tensor> onnx::constantTensor(Value value) {
  std::optional<FloatData> data = constantData(value);
  if (!data)
    return std::nullopt;
  auto type = cast<RankedTensorType>(value.getType());
  return ref::Tensor(std::vector<int64_t>(type.getShape().begin(), type.getShape().end()),
                     data->values().vec());
}

Value onnx::makeConstant(PatternRewriter &rewriter, Location loc, ref::Tensor tensor,
                         StringRef name) {
  auto type = RankedTensorType::get(tensor.shape, rewriter.getF32Type());
  return rewriter.create<ConstantOp>(loc, type,
                                     makeFloatConstant(type, std::move(tensor.data), name));
}

std::string onnx::constantName(Operation *op) {
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    return name.getName().str();
  return op->getName().stripDialect().str();
}
