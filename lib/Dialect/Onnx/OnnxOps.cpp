//===- OnnxOps.cpp - the onnx dialect -------------------------------------===//
//
// Verifiers check the ONNX shape rules, so that everything after import can
// rely on the types.
//
//===----------------------------------------------------------------------===//

#include "pimc/Dialect/Onnx/OnnxDialect.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace pimc::onnx;

#include "pimc/Dialect/Onnx/OnnxDialect.cpp.inc"

void OnnxDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "pimc/Dialect/Onnx/OnnxOps.cpp.inc"
      >();
}

Operation *OnnxDialect::materializeConstant(OpBuilder &builder,
                                            Attribute value, Type type,
                                            Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, type, elements);
}

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(shape, os);
  os << "]";
  return text;
}

static LogicalResult checkResultShape(Operation *op, ArrayRef<int64_t> expected,
                                      Value result) {
  if (shapeOf(result) == expected)
    return success();
  return op->emitOpError() << "result shape " << shapeString(shapeOf(result))
                           << " differs from the expected "
                           << shapeString(expected);
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult ConstantOp::verify() {
  if (getValue().getType() != getType())
    return emitOpError("value type differs from the result type");
  return success();
}

LogicalResult GemmOp::verify() {
  ArrayRef<int64_t> a = shapeOf(getA()), b = shapeOf(getB());
  if (a.size() != 2 || b.size() != 2)
    return emitOpError("A and B must be 2-D");
  int64_t m = getTransA() ? a[1] : a[0], k = getTransA() ? a[0] : a[1];
  int64_t kb = getTransB() ? b[1] : b[0], n = getTransB() ? b[0] : b[1];
  if (k != kb)
    return emitOpError() << "inner dimensions differ: " << k << " and " << kb;
  SmallVector<int64_t> y = {m, n};
  if (getC()) {
    SmallVector<int64_t> broadcast;
    if (!OpTrait::util::getBroadcastedShape(y, shapeOf(getC()), broadcast) ||
        ArrayRef<int64_t>(broadcast) != ArrayRef<int64_t>(y))
      return emitOpError() << "C of shape " << shapeString(shapeOf(getC()))
                           << " does not broadcast to " << shapeString(y);
  }
  return checkResultShape(*this, y, getY());
}

/// The shape of numpy.matmul(a, b), or nothing when they do not match.
static std::optional<SmallVector<int64_t>>
matmulShape(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.empty() || b.empty())
    return std::nullopt;
  SmallVector<int64_t> lhs(a), rhs(b);
  bool vectorLhs = lhs.size() == 1, vectorRhs = rhs.size() == 1;
  if (vectorLhs)
    lhs.insert(lhs.begin(), 1);
  if (vectorRhs)
    rhs.push_back(1);
  if (lhs.back() != rhs[rhs.size() - 2])
    return std::nullopt;
  SmallVector<int64_t> batch;
  if (!OpTrait::util::getBroadcastedShape(
          ArrayRef<int64_t>(lhs).drop_back(2), ArrayRef<int64_t>(rhs).drop_back(2),
          batch))
    return std::nullopt;
  if (!vectorLhs)
    batch.push_back(lhs[lhs.size() - 2]);
  if (!vectorRhs)
    batch.push_back(rhs.back());
  return batch;
}

LogicalResult MatMulOp::verify() {
  auto expected = matmulShape(shapeOf(getA()), shapeOf(getB()));
  if (!expected)
    return emitOpError() << "shapes " << shapeString(shapeOf(getA())) << " and "
                         << shapeString(shapeOf(getB())) << " do not multiply";
  return checkResultShape(*this, *expected, getY());
}

LogicalResult AddOp::verify() {
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(shapeOf(getA()), shapeOf(getB()),
                                          shape))
    return emitOpError() << "shapes " << shapeString(shapeOf(getA())) << " and "
                         << shapeString(shapeOf(getB())) << " do not broadcast";
  return checkResultShape(*this, shape, getC());
}

OpFoldResult IdentityOp::fold(FoldAdaptor) { return getX(); }

LogicalResult FlattenOp::verify() {
  ArrayRef<int64_t> shape = shapeOf(getInput());
  int64_t rank = shape.size(), axis = getAxis();
  if (axis < -rank || axis > rank)
    return emitOpError() << "axis " << axis << " is outside [" << -rank << ", "
                         << rank << "]";
  if (axis < 0)
    axis += rank;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i)
    (i < axis ? outer : inner) *= shape[i];
  return checkResultShape(*this, {outer, inner}, getOutput());
}

LogicalResult ReshapeOp::verify() {
  auto dataType = cast<RankedTensorType>(getData().getType());
  auto resultType = cast<RankedTensorType>(getType());
  if (shapeOf(getShape()).size() != 1 ||
      shapeOf(getShape())[0] != resultType.getRank())
    return emitOpError("shape must be a 1-D tensor with one entry per result "
                       "dimension");
  if (dataType.getNumElements() != resultType.getNumElements())
    return emitOpError() << "cannot reshape " << dataType.getNumElements()
                         << " elements into " << resultType.getNumElements();
  return success();
}

LogicalResult TransposeOp::verify() {
  ArrayRef<int64_t> shape = shapeOf(getData());
  ArrayRef<int64_t> perm = getPerm();
  if (perm.size() != shape.size())
    return emitOpError("perm must have one entry per dimension");
  SmallVector<bool> seen(shape.size(), false);
  SmallVector<int64_t> expected;
  for (int64_t p : perm) {
    if (p < 0 || p >= (int64_t)shape.size() || seen[p])
      return emitOpError("perm is not a permutation");
    seen[p] = true;
    expected.push_back(shape[p]);
  }
  return checkResultShape(*this, expected, getTransposed());
}

#define GET_OP_CLASSES
#include "pimc/Dialect/Onnx/OnnxOps.cpp.inc"
