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

/// A box of a flat buffer: `planes` planes of `count` rows of `length`
/// elements, from `start`.
struct Box {
  int64_t start, length, count, stride, planes, planeStride;
  SmallVector<int64_t> shape() const {
    if (planes > 1)
      return {planes, count, length};
    if (count > 1)
      return {count, length};
    return {length};
  }
};

Box valueBox(const Fragment &f) {
  return {f.start, f.length, f.count, f.stride, f.planes, f.planeStride};
}
Box sourceBox(const Fragment &f) {
  return {f.sourceStart, f.length, f.count, f.sourceStride, f.planes, f.sourcePlaneStride};
}

/// The view of a buffer of n elements in which `box` is a rectangular slice,
/// as (view shape, offsets), if there is one.
std::optional<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>> boxView(int64_t n,
                                                                             const Box &box) {
  if (box.planes == 1 && box.count == 1)
    return std::pair{SmallVector<int64_t>{n}, SmallVector<int64_t>{box.start}};
  if (box.stride < box.length || n % box.stride || box.start % box.stride + box.length > box.stride)
    return std::nullopt;
  if (box.planes == 1)
    return std::pair{SmallVector<int64_t>{n / box.stride, box.stride},
                     SmallVector<int64_t>{box.start / box.stride, box.start % box.stride}};
  int64_t rowsPerPlane = box.planeStride / box.stride;
  int64_t within = box.start % box.planeStride;
  if (box.planeStride % box.stride || n % box.planeStride ||
      within / box.stride + box.count > rowsPerPlane)
    return std::nullopt;
  return std::pair{SmallVector<int64_t>{n / box.planeStride, rowsPerPlane, box.stride},
                   SmallVector<int64_t>{box.start / box.planeStride, within / box.stride,
                                        within % box.stride}};
}

/// Splits fragments into ones that are boxes on both sides: of the value (n
/// elements) and of their source (global sources by rows or planes of rows
/// only, as loads are).
SmallVector<Fragment> boxes(ArrayRef<Fragment> fragments, int64_t n) {
  SmallVector<Fragment> result;
  for (const Fragment &f : fragments) {
    auto fits = [&](const Fragment &g) {
      bool sourceFits = g.source.isFill() ||
                        (!g.source.isCompute() && g.planes == 1) ||
                        (g.source.isCompute() &&
                         boxView(numElements(g.source.value), sourceBox(g)));
      return sourceFits && boxView(n, valueBox(g)).has_value();
    };
    if (fits(f)) {
      result.push_back(f);
      continue;
    }
    for (int64_t p = 0; p < f.planes; ++p) {
      Fragment plane = f.plane(p);
      if (fits(plane)) {
        result.push_back(plane);
        continue;
      }
      for (int64_t r = 0; r < plane.count; ++r)
        result.push_back(plane.row(r));
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

/// The elements of `box` of a local value `source`, shaped as the box.
Value extractBox(OpBuilder &b, Location loc, Value source, const Box &box) {
  int64_t n = numElements(source);
  SmallVector<int64_t> shape = box.shape();
  if (box.start == 0 && box.length * box.count * box.planes == n &&
      (box.count == 1 || box.stride == box.length) &&
      (box.planes == 1 || box.planeStride == box.count * box.length))
    return reshape(b, loc, source, shape);
  auto [view, offsets] = *boxView(n, box);
  Value viewed = reshape(b, loc, source, view);
  SmallVector<int64_t> sizes(view.size() - shape.size(), 1);
  llvm::append_range(sizes, shape);
  return b.create<tensor::ExtractSliceOp>(
      loc, RankedTensorType::get(shape, b.getF32Type()), viewed, indices(b, offsets),
      indices(b, sizes), indices(b, SmallVector<int64_t>(view.size(), 1)));
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
  std::map<std::tuple<int64_t, void *, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>,
           Value>
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
    auto key = std::make_tuple(id, f.source.value.getAsOpaquePointer(), f.sourceStart,
                               f.length, f.count, f.sourceStride, f.planes,
                               f.sourcePlaneStride);
    bool reusable = !f.source.isFill();
    if (auto known = fetched.find(key); reusable && known != fetched.end())
      return known->second;
    auto pieceType = RankedTensorType::get(valueBox(f).shape(), Float32Type::get(module.getContext()));
    Value piece;
    if (f.source.isFill()) {
      OpBuilder b = at(id);
      // lldi writes integers; other values are read from a row in global memory.
      float value = f.source.fill;
      if (value == std::trunc(value) && std::abs(value) <= 2147483648.0f)
        piece = b.create<FillOp>(loc, pieceType, b.getF32FloatAttr(value));
      else
        piece = b.create<LoadOp>(loc, pieceType, fillRow(value, f.length), 0, 0);
      return piece;
    }
    if (!f.source.isCompute()) {
      OpBuilder b = at(id);
      piece = b.create<LoadOp>(loc, pieceType, globalOf(f.source), f.sourceStart,
                               f.count > 1 ? f.sourceStride : 0);
    } else {
      int64_t from = coreOfSource.lookup(f.source.value);
      OpBuilder source = at(from);
      Value data = extractBox(source, loc, local.lookup(f.source.value), sourceBox(f));
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
    const Fragment &first = parts.front();
    if (parts.size() == 1 && first.start == 0 && first.numElements() == n &&
        (first.count == 1 || first.stride == first.length) &&
        (first.planes == 1 || first.planeStride == first.count * first.length)) {
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
      // The view in which the piece is a box exists before the piece, so
      // that the piece can be written into it.
      auto [view, offsets] = *boxView(n, valueBox(f));
      Value viewed = reshape(b, loc, buffer, view);
      Value piece = fetch(id, f, loc);
      b = at(id);
      SmallVector<int64_t> shape = valueBox(f).shape();
      SmallVector<int64_t> sizes(view.size() - shape.size(), 1);
      llvm::append_range(sizes, shape);
      viewed = b.create<tensor::InsertSliceOp>(
          loc, piece, viewed, indices(b, offsets), indices(b, sizes),
          indices(b, SmallVector<int64_t>(view.size(), 1)));
      buffer = reshape(b, loc, viewed, {n});
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
    for (const Fragment &whole : boxes(*pieces, n)) {
      // A store writes rows one stride apart: planes are stored one by one.
      for (int64_t p = 0; p < whole.planes; ++p) {
        Fragment f = whole.planes > 1 ? whole.plane(p) : whole;
        int64_t id = f.source.isCompute() ? coreOfSource.lookup(f.source.value)
                                          : fallbackCore;
        Value piece = fetch(id, f, func.getLoc());
        OpBuilder b = at(id);
        b.create<StoreOp>(func.getLoc(), piece, output, f.start,
                          f.count > 1 ? f.stride : 0);
      }
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
    auto coreAttr = dialectOf(func).getCoreAttrHelper();
    for (ComputeOpInterface compute : order)
      if (!coreAttr.getAttr(compute))
        return compute.emitError("is not scheduled (run spat-peft-schedule)");
    llvm::stable_sort(order, [](ComputeOpInterface a, ComputeOpInterface b) {
      return startOf(a) < startOf(b);
    });
    for (ComputeOpInterface compute : order) {
      int64_t id = coreAttr.getAttr(compute).getInt();
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
