//===- CostAnalysis.cpp - time of spat work on the chip -------------------===//

#include "pimc/Dialect/Spatial/CostAnalysis.h"
#include "pimc/Dialect/Spatial/SpatialUtils.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace pimc;
using namespace pimc::spat;

static int64_t length(Value value) {
  return cast<ShapedType>(value.getType()).getNumElements();
}

double pimc::spat::computeNs(ComputeOpInterface compute, const CostModel &cost) {
  double lane = 0;
  ArrayAttr tiles = compute.getTiles();
  for (Operation &op : compute.getBodyBlock().without_terminator())
    lane += llvm::TypeSwitch<Operation *, double>(&op)
                .Case([&](MVMOp mvm) {
                  auto tile = cast<TileAttr>(tiles[mvm.getTile()]);
                  return cost.mvmNs(crossbarsOf(tile, cost.getArch()));
                })
                .Case<AddOp, SubOp, MulOp, MaxOp>(
                    [&](Operation *o) { return cost.vectorNs(2, length(o->getResult(0))); })
                .Case<ReluOp, SigmoidOp, TanhOp, GatherOp>(
                    [&](Operation *o) { return cost.vectorNs(1, length(o->getResult(0))); })
                .Default([](Operation *) { return 0.0; });
  return lane * compute.getLaneCount();
}

BodyCounts pimc::spat::countBody(ComputeOpInterface compute) {
  BodyCounts counts;
  for (Operation &op : compute.getBodyBlock().without_terminator()) {
    if (isa<MVMOp>(op))
      ++counts.mvm;
    else if (isa<AddOp, SubOp, MulOp, MaxOp, ReluOp, SigmoidOp, TanhOp, GatherOp>(op))
      ++counts.vector;
  }
  return counts;
}
