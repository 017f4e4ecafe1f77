//===- SpatialOps.cpp - the spat dialect ----------------------------------===//

#include "pimc/Dialect/Spatial/SpatialDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace pimc::spat;

#include "pimc/Dialect/Spatial/SpatialDialect.cpp.inc"
#include "pimc/Dialect/Spatial/SpatialEnums.cpp.inc"
#include "pimc/Dialect/Spatial/SpatialInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "pimc/Dialect/Spatial/SpatialAttrs.cpp.inc"

void SpatDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "pimc/Dialect/Spatial/SpatialAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "pimc/Dialect/Spatial/SpatialOps.cpp.inc"
      >();
}

LogicalResult SpatDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  StringAttr name = attr.getName();
  bool integer = name == getCopyAttrHelper().getName() || name == getCoreAttrHelper().getName() ||
                 name == getLayerAttrHelper().getName();
  bool time = name == getStartAttrHelper().getName() ||
              name == getFinishAttrHelper().getName() ||
              name == getMakespanAttrHelper().getName();
  if (integer && !isa<IntegerAttr>(attr.getValue()))
    return op->emitOpError() << "'" << name.getValue() << "' must be an integer";
  if (time && !isa<FloatAttr>(attr.getValue()))
    return op->emitOpError() << "'" << name.getValue() << "' must be a time in ns (f64)";
  return success();
}

//===----------------------------------------------------------------------===//
// Globals
//===----------------------------------------------------------------------===//

LogicalResult GlobalOp::verify() {
  if (getKind() == GlobalKind::constant) {
    if (!getValue() || getValue()->getType() != getType())
      return emitOpError("a constant needs a value of its type");
    return success();
  }
  if (!getIndex())
    return emitOpError("an input or output needs its index");
  if (getValue())
    return emitOpError("an input or output has no value");
  return success();
}

template <typename OpT>
static LogicalResult verifyGlobalUse(OpT op, StringRef name,
                                     SymbolTableCollection &symbols,
                                     Type expected = {}) {
  auto global =
      symbols.lookupNearestSymbolFrom<GlobalOp>(op, StringAttr::get(op.getContext(), name));
  if (!global)
    return op.emitOpError() << "'" << name << "' is not a spat.global";
  if (expected && global.getType() != expected)
    return op.emitOpError() << "type differs from that of '" << name << "'";
  return success();
}

LogicalResult GetGlobalOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyGlobalUse(*this, getName(), symbols, getType());
}

LogicalResult LoadOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyGlobalUse(*this, getGlobal(), symbols);
}

LogicalResult StoreOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyGlobalUse(*this, getGlobal(), symbols);
}

//===----------------------------------------------------------------------===//
// Computes
//===----------------------------------------------------------------------===//

OperandRange ComputeOp::getLaneInputs() {
  return getOperation()->getOperands().take_front(0);
}
OperandRange ComputeOp::getSharedInputs() { return getInputs(); }
int64_t ComputeOp::getLaneCount() { return 1; }
int64_t ComputeBatchOp::getLaneCount() { return getLanes(); }

/// The type one lane sees of a lane input: the input without its first
/// dimension.
static RankedTensorType laneSlice(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape().drop_front(),
                               tensor.getElementType());
}

static LogicalResult verifyCompute(ComputeOpInterface op) {
  Operation *operation = op.getOperation();
  int64_t lanes = op.getLaneCount();
  Block &body = op.getBodyBlock();
  SmallVector<Type> expectedArgs;
  for (Value input : op.getLaneInputs()) {
    auto type = cast<RankedTensorType>(input.getType());
    if (type.getRank() == 0 || type.getDimSize(0) != lanes)
      return operation->emitOpError()
             << "lane input of type " << type << " does not have " << lanes
             << " rows";
    expectedArgs.push_back(laneSlice(type));
  }
  for (Value input : op.getSharedInputs())
    expectedArgs.push_back(input.getType());
  if (body.getArgumentTypes() != TypeRange(expectedArgs))
    return operation->emitOpError("body arguments must be the lane slices of "
                                  "the lane inputs, then the shared inputs");
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().size() != operation->getNumResults())
    return operation->emitOpError("yields a different number of values than "
                                  "it has results");
  for (auto [yielded, result] :
       llvm::zip(yield.getValues(), operation->getResults())) {
    auto type = cast<RankedTensorType>(yielded.getType());
    Type expected = type;
    if (lanes > 1) {
      SmallVector<int64_t> shape = {lanes};
      llvm::append_range(shape, type.getShape());
      expected = RankedTensorType::get(shape, type.getElementType());
    }
    if (result.getType() != expected)
      return operation->emitOpError()
             << "result of type " << result.getType() << " should be "
             << expected;
  }
  for (Attribute tile : op.getTiles()) {
    auto t = cast<TileAttr>(tile);
    if (t.getRows() <= 0 || t.getCols() <= 0 || t.getRow() < 0 || t.getCol() < 0)
      return operation->emitOpError("tile windows must be non-empty");
  }
  return success();
}

LogicalResult ComputeOp::verify() { return verifyCompute(*this); }
LogicalResult ComputeBatchOp::verify() { return verifyCompute(*this); }

//===----------------------------------------------------------------------===//
// Body operations
//===----------------------------------------------------------------------===//

LogicalResult MVMOp::verify() {
  auto compute = (*this)->getParentOfType<ComputeOpInterface>();
  if (!compute)
    return emitOpError("must be inside a compute");
  ArrayAttr tiles = compute.getTiles();
  if (getTile() < 0 || getTile() >= (int64_t)tiles.size())
    return emitOpError() << "tile " << getTile() << " is not one of the "
                         << tiles.size() << " tiles of the compute";
  auto tile = cast<TileAttr>(tiles[getTile()]);
  int64_t in = getInput().getType().getDimSize(0);
  int64_t out = getOutput().getType().getDimSize(0);
  if (in != tile.getRows() || out != tile.getCols())
    return emitOpError() << "a " << tile.getRows() << "x" << tile.getCols()
                         << " tile takes " << tile.getRows()
                         << " elements and gives " << tile.getCols();
  return success();
}

/// Checks a lane-dependent window: digits cover the compute's lanes and the
/// last element read is inside the source.
static LogicalResult verifyLaneWindow(Operation *op, Value source, int64_t offset,
                                      ArrayRef<int64_t> dims, ArrayRef<int64_t> strides,
                                      int64_t span) {
  auto compute = op->getParentOfType<ComputeOpInterface>();
  if (!compute)
    return op->emitOpError("must be inside a compute");
  if (dims.size() != strides.size())
    return op->emitOpError("needs one lane stride per lane dimension");
  int64_t lanes = 1, last = offset + span - 1;
  for (auto [dim, stride] : llvm::zip(dims, strides)) {
    if (dim < 1 || stride < 0)
      return op->emitOpError("lane dimensions are positive and strides not negative");
    lanes *= dim;
    last += (dim - 1) * stride;
  }
  if (lanes != compute.getLaneCount())
    return op->emitOpError() << "lane dimensions cover " << lanes
                             << " lanes, the compute has " << compute.getLaneCount();
  int64_t numel = cast<ShapedType>(source.getType()).getNumElements();
  if (offset < 0 || last >= numel)
    return op->emitOpError() << "reads element " << last << " of a source of " << numel;
  return success();
}

LogicalResult GatherOp::verify() {
  int64_t count = getResult().getType().getDimSize(0);
  if (getStride() < 0)
    return emitOpError("needs a stride that is not negative");
  return verifyLaneWindow(*this, getSource(), getOffset(), getLaneDims(), getLaneStrides(),
                          (count - 1) * getStride() + 1);
}

LogicalResult LaneSliceOp::verify() {
  return verifyLaneWindow(*this, getSource(), getOffset(), getLaneDims(), getLaneStrides(),
                          getResult().getType().getNumElements());
}

LogicalResult ClampMinOp::verify() {
  if (getBound().getType().getNumElements() != 1)
    return emitOpError("needs a one-element bound");
  return success();
}
LogicalResult ClampMaxOp::verify() {
  if (getBound().getType().getNumElements() != 1)
    return emitOpError("needs a one-element bound");
  return success();
}

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

LogicalResult PadOp::verify() {
  ArrayRef<int64_t> in = getSource().getType().getShape();
  ArrayRef<int64_t> out = getResult().getType().getShape();
  if (getLow().size() != in.size() || getHigh().size() != in.size() ||
      out.size() != in.size())
    return emitOpError("needs low and high padding for every dimension");
  for (size_t d = 0; d < in.size(); ++d)
    if (getLow()[d] < 0 || getHigh()[d] < 0 || in[d] + getLow()[d] + getHigh()[d] != out[d])
      return emitOpError() << "dimension " << d << " of the result is not the padded size";
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (getSource().getType().getNumElements() !=
      getResult().getType().getNumElements())
    return emitOpError("must keep the number of elements");
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getSource().getType() == getType())
    return getSource();
  if (auto inner = getSource().getDefiningOp<ReshapeOp>()) {
    getSourceMutable().assign(inner.getSource());
    return getResult();
  }
  return {};
}

#define GET_OP_CLASSES
#include "pimc/Dialect/Spatial/SpatialOps.cpp.inc"
