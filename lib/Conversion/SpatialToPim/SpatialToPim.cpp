//===- SpatialToPim.cpp - stage 7: core programs to pim operations --------===//
//
// Each spat.core becomes a pim.core. The weight tiles of its computes become
// its array groups, in order; compute bodies are inlined, the lanes of a
// batch as an scf.for loop that slices each lane's inputs and inserts its
// results, and every spat operation becomes the pim operation of its
// instruction class, writing into a fresh destination tensor.
//
//===----------------------------------------------------------------------===//

#include "pimc/Dialect/Pim/ModuleArch.h"
#include "pimc/Arch/Arch.h"
#include "pimc/Conversion/Passes.h"
#include "pimc/Dialect/Pim/PimDialect.h"
#include "pimc/Dialect/Spatial/SpatialUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

namespace pimc {
#define GEN_PASS_DEF_CONVERTSPATIALTOPIM
#include "pimc/Conversion/Passes.h.inc"
} // namespace pimc

using namespace mlir;
using namespace pimc;

namespace {

SmallVector<OpFoldResult> indices(OpBuilder &b, ArrayRef<int64_t> values) {
  SmallVector<OpFoldResult> result;
  for (int64_t v : values)
    result.push_back(b.getIndexAttr(v));
  return result;
}

Value emptyLike(OpBuilder &b, Location loc, Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return b.create<tensor::EmptyOp>(loc, tensor.getShape(), tensor.getElementType());
}

/// insert_slice(P(..., into empty), dest) -> insert_slice(P(..., into
/// extract_slice(dest)), dest): the producer P writes where its result is
/// inserted, so that bufferization needs no copy.
struct WriteIntoDestination : public OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertSliceOp insert,
                                PatternRewriter &rewriter) const override {
    auto producer = insert.getSource().getDefiningOp<DestinationStyleOpInterface>();
    if (!producer || !insert.getSource().hasOneUse() || producer->getNumResults() != 1)
      return failure();
    OpOperand *init = producer.getDpsInitOperand(0);
    auto empty = init->get().getDefiningOp<tensor::EmptyOp>();
    if (!empty || !empty->hasOneUse())
      return failure();
    // The destination and the offsets must be available where P runs.
    DominanceInfo dominance;
    SmallVector<Value> needed = {insert.getDest()};
    llvm::append_range(needed, insert.getOffsets());
    for (Value value : needed)
      if (!dominance.properlyDominates(value, producer))
        return failure();
    rewriter.setInsertionPoint(producer);
    Value place = rewriter.create<tensor::ExtractSliceOp>(
        insert.getLoc(), cast<RankedTensorType>(insert.getSource().getType()),
        insert.getDest(), insert.getMixedOffsets(), insert.getMixedSizes(),
        insert.getMixedStrides());
    rewriter.modifyOpInPlace(producer, [&] { init->set(place); });
    rewriter.eraseOp(empty);
    return success();
  }
};

/// The same elements under `shape`: collapsed to 1-D, then expanded.
Value reshapeTensor(OpBuilder &b, Location loc, Value value,
                    RankedTensorType type) {
  auto source = cast<RankedTensorType>(value.getType());
  if (source == type)
    return value;
  int64_t n = source.getNumElements();
  auto flatType = RankedTensorType::get({n}, source.getElementType());
  Value flat = value;
  if (source.getRank() != 1) {
    SmallVector<ReassociationIndices> all(1);
    for (int64_t d = 0; d < source.getRank(); ++d)
      all[0].push_back(d);
    if (source.getRank() == 0)
      all.clear();
    flat = b.create<tensor::CollapseShapeOp>(loc, source.getRank() ? flatType
                                                                   : flatType,
                                             value, all);
  }
  if (type.getRank() == 1)
    return flat;
  SmallVector<ReassociationIndices> all(1);
  for (int64_t d = 0; d < type.getRank(); ++d)
    all[0].push_back(d);
  if (type.getRank() == 0)
    all.clear();
  return b.create<tensor::ExpandShapeOp>(loc, type, flat, all);
}

class CoreLowering {
public:
  CoreLowering(const Arch &arch, spat::CoreOp core, pim::CoreOp target)
      : arch(arch), core(core), target(target) {}

  LogicalResult run() {
    OpBuilder b = OpBuilder::atBlockEnd(&target.getBody().front());
    for (Operation &op : core.getBody().front())
      if (failed(lower(b, op)))
        return failure();
    int64_t crossbars = 0;
    for (Attribute attr : groups)
      crossbars += writtenBy(cast<pim::GroupAttr>(attr).getCols()) /
                   arch.outputsPerCrossbar();
    if (crossbars > arch.matrix.xbarArrayCount)
      return core.emitError() << "core " << core.getId() << " needs " << crossbars
                              << " crossbars for its array groups; a core has "
                              << arch.matrix.xbarArrayCount;
    target.setGroupsAttr(ArrayAttr::get(core.getContext(), groups));
    // Concatenations become inserts into one buffer; a value produced only to
    // be inserted is written straight into its place.
    RewritePatternSet patterns(core.getContext());
    tensor::populateDecomposeTensorConcatPatterns(patterns);
    patterns.add<WriteIntoDestination>(core.getContext());
    // The body is one block of straight-line code and loops: nothing for
    // region simplification to merge, and it is costly on large cores.
    GreedyRewriteConfig config;
    config.enableRegionSimplification = GreedySimplifyRegionLevel::Disabled;
    return applyPatternsAndFoldGreedily(target, std::move(patterns), config);
  }

private:
  Value index(OpBuilder &b, Location loc, int64_t value) {
    return b.create<arith::ConstantIndexOp>(loc, value);
  }

  LogicalResult lower(OpBuilder &b, Operation &op) {
    Location loc = op.getLoc();
    return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
        .Case([&](spat::LoadOp load) {
          Value result = b.create<pim::LoadOp>(
              loc, load.getType(), load.getGlobal(), index(b, loc, load.getOffset()),
              load.getRowStride(), emptyLike(b, loc, load.getType()))
                             ->getResult(0);
          map.map(load.getResult(), result);
          return success();
        })
        .Case([&](spat::StoreOp store) {
          b.create<pim::StoreOp>(loc, map.lookup(store.getValue()), store.getGlobal(),
                                 index(b, loc, store.getOffset()),
                                 store.getRowStride());
          return success();
        })
        .Case([&](spat::SendOp send) {
          b.create<pim::SendOp>(loc, map.lookup(send.getValue()), send.getTarget());
          return success();
        })
        .Case([&](spat::RecvOp recv) {
          Value result = b.create<pim::RecvOp>(loc, recv.getType(), recv.getSource(),
                                               emptyLike(b, loc, recv.getType()))
                             ->getResult(0);
          map.map(recv.getResult(), result);
          return success();
        })
        .Case([&](spat::ReshapeOp reshape) {
          map.map(reshape.getResult(),
                  reshapeTensor(b, loc, map.lookup(reshape.getSource()),
                                reshape.getType()));
          return success();
        })
        .Case([&](spat::FillOp fill) -> LogicalResult {
          float value = fill.getValue().convertToFloat();
          if (value != std::trunc(value))
            return fill.emitOpError("lldi fills with integers only");
          map.map(fill.getResult(),
                  b.create<pim::LLDIOp>(loc, fill.getType(),
                                        b.getI64IntegerAttr(static_cast<int64_t>(value)),
                                        emptyLike(b, loc, fill.getType()))
                      ->getResult(0));
          return success();
        })
        .Case<tensor::ExtractSliceOp, tensor::InsertSliceOp, tensor::EmptyOp>(
            [&](Operation *tensorOp) {
              b.clone(*tensorOp, map);
              return success();
            })
        .Case([&](spat::ComputeOpInterface compute) { return lowerCompute(b, compute); })
        .Default([&](Operation *other) {
          return other->emitOpError("cannot be lowered to pim operations");
        });
  }

  LogicalResult lowerCompute(OpBuilder &b, spat::ComputeOpInterface compute) {
    // The compute's tiles become array groups of the core; a tile already
    // there (a copy of the weights the computes share, spat.copy) is used
    // again: the core issues one mvm at a time anyway.
    SmallVector<int64_t> groupOf;
    for (Attribute attr : compute.getTiles()) {
      auto tile = cast<spat::TileAttr>(attr);
      auto group = pim::GroupAttr::get(core.getContext(), tile.getWeights(), tile.getRow(),
                                       tile.getCol(), tile.getRows(), tile.getCols());
      auto [it, isNew] = groupIndex.try_emplace(group, groups.size());
      if (isNew)
        groups.push_back(group);
      groupOf.push_back(it->second);
    }
    Location loc = compute.getLoc();
    Block &body = compute.getBodyBlock();
    auto yield = cast<spat::YieldOp>(body.getTerminator());
    int64_t lanes = compute.getLaneCount();
    if (lanes == 1) {
      IRMapping inner;
      for (auto [arg, input] : llvm::zip(body.getArguments(), compute->getOperands()))
        inner.map(arg, map.lookup(input));
      if (failed(lowerBody(b, body, inner, groupOf, Value())))
        return failure();
      for (auto [result, yielded] : llvm::zip(compute->getResults(), yield.getValues()))
        map.map(result, inner.lookup(yielded));
      return success();
    }
    // Each lane writes its results in place, into its row of the batch's
    // result: the instruction producing a yielded value takes that row as its
    // destination. An mvm result narrower than what the array group writes
    // gets a row as wide as the write, and the batch's result is the slice
    // of the meaningful columns.
    SmallVector<int64_t> rowWidth;
    for (Value yielded : yield.getValues()) {
      int64_t width = cast<RankedTensorType>(yielded.getType()).getNumElements();
      if (auto mvm = yielded.getDefiningOp<spat::MVMOp>())
        width = writtenBy(cast<spat::TileAttr>(compute.getTiles()[mvm.getTile()]).getCols());
      rowWidth.push_back(width);
    }
    SmallVector<Value> inits;
    for (auto [result, width] : llvm::zip(compute->getResults(), rowWidth)) {
      auto type = cast<RankedTensorType>(result.getType());
      SmallVector<int64_t> shape(type.getShape());
      if (shape.size() == 2)
        shape[1] = width;
      inits.push_back(b.create<tensor::EmptyOp>(loc, shape, type.getElementType()));
    }
    size_t laneCount = compute.getLaneInputs().size();
    LogicalResult status = success();
    auto loop = b.create<scf::ForOp>(
        loc, index(b, loc, 0), index(b, loc, lanes), index(b, loc, 1), inits,
        [&](OpBuilder &lb, Location l, Value lane, ValueRange accumulators) {
          IRMapping inner;
          for (auto [i, input] : llvm::enumerate(compute->getOperands())) {
            Value value = map.lookup(input);
            if (i < laneCount)
              value = laneRow(lb, l, value, lane);
            inner.map(body.getArgument(i), value);
          }
          if (failed(lowerBody(lb, body, inner, groupOf, lane)))
            status = failure();
          SmallVector<Value> updated;
          for (auto [acc, yielded] : llvm::zip(accumulators, yield.getValues())) {
            Value row = inner.lookup(yielded);
            // Look through the slice of the meaningful columns of an mvm.
            if (auto slice = row.getDefiningOp<tensor::ExtractSliceOp>();
                slice && slice.getSource().getDefiningOp<pim::MVMOp>() &&
                yielded.getDefiningOp<spat::MVMOp>())
              row = slice.getSource();
            // The producer writes straight into the lane's row.
            if (auto producer = row.getDefiningOp<DestinationStyleOpInterface>()) {
              OpOperand *init = producer.getDpsInitOperand(0);
              if (auto empty = init->get().getDefiningOp<tensor::EmptyOp>();
                  empty && empty->hasOneUse()) {
                OpBuilder::InsertionGuard guard(lb);
                lb.setInsertionPoint(producer);
                init->set(laneRow(lb, l, acc, lane));
                empty->erase();
              }
            }
            auto rowType = cast<RankedTensorType>(row.getType());
            SmallVector<OpFoldResult> offsets = {lane}, sizes = {lb.getIndexAttr(1)};
            for (int64_t d : rowType.getShape()) {
              offsets.push_back(lb.getIndexAttr(0));
              sizes.push_back(lb.getIndexAttr(d));
            }
            SmallVector<OpFoldResult> strides(rowType.getRank() + 1, lb.getIndexAttr(1));
            updated.push_back(lb.create<tensor::InsertSliceOp>(l, row, acc, offsets,
                                                               sizes, strides));
          }
          lb.create<scf::YieldOp>(l, updated);
        });
    for (auto [result, rows] : llvm::zip(compute->getResults(), loop.getResults())) {
      auto type = cast<RankedTensorType>(result.getType());
      Value value = rows;
      if (rows.getType() != type)
        value = b.create<tensor::ExtractSliceOp>(
            loc, type, rows, indices(b, {0, 0}), indices(b, type.getShape()),
            indices(b, {1, 1}));
      map.map(result, value);
    }
    return status;
  }

  /// The elements an mvm writes on an array group holding `cols` columns.
  int64_t writtenBy(int64_t cols) {
    int64_t perCrossbar = arch.outputsPerCrossbar();
    return (cols + perCrossbar - 1) / perCrossbar * perCrossbar;
  }

  /// Row `lane` of a [lanes, ...] tensor, without its first dimension.
  Value laneRow(OpBuilder &b, Location loc, Value value, Value lane) {
    auto type = cast<RankedTensorType>(value.getType());
    ArrayRef<int64_t> rest = type.getShape().drop_front();
    SmallVector<OpFoldResult> offsets = {lane}, sizes = {b.getIndexAttr(1)};
    for (int64_t d : rest) {
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(b.getIndexAttr(d));
    }
    SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
    return b.create<tensor::ExtractSliceOp>(loc, type.clone(rest), value, offsets,
                                            sizes, strides);
  }

  /// Elements [start, start + length) of `source`'s row-major elements, where
  /// start = offset + sum_k digit_k(lane) * strides[k] (the lane's digits in
  /// the mixed radix `dims`); a view, not a copy.
  Value laneWindow(OpBuilder &b, Location loc, Value source, Value lane, int64_t offset,
                   ArrayRef<int64_t> dims, ArrayRef<int64_t> strides, int64_t length) {
    int64_t n = cast<RankedTensorType>(source.getType()).getNumElements();
    Value flat = reshapeTensor(b, loc, source, RankedTensorType::get({n}, b.getF32Type()));
    OpFoldResult start = b.getIndexAttr(offset);
    if (lane && !dims.empty()) {
      Value sum = index(b, loc, offset);
      Value rest = lane;
      for (int64_t k = dims.size() - 1; k >= 0; --k) {
        Value radix = index(b, loc, dims[k]);
        Value digit = k ? b.create<arith::RemUIOp>(loc, rest, radix).getResult() : rest;
        if (strides[k]) {
          Value term = b.create<arith::MulIOp>(loc, digit, index(b, loc, strides[k]));
          sum = b.create<arith::AddIOp>(loc, sum, term);
        }
        if (k)
          rest = b.create<arith::DivUIOp>(loc, rest, radix);
      }
      start = sum;
    }
    if (!lane && length == n)
      return flat;
    return b.create<tensor::ExtractSliceOp>(
        loc, RankedTensorType::get({length}, b.getF32Type()), flat,
        SmallVector<OpFoldResult>{start}, indices(b, {length}), indices(b, {1}));
  }

  LogicalResult lowerBody(OpBuilder &b, Block &body, IRMapping &inner,
                          ArrayRef<int64_t> groupOf, Value lane) {
    for (Operation &op : body.without_terminator()) {
      Location loc = op.getLoc();
      auto vector = [&](auto tag, ValueRange inputs) {
        using PimOp = decltype(tag);
        Type type = op.getResult(0).getType();
        SmallVector<Value> operands;
        for (Value input : inputs)
          operands.push_back(inner.lookup(input));
        operands.push_back(emptyLike(b, loc, type));
        inner.map(op.getResult(0),
                  b.create<PimOp>(loc, TypeRange{type}, operands)->getResult(0));
        return success();
      };
      LogicalResult status =
          llvm::TypeSwitch<Operation *, LogicalResult>(&op)
              .Case([&](spat::MVMOp mvm) {
                int64_t group = groupOf[mvm.getTile()];
                auto attr = cast<pim::GroupAttr>(groups[group]);
                int64_t written = writtenBy(attr.getCols());
                auto outType = RankedTensorType::get({written}, b.getF32Type());
                Value out = b.create<pim::MVMOp>(loc, outType,
                                                 inner.lookup(mvm.getInput()),
                                                 emptyLike(b, loc, outType), group)
                                ->getResult(0);
                if (written != attr.getCols())
                  out = b.create<tensor::ExtractSliceOp>(
                      loc, mvm.getType(), out, indices(b, {0}),
                      indices(b, {attr.getCols()}), indices(b, {1}));
                inner.map(mvm.getResult(), out);
                return success();
              })
              .Case([&](spat::AddOp o) { return vector(pim::VVAddOp(), o->getOperands()); })
              .Case([&](spat::SubOp o) { return vector(pim::VVSubOp(), o->getOperands()); })
              .Case([&](spat::MulOp o) { return vector(pim::VVMulOp(), o->getOperands()); })
              .Case([&](spat::MaxOp o) { return vector(pim::VVMaxOp(), o->getOperands()); })
              .Case([&](spat::ReluOp o) { return vector(pim::VReluOp(), o->getOperands()); })
              .Case([&](spat::SigmoidOp o) { return vector(pim::VSigmOp(), o->getOperands()); })
              .Case([&](spat::TanhOp o) { return vector(pim::VTanhOp(), o->getOperands()); })
              .Case([&](spat::GatherOp gather) {
                Value source = inner.lookup(gather.getSource());
                int64_t count = gather.getType().getDimSize(0);
                int64_t span = (count - 1) * gather.getStride() + 1;
                Value window = laneWindow(b, loc, source, lane, gather.getOffset(),
                                          gather.getLaneDims(), gather.getLaneStrides(), span);
                inner.map(gather.getResult(),
                          b.create<pim::VMVOp>(loc, gather.getType(), window,
                                               emptyLike(b, loc, gather.getType()),
                                               gather.getStride())
                              ->getResult(0));
                return success();
              })
              .Case([&](spat::LaneSliceOp laneSlice) {
                inner.map(laneSlice.getResult(),
                          laneWindow(b, loc, inner.lookup(laneSlice.getSource()), lane,
                                     laneSlice.getOffset(), laneSlice.getLaneDims(),
                                     laneSlice.getLaneStrides(),
                                     laneSlice.getType().getNumElements()));
                return success();
              })
              .Case([&](spat::ClampMinOp o) { return vector(pim::VRSLOp(), o->getOperands()); })
              .Case([&](spat::ClampMaxOp o) { return vector(pim::VRSUOp(), o->getOperands()); })
              .Case([&](tensor::ConcatOp concat) {
                b.clone(*concat, inner);
                return success();
              })
              .Case<tensor::ExtractSliceOp, tensor::InsertSliceOp, tensor::EmptyOp>(
                  [&](Operation *tensorOp) {
                    b.clone(*tensorOp, inner);
                    return success();
                  })
              .Case([&](spat::ReshapeOp reshape) {
                inner.map(reshape.getResult(),
                          reshapeTensor(b, loc, inner.lookup(reshape.getSource()),
                                        reshape.getType()));
                return success();
              })
              .Default([&](Operation *other) {
                return other->emitOpError("cannot be lowered to pim operations");
              });
      if (failed(status))
        return failure();
    }
    return success();
  }

  const Arch &arch;
  spat::CoreOp core;
  pim::CoreOp target;
  IRMapping map;
  SmallVector<Attribute> groups;
  DenseMap<Attribute, int64_t> groupIndex;
};

struct ConvertSpatialToPimPass
    : public pimc::impl::ConvertSpatialToPimBase<ConvertSpatialToPimPass> {
  using ConvertSpatialToPimBase::ConvertSpatialToPimBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::shared_ptr<const Arch> arch = archOf(module);
    if (!arch)
      return signalPassFailure();
    if (!module.getOps<func::FuncOp>().empty()) {
      module.emitError("the dataflow function is not materialized (run "
                       "spat-materialize-schedule)");
      return signalPassFailure();
    }
    OpBuilder b(&getContext());
    for (auto global : llvm::make_early_inc_range(module.getOps<spat::GlobalOp>())) {
      b.setInsertionPoint(global);
      b.create<pim::GlobalOp>(global.getLoc(), global.getSymName(), global.getType(),
                              static_cast<pim::GlobalKind>(global.getKind()),
                              global.getValueAttr(), global.getIndexAttr(),
                              global.getIoNameAttr());
      global.erase();
    }
    SmallVector<spat::CoreOp> cores(module.getOps<spat::CoreOp>());
    for (spat::CoreOp core : cores) {
      b.setInsertionPoint(core);
      auto target = b.create<pim::CoreOp>(core.getLoc(), core.getId(),
                                          b.getArrayAttr({}));
      target.getBody().emplaceBlock();
      if (failed(CoreLowering(*arch, core, target).run()))
        return signalPassFailure();
      core.erase();
    }
  }
};
} // namespace
