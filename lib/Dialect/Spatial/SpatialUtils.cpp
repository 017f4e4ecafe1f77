//===- SpatialUtils.cpp - helpers shared by the spat passes ---------------===//

#include "pimc/Dialect/Spatial/SpatialUtils.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace pimc;
using namespace pimc::spat;

int64_t pimc::spat::crossbarsOf(TileAttr tile, const Arch &arch) {
  int64_t perCrossbar = arch.outputsPerCrossbar();
  return (tile.getCols() + perCrossbar - 1) / perCrossbar;
}

int64_t pimc::spat::crossbarsOf(ComputeOpInterface compute, const Arch &arch) {
  int64_t total = 0;
  for (Attribute tile : compute.getTiles())
    total += crossbarsOf(cast<TileAttr>(tile), arch);
  return total;
}

int64_t pimc::spat::crossbarsIn(Operation *root, const Arch &arch) {
  int64_t total = 0;
  llvm::DenseSet<int64_t> copies;
  root->walk([&](ComputeOpInterface compute) {
    IntegerAttr copy = dialectOf(compute).getCopyAttrHelper().getAttr(compute);
    if (!copy || copies.insert(copy.getInt()).second)
      total += crossbarsOf(compute, arch);
  });
  return total;
}

ComputeOpInterface pimc::spat::buildCompute(
    OpBuilder &builder, Location loc, int64_t lanes, ValueRange laneInputs,
    ValueRange sharedInputs, ArrayRef<TileAttr> tiles, TypeRange laneResultTypes,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<Attribute> tileAttrs(tiles.begin(), tiles.end());
  ArrayAttr tileArray = builder.getArrayAttr(tileAttrs);
  SmallVector<Type> argTypes, resultTypes;
  for (Value input : laneInputs) {
    auto type = cast<RankedTensorType>(input.getType());
    argTypes.push_back(type.clone(type.getShape().drop_front()));
  }
  for (Value input : sharedInputs)
    argTypes.push_back(input.getType());
  for (Type type : laneResultTypes) {
    auto tensor = cast<RankedTensorType>(type);
    if (lanes == 1) {
      resultTypes.push_back(tensor);
      continue;
    }
    SmallVector<int64_t> shape = {lanes};
    llvm::append_range(shape, tensor.getShape());
    resultTypes.push_back(tensor.clone(shape));
  }
  Operation *op;
  Region *region;
  if (lanes == 1) {
    SmallVector<Value> inputs(laneInputs.begin(), laneInputs.end());
    assert(laneInputs.empty() && "a single lane reads its inputs whole");
    llvm::append_range(inputs, sharedInputs);
    auto compute = builder.create<ComputeOp>(loc, resultTypes, inputs, tileArray);
    op = compute;
    region = &compute.getBody();
  } else {
    auto batch = builder.create<ComputeBatchOp>(
        loc, resultTypes, builder.getI64IntegerAttr(lanes), laneInputs,
        sharedInputs, tileArray);
    op = batch;
    region = &batch.getBody();
  }
  OpBuilder::InsertionGuard guard(builder);
  SmallVector<Location> locs(argTypes.size(), loc);
  Block *block = builder.createBlock(region, {}, argTypes, locs);
  SmallVector<Value> yields = body(builder, loc, block->getArguments());
  builder.create<YieldOp>(loc, yields);
  return cast<ComputeOpInterface>(op);
}

SpatDialect &pimc::spat::dialectOf(Operation *op) {
  return *op->getContext()->getLoadedDialect<SpatDialect>();
}

double pimc::spat::startOf(Operation *op, double fallback) {
  FloatAttr start = dialectOf(op).getStartAttrHelper().getAttr(op);
  return start ? start.getValueAsDouble() : fallback;
}

double pimc::spat::finishOf(Operation *op, double fallback) {
  FloatAttr finish = dialectOf(op).getFinishAttrHelper().getAttr(op);
  return finish ? finish.getValueAsDouble() : fallback;
}
