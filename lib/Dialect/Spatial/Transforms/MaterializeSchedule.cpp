//===- MaterializeSchedule.cpp - stage 5: scheduled materialization -------===//
//
// Turns the scheduled dataflow function into one spat.core program per core.
// Computes are cloned into their core in schedule order; each input is
// rebuilt on the consumer's core from its fragments: read from global memory
// (model inputs and constants), taken from a local result, or received on a
// new channel from the producer's core, which sends exactly those elements.
// The model's outputs are stored by the cores that produce them.
//
//===----------------------------------------------------------------------===//

#include "pimc/Dialect/Spatial/Fragments.h"
#include "pimc/Dialect/Spatial/SpatialUtils.h"
#include "pimc/Dialect/Spatial/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

#include <cmath>
#include <map>
#include <tuple>

namespace pimc::spat {
#define GEN_PASS_DEF_SPATMATERIALIZESCHEDULE
#include "pimc/Dialect/Spatial/Transforms/Passes.h.inc"
} // namespace pimc::spat

using namespace mlir;
using namespace pimc;
using namespace pimc::spat;

namespace {

int64_t numElements(Value value) {
  return cast<ShapedType>(value.getType()).getNumElements();
}

RankedTensorType pieceType(MLIRContext *context, const Fragment &f) {
  auto f32 = Float32Type::get(context);
  if (f.count == 1)
    return RankedTensorType::get({f.length}, f32);
  return RankedTensorType::get({f.count, f.length}, f32);
}

/// Whether the rows of a fragment form a box of the [n / stride, stride]
/// view of a buffer of n elements.
bool isBox(int64_t n, int64_t start, int64_t length, int64_t count,
           int64_t stride) {
  if (count == 1)
    return true;
  return stride >= length && n % stride == 0 && start % stride + length <= stride;
}

/// Splits fragments whose rows do not form a box, on the side of the value
/// (n elements) and of its source (sourceElements), into single rows.
SmallVector<Fragment> boxes(ArrayRef<Fragment> fragments, int64_t n) {
  SmallVector<Fragment> result;
  for (const Fragment &f : fragments) {
    bool sourceBox = f.source.isFill() ||
                     isBox(numElements(f.source.value), f.sourceStart, f.length, f.count,
                           f.sourceStride);
    if (isBox(n, f.start, f.length, f.count, f.stride) && sourceBox) {
      result.push_back(f);
      continue;
    }
    for (int64_t r = 0; r < f.count; ++r) {
      Fragment row = f;
      row.count = 1;
      row.start = f.start + r * f.stride;
      row.sourceStart = f.sourceStart + r * f.sourceStride;
      row.stride = row.sourceStride = f.length;
      result.push_back(row);
    }
  }
  return result;
}

Value reshape(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return b.create<ReshapeOp>(loc, type.clone(shape), value);
}

SmallVector<OpFoldResult> indices(OpBuilder &b, ArrayRef<int64_t> values) {
  SmallVector<OpFoldResult> result;
  for (int64_t v : values)
    result.push_back(b.getIndexAttr(v));
  return result;
}

/// The elements of a fragment taken from a local value `source` (n elements).
Value extractPiece(OpBuilder &b, Location loc, Value source, int64_t start,
                   int64_t length, int64_t count, int64_t stride) {
  int64_t n = numElements(source);
  auto f32 = b.getF32Type();
  if (count == 1) {
    if (start == 0 && length == n)
      return reshape(b, loc, source, {n});
    Value flat = reshape(b, loc, source, {n});
    return b.create<tensor::ExtractSliceOp>(
        loc, RankedTensorType::get({length}, f32), flat, indices(b, {start}),
        indices(b, {length}), indices(b, {1}));
  }
  if (stride == length && start == 0 && count * length == n)
    return reshape(b, loc, source, {count, length});
  Value rows = reshape(b, loc, source, {n / stride, stride});
  return b.create<tensor::ExtractSliceOp>(
      loc, RankedTensorType::get({count, length}, f32), rows,
      indices(b, {start / stride, start % stride}), indices(b, {count, length}),
      indices(b, {1, 1}));
}

struct Materializer {
  ModuleOp module;
  func::FuncOp func;
  OpBuilder builder;
  SymbolTable symbols;
  FragmentAnalysis fragments;
  std::map<int64_t, CoreOp> cores;
  /// The value of each source (compute result) on the core that computes it.
  DenseMap<Value, Value> local;
  DenseMap<Value, int64_t> coreOfSource;
  /// Elements already brought to a core, so that two consumers share them.
  std::map<std::tuple<int64_t, void *, int64_t, int64_t, int64_t, int64_t>, Value>
      fetched;
  SmallVector<GlobalOp> inputs, outputs;
  std::map<std::pair<float, int64_t>, GlobalOp> fillRows;
  int64_t nextChannel = 0;

  Materializer(ModuleOp module, func::FuncOp func)
      : module(module), func(func), builder(module.getContext()), symbols(module) {}

  CoreOp core(int64_t id) {
    auto it = cores.find(id);
    if (it != cores.end())
      return it->second;
    builder.setInsertionPointToEnd(module.getBody());
    auto core = builder.create<CoreOp>(func.getLoc(), builder.getI64IntegerAttr(id));
    core.getBody().emplaceBlock();
    return cores[id] = core;
  }

  OpBuilder at(int64_t id) {
    return OpBuilder::atBlockEnd(&core(id).getBody().front());
  }

  /// The global of a non-compute source (a model input or a constant).
  StringRef globalOf(const Source &source) {
    if (auto arg = dyn_cast<BlockArgument>(source.value))
      return inputs[arg.getArgNumber()].getSymName();
    return source.value.getDefiningOp<GetGlobalOp>().getName();
  }

  /// A constant global of `length` elements of `value`, made once.
  StringRef fillRow(float value, int64_t length) {
    auto &global = fillRows[{value, length}];
    if (!global) {
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      auto type = RankedTensorType::get({length}, b.getF32Type());
      global = b.create<GlobalOp>(
          func.getLoc(), "fill", type, GlobalKind::constant,
          DenseElementsAttr::get(type, value), IntegerAttr(), StringAttr());
      symbols.insert(global); // renames on a clash
    }
    return global.getSymName();
  }

  /// The elements of fragment `f` on core `id`.
  Value fetch(int64_t id, const Fragment &f, Location loc) {
    auto key = std::make_tuple(id, f.source.value.getAsOpaquePointer(),
                               f.sourceStart, f.length, f.count, f.sourceStride);
    bool reusable = !f.source.isFill();
    if (auto known = fetched.find(key); reusable && known != fetched.end())
      return known->second;
    MLIRContext *context = module.getContext();
    Value piece;
    if (f.source.isFill()) {
      OpBuilder b = at(id);
      // lldi writes integers; other values are read from a row in global memory.
      float value = f.source.fill;
      if (value == std::trunc(value) && std::abs(value) <= 2147483648.0f)
        piece = b.create<FillOp>(loc, pieceType(context, f), b.getF32FloatAttr(value));
      else
        piece = b.create<LoadOp>(loc, pieceType(context, f), fillRow(value, f.length), 0, 0);
      return piece;
    }
    if (!f.source.isCompute()) {
      OpBuilder b = at(id);
      piece = b.create<LoadOp>(loc, pieceType(context, f), globalOf(f.source),
                               f.sourceStart, f.count > 1 ? f.sourceStride : 0);
    } else {
      int64_t from = coreOfSource.lookup(f.source.value);
      OpBuilder source = at(from);
      Value data = extractPiece(source, loc, local.lookup(f.source.value),
                                f.sourceStart, f.length, f.count, f.sourceStride);
      if (from == id) {
        piece = data;
      } else {
        int64_t channel = nextChannel++;
        source.create<SendOp>(loc, data, id, channel);
        OpBuilder b = at(id);
        piece = b.create<RecvOp>(loc, data.getType(), from, channel);
      }
    }
    fetched[key] = piece;
    return piece;
  }

  /// `value` rebuilt on core `id`.
  FailureOr<Value> materialize(int64_t id, Value value, Location loc) {
    FailureOr<ArrayRef<Fragment>> pieces = fragments.getFragments(value);
    if (failed(pieces))
      return failure();
    auto type = cast<RankedTensorType>(value.getType());
    int64_t n = type.getNumElements();
    SmallVector<Fragment> parts = boxes(*pieces, n);
    if (parts.size() == 1 && parts[0].start == 0 && parts[0].numElements() == n &&
        (parts[0].count == 1 || parts[0].stride == parts[0].length)) {
      Value piece = fetch(id, parts[0], loc);
      OpBuilder b = at(id);
      return reshape(b, loc, piece, type.getShape());
    }
    // Assembled from several places: each piece is fetched and then inserted
    // in a buffer, a box of rows at a time, so that later stages can have
    // it written in place.
    OpBuilder b = at(id);
    Value buffer = b.create<tensor::EmptyOp>(loc, ArrayRef<int64_t>{n}, b.getF32Type());
    for (const Fragment &f : parts) {
      if (f.count == 1) {
        Value piece = fetch(id, f, loc);
        b = at(id);
        buffer = b.create<tensor::InsertSliceOp>(loc, piece, buffer, indices(b, {f.start}),
                                                 indices(b, {f.length}), indices(b, {1}));
        continue;
      }
      Value rows = reshape(b, loc, buffer, {n / f.stride, f.stride});
      Value piece = fetch(id, f, loc);
      b = at(id);
      rows = b.create<tensor::InsertSliceOp>(
          loc, piece, rows, indices(b, {f.start / f.stride, f.start % f.stride}),
          indices(b, {f.count, f.length}), indices(b, {1, 1}));
      buffer = reshape(b, loc, rows, {n});
    }
    return reshape(b, loc, buffer, type.getShape());
  }

  /// Stores the fragments of model output `index` from their cores.
  LogicalResult store(unsigned index, Value value, int64_t fallbackCore) {
    FailureOr<ArrayRef<Fragment>> pieces = fragments.getFragments(value);
    if (failed(pieces))
      return failure();
    int64_t n = numElements(value);
    StringRef output = outputs[index].getSymName();
    for (const Fragment &f : boxes(*pieces, n)) {
      int64_t id = f.source.isCompute() ? coreOfSource.lookup(f.source.value)
                                        : fallbackCore;
      Value piece = fetch(id, f, func.getLoc());
      OpBuilder b = at(id);
      b.create<StoreOp>(func.getLoc(), piece, output, f.start,
                        f.count > 1 ? f.stride : 0);
    }
    return success();
  }

  LogicalResult run() {
    // Model inputs and outputs become globals.
    builder.setInsertionPoint(func);
    for (BlockArgument arg : func.getArguments()) {
      auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "onnx.name");
      auto global = builder.create<GlobalOp>(
          func.getLoc(), "input" + std::to_string(arg.getArgNumber()),
          cast<RankedTensorType>(arg.getType()), GlobalKind::input, ElementsAttr(),
          builder.getI64IntegerAttr(arg.getArgNumber()), name);
      inputs.push_back(global);
    }
    auto results = func.getResultTypes();
    for (auto [index, type] : llvm::enumerate(results)) {
      auto name = func.getResultAttrOfType<StringAttr>(index, "onnx.name");
      outputs.push_back(builder.create<GlobalOp>(
          func.getLoc(), "output" + std::to_string(index),
          cast<RankedTensorType>(type), GlobalKind::output, ElementsAttr(),
          builder.getI64IntegerAttr(index), name));
    }

    SmallVector<ComputeOpInterface> order;
    func.walk([&](ComputeOpInterface compute) { order.push_back(compute); });
    for (ComputeOpInterface compute : order)
      if (!compute->hasAttr(kCoreAttr))
        return compute.emitError("is not scheduled (run spat-peft-schedule)");
    llvm::stable_sort(order, [](ComputeOpInterface a, ComputeOpInterface b) {
      return getTimeAttr(a, kStartAttr) < getTimeAttr(b, kStartAttr);
    });
    for (ComputeOpInterface compute : order) {
      int64_t id = compute->getAttrOfType<IntegerAttr>(kCoreAttr).getInt();
      IRMapping mapping;
      for (Value input : compute->getOperands()) {
        FailureOr<Value> value = materialize(id, input, compute.getLoc());
        if (failed(value))
          return failure();
        mapping.map(input, *value);
      }
      OpBuilder b = at(id);
      Operation *clone = b.clone(*compute.getOperation(), mapping);
      for (auto [result, cloned] : llvm::zip(compute->getResults(), clone->getResults())) {
        local[result] = cloned;
        coreOfSource[result] = id;
      }
    }
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    int64_t fallbackCore = cores.empty() ? 0 : cores.begin()->first;
    for (auto [index, value] : llvm::enumerate(ret.getOperands()))
      if (failed(store(index, value, fallbackCore)))
        return failure();
    func.erase();
    return success();
  }
};

struct SpatMaterializeSchedulePass
    : public spat::impl::SpatMaterializeScheduleBase<SpatMaterializeSchedulePass> {
  using SpatMaterializeScheduleBase::SpatMaterializeScheduleBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    if (funcs.size() != 1) {
      module.emitError("expected exactly one dataflow function");
      return signalPassFailure();
    }
    Materializer materializer(module, funcs.front());
    if (failed(materializer.run()))
      signalPassFailure();
  }
};
} // namespace
