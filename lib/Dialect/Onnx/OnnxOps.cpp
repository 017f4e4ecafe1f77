//===- OnnxOps.cpp - the onnx dialect -------------------------------------===//
//
// Verifiers check the ONNX shape rules, so that everything after import can
// rely on the types.
//
//===----------------------------------------------------------------------===//

#include "pimc/Dialect/Onnx/OnnxDialect.h"
#include "pimc/Reference/Reference.h"
#include "pimc/Support/Constants.h"

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

static LogicalResult verifyBroadcast(Operation *op, Value a, Value b,
                                     Value result) {
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(shapeOf(a), shapeOf(b), shape))
    return op->emitOpError() << "shapes " << shapeString(shapeOf(a)) << " and "
                             << shapeString(shapeOf(b)) << " do not broadcast";
  return checkResultShape(op, shape, result);
}

LogicalResult AddOp::verify() { return verifyBroadcast(*this, getA(), getB(), getC()); }
LogicalResult SubOp::verify() { return verifyBroadcast(*this, getA(), getB(), getC()); }
LogicalResult MulOp::verify() { return verifyBroadcast(*this, getA(), getB(), getC()); }
LogicalResult DivOp::verify() { return verifyBroadcast(*this, getA(), getB(), getC()); }
LogicalResult MaxOp::verify() { return verifyBroadcast(*this, getA(), getB(), getC()); }

LogicalResult ClipOp::verify() {
  for (Value bound : {getMin(), getMax()})
    if (bound && cast<RankedTensorType>(bound.getType()).getNumElements() != 1)
      return emitOpError("bounds must be scalars");
  if (getInput().getType() != getOutput().getType())
    return emitOpError("keeps the type of its input");
  return success();
}

//===----------------------------------------------------------------------===//
// Windows
//===----------------------------------------------------------------------===//

/// The channel count and the spatial sizes of an [N, C, D...] tensor, or of
/// an [N, D..., C] one when `channelsLast`.
static std::pair<int64_t, SmallVector<int64_t>> channelsAndSpatial(Value value,
                                                                   bool channelsLast) {
  ArrayRef<int64_t> shape = shapeOf(value);
  if (shape.size() < 2)
    return {0, {}};
  if (channelsLast)
    return {shape.back(), SmallVector<int64_t>(shape.drop_front().drop_back())};
  return {shape[1], SmallVector<int64_t>(shape.drop_front(2))};
}

static LogicalResult
verifyWindow(Operation *op, Value x, Value y, bool channelsLast, ArrayRef<int64_t> kernel,
             std::optional<ArrayRef<int64_t>> strides, std::optional<ArrayRef<int64_t>> pads,
             std::optional<ArrayRef<int64_t>> dilations, StringRef autoPad,
             int64_t outChannels, bool ceilMode) {
  int64_t rank = shapeOf(x).size();
  if (rank < 3)
    return op->emitOpError("needs a batch, a channel and spatial dimensions");
  if (shapeOf(y).size() != (size_t)rank)
    return op->emitOpError("result rank differs from the input's");
  size_t n = rank - 2;
  auto checkLength = [&](std::optional<ArrayRef<int64_t>> list, size_t length,
                         StringRef name) -> LogicalResult {
    if (list && list->size() != length)
      return op->emitOpError() << name << " needs " << length << " entries";
    return success();
  };
  if (failed(checkLength(kernel, n, "kernel_shape")) ||
      failed(checkLength(strides, n, "strides")) ||
      failed(checkLength(dilations, n, "dilations")) ||
      failed(checkLength(pads, 2 * n, "pads")))
    return failure();
  if (!llvm::is_contained({"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"}, autoPad))
    return op->emitOpError() << "unknown auto_pad '" << autoPad << "'";
  auto [channels, spatial] = channelsAndSpatial(y, channelsLast);
  if (channels != outChannels)
    return op->emitOpError() << "result has " << channels << " channels, expected "
                             << outChannels;
  if (shapeOf(x)[0] != shapeOf(y)[0])
    return op->emitOpError("keeps the batch size");
  // The result's spatial sizes are the ones the window gives.
  SmallVector<int64_t> input = channelsAndSpatial(x, channelsLast).second;
  SmallVector<int64_t> ones(n, 1);
  ArrayRef<int64_t> s = strides ? *strides : ArrayRef<int64_t>(ones);
  ArrayRef<int64_t> d = dilations ? *dilations : ArrayRef<int64_t>(ones);
  llvm::Expected<std::vector<int64_t>> resolved =
      pimc::ref::resolvePads(input, kernel, s, d, pads ? *pads : ArrayRef<int64_t>(), autoPad);
  llvm::Expected<std::vector<int64_t>> expected =
      resolved ? pimc::ref::windowOutput(input, kernel, s, d, *resolved, ceilMode)
               : llvm::Expected<std::vector<int64_t>>(resolved.takeError());
  if (!expected)
    return op->emitOpError() << llvm::toString(expected.takeError());
  if (ArrayRef<int64_t>(*expected) != ArrayRef<int64_t>(spatial))
    return op->emitOpError() << "result has spatial sizes [" << spatial
                             << "], the window gives [" << ArrayRef<int64_t>(*expected)
                             << "]";
  return success();
}

LogicalResult ConvOp::verify() {
  if (shapeOf(getX()).size() < 3)
    return emitOpError("needs a batch, a channel and spatial dimensions");
  auto [channels, spatial] = channelsAndSpatial(getX(), getChannelsLast());
  ArrayRef<int64_t> w = shapeOf(getW());
  if (w.size() != spatial.size() + 2)
    return emitOpError("weights need one dimension per spatial dimension, plus two");
  int64_t group = getGroup();
  if (group < 1 || channels % group || w[0] % group)
    return emitOpError() << "group " << group << " must divide the " << channels
                         << " input and " << w[0] << " output channels";
  if (w[1] * group != channels)
    return emitOpError() << "weights take " << w[1] << " channels per group, the input has "
                         << channels << " in " << group << " groups";
  if (getKernelShape() && *getKernelShape() != w.drop_front(2))
    return emitOpError("kernel_shape differs from the weights");
  if (getB() && shapeOf(getB()) != ArrayRef<int64_t>{w[0]})
    return emitOpError("bias needs one value per output channel");
  return verifyWindow(*this, getX(), getY(), getChannelsLast(), w.drop_front(2),
                      getStrides(), getPads(), getDilations(), getAutoPad(), w[0],
                      /*ceilMode=*/false);
}

llvm::Expected<pimc::ref::ConvTransposeAttrs> ConvTransposeOp::resolved() {
  auto [channels, spatial] = channelsAndSpatial(getX(), getChannelsLast());
  auto list = [](std::optional<ArrayRef<int64_t>> attr) {
    return attr ? *attr : ArrayRef<int64_t>();
  };
  return pimc::ref::resolveConvTranspose(spatial, shapeOf(getW()).drop_front(2), list(getStrides()),
                                   list(getDilations()), list(getPads()),
                                   list(getOutputPadding()), list(getOutputShape()),
                                   getAutoPad(), getGroup());
}

LogicalResult ConvTransposeOp::verify() {
  if (shapeOf(getX()).size() < 3 || shapeOf(getY()).size() != shapeOf(getX()).size())
    return emitOpError("needs a batch, a channel and spatial dimensions, and keeps the rank");
  auto [channels, spatial] = channelsAndSpatial(getX(), getChannelsLast());
  auto [outChannels, outSpatial] = channelsAndSpatial(getY(), getChannelsLast());
  ArrayRef<int64_t> w = shapeOf(getW());
  if (w.size() != spatial.size() + 2)
    return emitOpError("weights need one dimension per spatial dimension, plus two");
  int64_t group = getGroup();
  if (group < 1 || channels % group || w[0] != channels)
    return emitOpError() << "weights take " << w[0] << " input channels, the input has "
                         << channels << " in " << group << " groups";
  if (outChannels != w[1] * group)
    return emitOpError() << "result has " << outChannels << " channels, expected "
                         << w[1] * group;
  if (shapeOf(getX())[0] != shapeOf(getY())[0])
    return emitOpError("keeps the batch size");
  if (getKernelShape() && *getKernelShape() != w.drop_front(2))
    return emitOpError("kernel_shape differs from the weights");
  if (getB() && shapeOf(getB()) != ArrayRef<int64_t>{outChannels})
    return emitOpError("bias needs one value per output channel");
  llvm::Expected<pimc::ref::ConvTransposeAttrs> attrs = resolved();
  if (!attrs)
    return emitOpError() << llvm::toString(attrs.takeError());
  if (ArrayRef<int64_t>(attrs->output) != ArrayRef<int64_t>(outSpatial))
    return emitOpError() << "result has spatial sizes [" << outSpatial
                         << "], the window gives [" << ArrayRef<int64_t>(attrs->output) << "]";
  return success();
}

LogicalResult MaxPoolOp::verify() {
  if (!getKernelShape())
    return emitOpError("needs kernel_shape");
  int64_t channels = channelsAndSpatial(getX(), getChannelsLast()).first;
  return verifyWindow(*this, getX(), getY(), getChannelsLast(), *getKernelShape(),
                      getStrides(), getPads(), getDilations(), getAutoPad(), channels,
                      getCeilMode() != 0);
}

LogicalResult AveragePoolOp::verify() {
  if (!getKernelShape())
    return emitOpError("needs kernel_shape");
  if (getDilations())
    return emitOpError("has no dilations");
  int64_t channels = channelsAndSpatial(getX(), getChannelsLast()).first;
  return verifyWindow(*this, getX(), getY(), getChannelsLast(), *getKernelShape(),
                      getStrides(), getPads(), getDilations(), getAutoPad(), channels,
                      getCeilMode() != 0);
}

template <typename OpT> static LogicalResult verifyGlobalPool(OpT op) {
  if (shapeOf(op.getX()).size() < 3 || shapeOf(op.getY()).size() != shapeOf(op.getX()).size())
    return op.emitOpError("keeps the rank of an [N, C, D...] input");
  auto [channels, spatial] = channelsAndSpatial(op.getX(), op.getChannelsLast());
  auto [outChannels, outSpatial] = channelsAndSpatial(op.getY(), op.getChannelsLast());
  if (channels != outChannels || llvm::any_of(outSpatial, [](int64_t d) { return d != 1; }))
    return op.emitOpError("reduces every spatial dimension to 1");
  return success();
}
LogicalResult GlobalAveragePoolOp::verify() { return verifyGlobalPool(*this); }
LogicalResult GlobalMaxPoolOp::verify() { return verifyGlobalPool(*this); }

LogicalResult BatchNormalizationOp::verify() {
  ArrayRef<int64_t> x = shapeOf(getX());
  if (x.size() < 2)
    return emitOpError("needs a channel dimension");
  for (Value v : {getScale(), getB(), getInputMean(), getInputVar()})
    if (shapeOf(v) != ArrayRef<int64_t>{x[1]})
      return emitOpError("needs one scale, bias, mean and variance per channel");
  return checkResultShape(*this, x, getY());
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs inputs");
  ArrayRef<int64_t> first = shapeOf(getInputs()[0]);
  int64_t rank = first.size(), axis = getAxis();
  if (axis < -rank || axis >= rank)
    return emitOpError() << "axis " << axis << " is outside [" << -rank << ", " << rank
                         << ")";
  if (axis < 0)
    axis += rank;
  SmallVector<int64_t> expected(first);
  expected[axis] = 0;
  for (Value input : getInputs()) {
    ArrayRef<int64_t> shape = shapeOf(input);
    if ((int64_t)shape.size() != rank)
      return emitOpError("inputs must have one rank");
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && shape[d] != first[d])
        return emitOpError("inputs differ outside the concatenation axis");
    expected[axis] += shape[axis];
  }
  return checkResultShape(*this, expected, getConcatResult());
}

LogicalResult PadOp::verify() {
  int64_t rank = shapeOf(getData()).size();
  if (shapeOf(getPads()) != ArrayRef<int64_t>{2 * rank})
    return emitOpError("pads needs two entries per dimension");
  if (!llvm::is_contained({"constant", "edge", "reflect"}, getMode()))
    return emitOpError() << "unknown mode '" << getMode() << "'";
  if (getConstantValue() &&
      cast<RankedTensorType>(getConstantValue().getType()).getNumElements() != 1)
    return emitOpError("the constant value is a scalar");
  if ((int64_t)shapeOf(getOutput()).size() != rank)
    return emitOpError("keeps the rank");
  // With constant pads, every output size is known.
  DenseIntElementsAttr pads;
  if (auto constant = getPads().getDefiningOp<ConstantOp>())
    pads = dyn_cast<DenseIntElementsAttr>(constant.getValue());
  if (pads) {
    SmallVector<int64_t> amounts;
    for (const APInt &v : pads)
      amounts.push_back(v.getSExtValue());
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = shapeOf(getData())[d] + amounts[d] + amounts[rank + d];
      if (size != shapeOf(getOutput())[d])
        return emitOpError() << "result dimension " << d << " is " << shapeOf(getOutput())[d]
                             << ", the pads give " << size;
    }
  }
  return success();
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

/// A reshape to its input's type is its input, and so is one back of a
/// reshape (onnx-pack-pixels makes both while it sinks its reshapes).
OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getData().getType() == getType())
    return getData();
  if (auto inner = getData().getDefiningOp<ReshapeOp>();
      inner && inner.getData().getType() == getType())
    return inner.getData();
  return {};
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

/// The values of a constant i64 operand; empty for an omitted one, nullopt
/// for one that is not a constant.
static std::optional<SmallVector<int64_t>> constantInts(Value value) {
  if (!value)
    return SmallVector<int64_t>();
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  return pimc::getIntValues(constant.getValue());
}

/// Starts, ends, axes and steps, when they are constants (or omitted).
static std::optional<SmallVector<SmallVector<int64_t>, 4>> constantBounds(SliceOp op) {
  SmallVector<SmallVector<int64_t>, 4> bounds;
  for (Value operand : {op.getStarts(), op.getEnds(), op.getAxes(), op.getSteps()}) {
    std::optional<SmallVector<int64_t>> values = constantInts(operand);
    if (!values)
      return std::nullopt;
    bounds.push_back(std::move(*values));
  }
  return bounds;
}

std::optional<std::vector<std::vector<int64_t>>> SliceOp::getPositions() {
  std::optional<SmallVector<SmallVector<int64_t>, 4>> bounds = constantBounds(*this);
  if (!bounds)
    return std::nullopt;
  llvm::Expected<pimc::ref::Positions> positions = pimc::ref::slicePositions(
      shapeOf(getData()), (*bounds)[0], (*bounds)[1], (*bounds)[2], (*bounds)[3]);
  if (!positions) {
    llvm::consumeError(positions.takeError());
    return std::nullopt;
  }
  return std::move(*positions);
}

LogicalResult SliceOp::verify() {
  ArrayRef<int64_t> shape = shapeOf(getData());
  if (shapeOf(getOutput()).size() != shape.size())
    return emitOpError("keeps the rank");
  for (Value operand : {getStarts(), getEnds(), getAxes(), getSteps()})
    if (operand && shapeOf(operand).size() != 1)
      return emitOpError("starts, ends, axes and steps are 1-D");
  std::optional<SmallVector<SmallVector<int64_t>, 4>> bounds = constantBounds(*this);
  if (!bounds)
    return success(); // computed bounds: the lowering refuses them
  llvm::Expected<pimc::ref::Positions> positions = pimc::ref::slicePositions(
      shape, (*bounds)[0], (*bounds)[1], (*bounds)[2], (*bounds)[3]);
  if (!positions)
    return emitOpError(llvm::toString(positions.takeError()));
  SmallVector<int64_t> expected;
  for (const std::vector<int64_t> &along : *positions)
    expected.push_back(along.size());
  return checkResultShape(*this, expected, getOutput());
}

LogicalResult SplitOp::verify() {
  ArrayRef<int64_t> shape = shapeOf(getInput());
  int64_t rank = shape.size(), axis = getAxis();
  if (axis < -rank || axis >= rank)
    return emitOpError() << "axis " << axis << " is outside [" << -rank << ", " << rank
                         << ")";
  if (axis < 0)
    axis += rank;
  if (getOutputs().empty())
    return emitOpError("needs results");
  int64_t covered = 0;
  SmallVector<int64_t> lengths;
  for (Value output : getOutputs()) {
    SmallVector<int64_t> expected(shape);
    expected[axis] = shapeOf(output).size() == shape.size() ? shapeOf(output)[axis] : 0;
    if (failed(checkResultShape(*this, expected, output)))
      return failure();
    covered += expected[axis];
    lengths.push_back(expected[axis]);
  }
  if (covered != shape[axis])
    return emitOpError() << "the parts cover " << covered << " of the " << shape[axis]
                         << " elements along axis " << axis;
  std::optional<SmallVector<int64_t>> split = constantInts(getSplit());
  if (split && !split->empty() && *split != lengths)
    return emitOpError("split differs from the lengths of the results");
  return success();
}

#define GET_OP_CLASSES
#include "pimc/Dialect/Onnx/OnnxOps.cpp.inc"
