//===- OnnxToSpatial.cpp - stage 2: ONNX operators to spatial computes ----===//
//
// One pattern per operator of the canonical onnx graph (convolutions and
// pooling are in Windows.cpp). Constants become spat.global symbols; work
// becomes computes whose lanes are the rows of the data.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "pimc/Conversion/Passes.h"
#include "pimc/Dialect/Pim/ModuleArch.h"
#include "pimc/Arch/CostModel.h"
#include "pimc/Support/Constants.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FormatVariadic.h"

namespace pimc {
#define GEN_PASS_DEF_CONVERTONNXTOSPATIAL
#include "pimc/Conversion/Passes.h.inc"
} // namespace pimc

using namespace mlir;
using namespace pimc;
using namespace pimc::spat;
using namespace pimc::lowering;

std::pair<int64_t, int64_t> lowering::rowsAndCols(RankedTensorType type) {
  int64_t cols = type.getRank() ? type.getShape().back() : 1;
  return {cols ? type.getNumElements() / cols : 0, cols};
}

RankedTensorType lowering::f32Tensor(MLIRContext *context, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, Float32Type::get(context));
}

Value lowering::reshape(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return b.create<ReshapeOp>(loc, type.clone(shape), value);
}

Value lowering::slice(OpBuilder &b, Location loc, Value source, ArrayRef<int64_t> offsets,
                      ArrayRef<int64_t> sizes, ArrayRef<int64_t> resultShape) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<OpFoldResult> o, s, st;
  for (auto [offset, size] : llvm::zip(offsets, sizes)) {
    o.push_back(b.getIndexAttr(offset));
    s.push_back(b.getIndexAttr(size));
    st.push_back(b.getIndexAttr(1));
  }
  return b.create<tensor::ExtractSliceOp>(loc, type.clone(resultShape), source, o, s, st);
}

Value lowering::pick(OpBuilder &b, Location loc, Value source,
                     const ref::Positions &positions) {
  auto type = cast<RankedTensorType>(source.getType());
  int64_t rank = type.getRank();
  // The runs of consecutive positions along each dimension: (first, length).
  SmallVector<SmallVector<std::pair<int64_t, int64_t>>> runs(rank);
  for (int64_t d = 0; d < rank; ++d)
    for (int64_t p : positions[d]) {
      if (!runs[d].empty() && runs[d].back().first + runs[d].back().second == p)
        ++runs[d].back().second;
      else
        runs[d].push_back({p, 1});
    }
  SmallVector<int64_t> offsets(rank, 0), sizes(type.getShape());
  for (int64_t d = 0; d < rank; ++d)
    if (runs[d].size() == 1)
      std::tie(offsets[d], sizes[d]) = runs[d].front();
  Value value = source;
  if (ArrayRef<int64_t>(sizes) != type.getShape())
    value = slice(b, loc, source, offsets, sizes, sizes);
  for (int64_t d = 0; d < rank; ++d) {
    if (runs[d].size() < 2)
      continue;
    ArrayRef<int64_t> shape = cast<RankedTensorType>(value.getType()).getShape();
    SmallVector<Value> parts;
    for (auto [first, length] : runs[d]) {
      SmallVector<int64_t> partOffsets(rank, 0), partSizes(shape);
      partOffsets[d] = first;
      partSizes[d] = length;
      parts.push_back(ArrayRef<int64_t>(partSizes) == shape
                          ? value
                          : slice(b, loc, value, partOffsets, partSizes, partSizes));
    }
    value = b.create<tensor::ConcatOp>(loc, d, parts);
  }
  return value;
}

GlobalOp lowering::globalOf(Value value) {
  auto get = value.getDefiningOp<GetGlobalOp>();
  if (!get)
    return {};
  return SymbolTable::lookupNearestSymbolFrom<GlobalOp>(get, get.getNameAttr());
}

std::optional<ConstantView> lowering::constantViewOf(Value value) {
  GlobalOp global = globalOf(value);
  if (!global)
    return std::nullopt;
  std::optional<FloatData> data = FloatData::get(*global.getValue());
  if (!data)
    return std::nullopt;
  return ConstantView{global.getType().getShape(), std::move(*data)};
}

std::optional<ref::Tensor> lowering::constantOf(Value value) {
  std::optional<ConstantView> view = constantViewOf(value);
  if (!view)
    return std::nullopt;
  ArrayRef<float> values = view->data.values();
  return ref::Tensor(std::vector<int64_t>(view->shape.begin(), view->shape.end()),
                     std::vector<float>(values.begin(), values.end()));
}

std::string lowering::nameOf(Operation *op, StringRef fallback) {
  if (auto name = dyn_cast<NameLoc>(op->getLoc())) {
    std::string text;
    for (char c : name.getName().strref()) {
      if (isalnum(static_cast<unsigned char>(c)))
        text += c;
      else if (!text.empty() && text.back() != '_')
        text += '_';
    }
    while (!text.empty() && text.back() == '_')
      text.pop_back();
    if (!text.empty())
      return text;
  }
  return fallback.str();
}

GlobalOp LoweringContext::addGlobal(OpBuilder &b, Location loc, StringRef name,
                                    ElementsAttr value) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto type = cast<RankedTensorType>(value.getType());
  auto global = b.create<GlobalOp>(loc, name, type, GlobalKind::constant, value,
                                   IntegerAttr(), StringAttr());
  symbols.insert(global); // renames on a clash
  return global;
}

Value LoweringContext::constant(OpBuilder &b, Location loc, StringRef name,
                                const ref::Tensor &tensor) {
  auto type = f32Tensor(b.getContext(), tensor.shape);
  GlobalOp global = addGlobal(b, loc, name, makeFloatConstant(type, tensor.data, name));
  return b.create<GetGlobalOp>(loc, type, global.getSymName());
}

FailureOr<RowOperand> lowering::broadcastOperand(ConversionPatternRewriter &rewriter,
                                                 Operation *op, Value value,
                                                 RankedTensorType resultType,
                                                 LoweringContext &lowering) {
  auto type = cast<RankedTensorType>(value.getType());
  auto [rows, cols] = rowsAndCols(resultType);
  if (type.getShape() == resultType.getShape())
    return RowOperand{value, false};
  ArrayRef<int64_t> shape = type.getShape();
  if (type.getNumElements() == cols && (cols == 1 || (!shape.empty() && shape.back() == cols)))
    return RowOperand{value, true};
  std::optional<ref::Tensor> constant = constantOf(value);
  if (!constant) {
    // A computed tensor broadcast another way is read through a view that
    // repeats its elements (a per-channel scale of the rows of an image).
    int64_t rank = resultType.getRank(), missing = rank - type.getRank();
    SmallVector<int64_t> aligned(missing, 1);
    llvm::append_range(aligned, shape);
    ref::Positions positions = ref::allPositions(aligned);
    for (int64_t d = 0; d < rank; ++d)
      if (aligned[d] == 1)
        positions[d].assign(resultType.getDimSize(d), 0);
    Value full = reshape(rewriter, op->getLoc(), value, aligned);
    return RowOperand{pick(rewriter, op->getLoc(), full, positions), false};
  }
  std::vector<int64_t> full(resultType.getShape().begin(), resultType.getShape().end());
  llvm::Expected<ref::Tensor> expanded = ref::broadcastTo(*constant, full);
  if (!expanded) {
    op->emitError(llvm::toString(expanded.takeError()));
    return failure();
  }
  // A constant that is the same in every row is one shared row.
  bool sameRows = true;
  for (int64_t r = 1; r < rows && sameRows; ++r)
    sameRows = std::equal(expanded->data.begin() + r * cols,
                          expanded->data.begin() + (r + 1) * cols, expanded->data.begin());
  std::string name = globalOf(value).getSymName().str() + "_broadcast";
  if (sameRows) {
    ref::Tensor row({cols}, std::vector<float>(expanded->data.begin(),
                                               expanded->data.begin() + cols));
    return RowOperand{lowering.constant(rewriter, op->getLoc(), name, row), true};
  }
  return RowOperand{lowering.constant(rewriter, op->getLoc(), name, *expanded), false};
}

/// The blocks of rows `value` (as [rows, cols]) is a concatenation of, if
/// it is one.
static SmallVector<Value> rowBlocks(Value value, int64_t rows, int64_t cols) {
  while (auto reshapeOp = value.getDefiningOp<ReshapeOp>())
    value = reshapeOp.getSource();
  auto concat = value.getDefiningOp<tensor::ConcatOp>();
  if (!concat || concat.getDim() != 0)
    return {};
  int64_t covered = 0;
  for (Value input : concat.getInputs()) {
    int64_t n = cast<RankedTensorType>(input.getType()).getNumElements();
    if (n % cols)
      return {};
    covered += n / cols;
  }
  if (covered != rows)
    return {};
  return SmallVector<Value>(concat.getInputs());
}

Value lowering::lowerElementwise(
    ConversionPatternRewriter &rewriter, Location loc, const LoweringContext &lowering,
    RankedTensorType resultType, ArrayRef<RowOperand> operands,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  auto [rows, cols] = rowsAndCols(resultType);
  // Rows too long for a core are cut into rows of a divisor of their
  // length, when no operand is a shared row.
  int64_t budget = lowering.arch.localMemory.memorySize / 2;
  int64_t rowBytes = cols * lowering.arch.inputBytes() * (operands.size() + 1);
  if (rowBytes > budget && llvm::none_of(operands, [](const RowOperand &o) { return o.shared; })) {
    int64_t width = 1;
    for (int64_t w = budget / (lowering.arch.inputBytes() * (operands.size() + 1)); w > 1; --w)
      if (cols % w == 0) {
        width = w;
        break;
      }
    if (width > 1) {
      SmallVector<RowOperand> narrow;
      for (const RowOperand &operand : operands)
        narrow.push_back({reshape(rewriter, loc, operand.value,
                                  {rows * (cols / width), width}),
                          false});
      Value result = lowerElementwise(rewriter, loc, lowering,
                                      f32Tensor(rewriter.getContext(),
                                                {rows * (cols / width), width}),
                                      narrow, body);
      return reshape(rewriter, loc, result, resultType.getShape());
    }
  }
  auto rowType = f32Tensor(rewriter.getContext(), {cols});
  // Chunks of rows: those of the first row operand's blocks, or equal ones
  // that fit in half a core's memory.
  SmallVector<Value> blocks;
  for (const RowOperand &operand : operands)
    if (!operand.shared) {
      blocks = rowBlocks(operand.value, rows, cols);
      break;
    }
  SmallVector<int64_t> bounds = {0};
  if (blocks.size() > 1) {
    for (Value block : blocks)
      bounds.push_back(bounds.back() +
                       cast<RankedTensorType>(block.getType()).getNumElements() / cols);
  } else {
    int64_t perChunk = std::max<int64_t>(1, budget / rowBytes);
    int64_t chunks = (rows + perChunk - 1) / perChunk;
    for (int64_t c = 1; c <= chunks; ++c)
      bounds.push_back(rows * c / chunks);
  }
  SmallVector<Value> results;
  for (size_t c = 0; c + 1 < bounds.size(); ++c) {
    int64_t first = bounds[c], count = bounds[c + 1] - first;
    // With one row, every operand is read whole.
    SmallVector<Value> laneInputs, sharedInputs;
    SmallVector<std::pair<bool, size_t>> position; // (lane?, index) per operand
    for (const RowOperand &operand : operands) {
      bool lane = !operand.shared && count > 1;
      Value input = operand.value;
      if (operand.whole) {
        position.push_back({false, sharedInputs.size()});
        sharedInputs.push_back(input);
        continue;
      }
      if (!operand.shared) {
        SmallVector<Value> own = rowBlocks(input, rows, cols);
        if (own.size() + 1 == bounds.size() &&
            cast<RankedTensorType>(own[c].getType()).getNumElements() == count * cols)
          input = own[c];
        else if (count != rows)
          input = slice(rewriter, loc, reshape(rewriter, loc, input, {rows, cols}),
                        {first, 0}, {count, cols}, {count, cols});
      }
      input = reshape(rewriter, loc, input,
                      lane ? ArrayRef<int64_t>{count, cols} : ArrayRef<int64_t>{cols});
      SmallVector<Value> &list = lane ? laneInputs : sharedInputs;
      position.push_back({lane, list.size()});
      list.push_back(input);
    }
    size_t laneCount = laneInputs.size();
    ComputeOpInterface compute = buildCompute(
        rewriter, loc, count, laneInputs, sharedInputs, {}, {rowType},
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          SmallVector<Value> ordered;
          for (auto [lane, index] : position)
            ordered.push_back(args[lane ? index : laneCount + index]);
          return {body(b, l, ordered)};
        });
    results.push_back(reshape(rewriter, loc, compute->getResult(0), {count, cols}));
  }
  Value all = results.size() == 1
                  ? results.front()
                  : rewriter.create<tensor::ConcatOp>(loc, 0, results).getResult();
  return reshape(rewriter, loc, all, resultType.getShape());
}

Value lowering::sumTree(ConversionPatternRewriter &rewriter, Location loc,
                        const LoweringContext &lowering, ArrayRef<Value> terms,
                        std::optional<RowOperand> bias, RankedTensorType type) {
  // A node adds at most 8 terms, fewer when they would not fit half a core.
  int64_t rowBytes = rowsAndCols(type).second * lowering.arch.inputBytes();
  int64_t fanIn = std::clamp<int64_t>(
      lowering.arch.localMemory.memorySize / 2 / std::max<int64_t>(rowBytes, 1) - 1, 2, 8);
  auto add = [](OpBuilder &b, Location l, ValueRange args) {
    Value total = args.front();
    for (Value term : args.drop_front())
      total = b.create<AddOp>(l, total, term);
    return total;
  };
  SmallVector<Value> level(terms);
  while (level.size() > 1 || (bias && level.size() == 1)) {
    bool root = (int64_t)level.size() <= fanIn;
    SmallVector<Value> next;
    for (size_t first = 0; first < level.size(); first += fanIn) {
      SmallVector<RowOperand> operands;
      for (size_t i = first; i < std::min(level.size(), first + fanIn); ++i)
        operands.push_back({level[i], false});
      if (root && bias)
        operands.push_back(*bias);
      next.push_back(operands.size() == 1
                         ? operands.front().value
                         : lowerElementwise(rewriter, loc, lowering, type, operands, add));
    }
    level = std::move(next);
    if (root)
      break;
  }
  return level.front();
}

namespace {

/// f32 constants become globals (weights are tiled from them, other uses
/// read them from global memory); i64 constants are only ever shapes.
struct LowerConstant : public LoweringPattern<onnx::ConstantOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult matchAndRewrite(onnx::ConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (!type.getElementType().isF32()) {
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, op.getValue());
      return success();
    }
    GlobalOp global =
        lowering.addGlobal(rewriter, op.getLoc(), nameOf(op, "const"), op.getValue());
    rewriter.replaceOpWithNewOp<GetGlobalOp>(op, type, global.getSymName());
    return success();
  }
};

template <typename OnnxOp, typename SpatOp>
struct LowerUnary : public LoweringPattern<OnnxOp> {
  using LoweringPattern<OnnxOp>::LoweringPattern;
  LogicalResult matchAndRewrite(OnnxOp op, typename OnnxOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    rewriter.replaceOp(op, lowerElementwise(rewriter, op.getLoc(), this->lowering, type,
                                            {RowOperand{adaptor.getX(), false}},
                                            [](OpBuilder &b, Location l, ValueRange args) {
                                              return b.create<SpatOp>(l, args[0]).getResult();
                                            }));
    return success();
  }
};

/// Add, Sub, Mul and Max with numpy broadcasting.
template <typename OnnxOp, typename SpatOp>
struct LowerBinary : public LoweringPattern<OnnxOp> {
  using LoweringPattern<OnnxOp>::LoweringPattern;
  LogicalResult matchAndRewrite(OnnxOp op, typename OnnxOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<Value> inputs = {adaptor.getA(), adaptor.getB()};
    // A residual input as the layer it skips passed it on.
    if (auto skip = this->lowering.skips.find(op); skip != this->lowering.skips.end())
      if (Value passed = this->lowering.passedInput.lookup(skip->second.second))
        inputs[skip->second.first] =
            reshape(rewriter, op.getLoc(), passed,
                    cast<RankedTensorType>(inputs[skip->second.first].getType()).getShape());
    SmallVector<RowOperand> operands;
    for (Value value : inputs) {
      FailureOr<RowOperand> operand =
          broadcastOperand(rewriter, op, value, type, this->lowering);
      if (failed(operand))
        return failure();
      operands.push_back(*operand);
    }
    if (operands[0].shared && operands[1].shared && rowsAndCols(type).first > 1)
      return op.emitError("both operands broadcast over the rows: not supported");
    rewriter.replaceOp(op, lowerElementwise(rewriter, op.getLoc(), this->lowering, type,
                                            operands,
                                            [](OpBuilder &b, Location l, ValueRange args) {
                                              return b.create<SpatOp>(l, args[0], args[1])
                                                  .getResult();
                                            }));
    return success();
  }
};

/// Canonicalization turns division by a constant into multiplication; the
/// instruction set cannot divide by computed data.
struct LowerDiv : public LoweringPattern<onnx::DivOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult matchAndRewrite(onnx::DivOp op, OpAdaptor,
                                ConversionPatternRewriter &) const override {
    return op.emitError("the instruction set has no division: only division by a "
                        "constant (a multiplication by its reciprocal) is supported");
  }
};

/// LeakyRelu: max(x, alpha x) for alpha <= 1, else alpha x + (1 - alpha) relu(x).
struct LowerLeakyRelu : public LoweringPattern<onnx::LeakyReluOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult matchAndRewrite(onnx::LeakyReluOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t cols = rowsAndCols(type).second;
    float alpha = op.getAlpha().convertToFloat();
    Location loc = op.getLoc();
    std::string name = nameOf(op, "leaky");
    SmallVector<RowOperand> operands = {
        {adaptor.getX(), false},
        {lowering.constant(rewriter, loc, name + "_alpha", ref::Tensor::filled({cols}, alpha)),
         true}};
    if (alpha > 1)
      operands.push_back({lowering.constant(rewriter, loc, name + "_beta",
                                            ref::Tensor::filled({cols}, 1 - alpha)),
                          true});
    rewriter.replaceOp(
        op, lowerElementwise(rewriter, loc, lowering, type, operands,
                             [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                               Value scaled = b.create<MulOp>(l, args[0], args[1]);
                               if (alpha <= 1)
                                 return b.create<MaxOp>(l, args[0], scaled);
                               Value relu = b.create<ReluOp>(l, args[0]);
                               Value rest = b.create<MulOp>(l, relu, args[2]);
                               return b.create<AddOp>(l, scaled, rest);
                             }));
    return success();
  }
};

/// Clip: clamps by bounds kept as one-element constants.
struct LowerClip : public LoweringPattern<onnx::ClipOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult matchAndRewrite(onnx::ClipOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Location loc = op.getLoc();
    SmallVector<RowOperand> operands = {{adaptor.getInput(), false}};
    bool lower = false, upper = false;
    for (auto [value, isLower] :
         {std::pair{adaptor.getMin(), true}, std::pair{adaptor.getMax(), false}}) {
      if (!value)
        continue;
      std::optional<ref::Tensor> bound = constantOf(value);
      if (!bound)
        return op.emitError("Clip bounds must be constants");
      operands.push_back({lowering.constant(rewriter, loc,
                                            nameOf(op, "clip") + (isLower ? "_min" : "_max"),
                                            ref::Tensor({1}, bound->data)),
                          true, true});
      (isLower ? lower : upper) = true;
    }
    rewriter.replaceOp(
        op, lowerElementwise(rewriter, loc, lowering, type, operands,
                             [&](OpBuilder &b, Location l, ValueRange args) {
                               Value x = args[0];
                               size_t next = 1;
                               if (lower)
                                 x = b.create<ClampMinOp>(l, x, args[next++]);
                               if (upper)
                                 x = b.create<ClampMaxOp>(l, x, args[next++]);
                               return x;
                             }));
    return success();
  }
};

/// Y = A x W + bias for A [M, K] and the [K, N] window of the 2-D weight
/// global starting at row `rowOffset`. The window is cut into tiles of at
/// most one crossbar's rows and one array group's columns; each tile's
/// compute multiplies its slice of every row of A (the lanes), and the
/// partial sums of a column block are reduced with the bias by one compute.
Value lowerMatrixProduct(ConversionPatternRewriter &rewriter, Location loc,
                         const LoweringContext &lowering, Value a, GlobalOp weights,
                         int64_t rowOffset, int64_t n, Value bias) {
  const Arch &arch = lowering.arch;
  MLIRContext *context = rewriter.getContext();
  auto aType = cast<RankedTensorType>(a.getType());
  int64_t m = aType.getDimSize(0), k = aType.getDimSize(1);
  int64_t tileRows = arch.matrix.xbarRows;
  DenseTiling tiling = denseTiling(arch, k, n);
  int64_t blocks = tiling.blocks, width = tiling.width, rowTiles = tiling.rowTiles;
  auto weightsRef = FlatSymbolRefAttr::get(weights.getSymNameAttr());
  bool perRowBias =
      bias && cast<RankedTensorType>(bias.getType()).getRank() == 2;

  auto laneShape = [&](int64_t cols) -> SmallVector<int64_t> {
    if (m == 1)
      return {cols};
    return {m, cols};
  };
  SmallVector<Value> columnBlocks;
  for (int64_t c = 0; c < blocks; ++c) {
    int64_t col = c * width, w = std::min(width, n - col);
    auto blockType = f32Tensor(context, {w});
    SmallVector<Value> partials;
    for (int64_t t = 0; t < rowTiles; ++t) {
      int64_t row = t * tileRows, rows = std::min(tileRows, k - row);
      Value input = slice(rewriter, loc, a, {0, row}, {m, rows}, laneShape(rows));
      auto tile = TileAttr::get(context, weightsRef, rowOffset + row, col, rows, w);
      ComputeOpInterface partial = buildCompute(
          rewriter, loc, m, m == 1 ? ValueRange() : ValueRange(input),
          m == 1 ? ValueRange(input) : ValueRange(), {tile}, {blockType},
          [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
            return {b.create<MVMOp>(l, blockType, args[0], b.getI64IntegerAttr(0))};
          });
      partials.push_back(partial->getResult(0));
    }
    std::optional<RowOperand> biasOperand;
    if (bias && perRowBias)
      biasOperand = RowOperand{slice(rewriter, loc, bias, {0, col}, {m, w}, {m, w}), false};
    else if (bias)
      biasOperand = RowOperand{slice(rewriter, loc, bias, {col}, {w}, {w}), true};
    Value result = sumTree(rewriter, loc, lowering, partials, biasOperand,
                           f32Tensor(context, laneShape(w)));
    columnBlocks.push_back(result);
  }
  Value product = columnBlocks.size() == 1
                      ? columnBlocks.front()
                      : rewriter.create<tensor::ConcatOp>(loc, m == 1 ? 0 : 1,
                                                          columnBlocks)
                            .getResult();
  return reshape(rewriter, loc, product, {m, n});
}

struct LowerGemm : public LoweringPattern<onnx::GemmOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult matchAndRewrite(onnx::GemmOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (op.getAlpha().convertToFloat() != 1.0f ||
        op.getBeta().convertToFloat() != 1.0f || op.getTransA() || op.getTransB())
      return op.emitError("Gemm is not in normal form (run onnx-canonicalize)");
    GlobalOp weights = globalOf(adaptor.getB());
    if (!weights)
      return op.emitError("the weights (input B) must be a constant");
    if (adaptor.getC() && !globalOf(adaptor.getC()))
      return op.emitError("the bias (input C) must be a constant");
    int64_t n = op.getType().getDimSize(1);
    rewriter.replaceOp(op, lowerMatrixProduct(rewriter, op.getLoc(), lowering,
                                              adaptor.getA(), weights, 0, n,
                                              adaptor.getC()));
    return success();
  }
};

/// MatMul by a constant with batch dimensions: one matrix product per batch.
struct LowerBatchedMatMul : public LoweringPattern<onnx::MatMulOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult matchAndRewrite(onnx::MatMulOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    GlobalOp weights = globalOf(adaptor.getB());
    if (!weights)
      return op.emitError("the right operand must be a constant (weights)");
    auto aType = cast<RankedTensorType>(op.getA().getType());
    auto bType = cast<RankedTensorType>(op.getB().getType());
    auto yType = cast<RankedTensorType>(op.getType());
    if (aType.getRank() < 2 || bType.getRank() < 3)
      return op.emitError("expected a batched MatMul (run onnx-canonicalize)");
    Location loc = op.getLoc();
    int64_t m = aType.getShape().end()[-2], k = aType.getShape().back();
    int64_t n = bType.getShape().back();
    ArrayRef<int64_t> batch = yType.getShape().drop_back(2);
    ArrayRef<int64_t> aBatch = aType.getShape().drop_back(2);
    ArrayRef<int64_t> bBatch = bType.getShape().drop_back(2);
    int64_t batches = 1;
    for (int64_t d : batch)
      batches *= d;
    Value a = reshape(rewriter, loc, adaptor.getA(), {aType.getNumElements() / k, k});
    // The flat index, in an operand's own batch shape, of the broadcast batch
    // index `flat` (shapes are aligned at the right, size-1 dimensions
    // broadcast).
    auto operandBatch = [&](ArrayRef<int64_t> shape, int64_t flat) {
      int64_t index = 0, stride = 1;
      for (int64_t d = batch.size() - 1, e = shape.size() - 1; e >= 0; --d, --e) {
        int64_t coordinate = flat % batch[d];
        flat /= batch[d];
        index += (shape[e] == 1 ? 0 : coordinate) * stride;
        stride *= shape[e];
      }
      return index;
    };
    SmallVector<Value> products;
    for (int64_t flat = 0; flat < batches; ++flat) {
      Value rows = slice(rewriter, loc, a, {operandBatch(aBatch, flat) * m, 0},
                         {m, k}, {m, k});
      products.push_back(lowerMatrixProduct(rewriter, loc, lowering, rows,
                                            weights, operandBatch(bBatch, flat) * k,
                                            n, Value()));
    }
    Value all = products.size() == 1
                    ? products.front()
                    : rewriter.create<tensor::ConcatOp>(loc, 0, products).getResult();
    rewriter.replaceOp(op, reshape(rewriter, loc, all, yType.getShape()));
    return success();
  }
};

template <typename OnnxOp>
struct LowerReshapeLike : public LoweringPattern<OnnxOp> {
  using LoweringPattern<OnnxOp>::LoweringPattern;
  LogicalResult matchAndRewrite(OnnxOp op, typename OnnxOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value source = adaptor.getOperands()[0];
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    rewriter.replaceOp(op, reshape(rewriter, op.getLoc(), source, type.getShape()));
    return success();
  }
};

/// A Transpose: every output row (one lane) gathers its elements from the
/// input with the stride of the dimension that becomes the last one; the
/// row's start moves with the input strides of the other dimensions.
struct LowerTranspose : public LoweringPattern<onnx::TransposeOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult matchAndRewrite(onnx::TransposeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto inType = cast<RankedTensorType>(op.getData().getType());
    auto outType = cast<RankedTensorType>(op.getType());
    Location loc = op.getLoc();
    ArrayRef<int64_t> perm = op.getPerm();
    int64_t rank = inType.getRank();
    SmallVector<int64_t> inStrides(rank, 1);
    for (int64_t d = rank - 2; d >= 0; --d)
      inStrides[d] = inStrides[d + 1] * inType.getDimSize(d + 1);
    // Unit dimensions of the output move nothing and are left out.
    SmallVector<int64_t> laneDims, laneStrides;
    for (int64_t d = 0; d + 1 < rank; ++d)
      if (outType.getDimSize(d) != 1) {
        laneDims.push_back(outType.getDimSize(d));
        laneStrides.push_back(inStrides[perm[d]]);
      }
    int64_t lanes = 1;
    for (int64_t d : laneDims)
      lanes *= d;
    int64_t count = rank ? outType.getShape().back() : 1;
    int64_t stride = rank ? inStrides[perm.back()] : 1;
    // The elements keep their order when the strides of the non-unit output
    // dimensions are those of a row-major layout.
    SmallVector<int64_t> sizes(laneDims), strides(laneStrides);
    if (count != 1) {
      sizes.push_back(count);
      strides.push_back(stride);
    }
    bool inOrder = true;
    for (int64_t k = sizes.size() - 1, expected = 1; k >= 0; --k) {
      inOrder &= strides[k] == expected;
      expected *= sizes[k];
    }
    if (inOrder) {
      rewriter.replaceOp(op, reshape(rewriter, loc, adaptor.getData(),
                                     outType.getShape()));
      return success();
    }
    auto rowType = f32Tensor(getContext(), {count});
    // A long gather is cut along the first output dimension, each chunk
    // reading only its slice of the input, so that the chunks run on
    // several cores.
    int64_t chunks = 1;
    if (lanes > 1 && lowering.slowestBandNs() > 0) {
      CostModel cost(lowering.arch);
      double ns = lanes * cost.vectorNs(1, count);
      chunks = std::clamp<int64_t>(std::ceil(ns / lowering.weightlessNs()), 1, laneDims[0]);
    }
    int64_t sliced = 0; // the input dimension the first lane dimension walks
    for (int64_t d = 0, k = 0; d + 1 < rank; ++d)
      if (outType.getDimSize(d) != 1 && k++ == 0)
        sliced = perm[d];
    int64_t perChunk = lanes > 1 ? (laneDims[0] + chunks - 1) / chunks : 1;
    SmallVector<Value> parts;
    for (int64_t first = 0; first < (lanes > 1 ? laneDims[0] : 1); first += perChunk) {
      Value input = adaptor.getData();
      SmallVector<int64_t> chunkDims(laneDims);
      if (chunks > 1) {
        int64_t size = std::min(perChunk, laneDims[0] - first);
        SmallVector<int64_t> offsets(rank, 0), sizes(inType.getShape());
        offsets[sliced] = first;
        sizes[sliced] = size;
        input = slice(rewriter, loc, input, offsets, sizes, sizes);
        chunkDims[0] = size;
      }
      int64_t chunkLanes = 1;
      for (int64_t d : chunkDims)
        chunkLanes *= d;
      // The strides of the chunk's input: its sliced dimension is shorter.
      auto chunkType = cast<RankedTensorType>(input.getType());
      SmallVector<int64_t> chunkStrides(rank, 1);
      for (int64_t d = rank - 2; d >= 0; --d)
        chunkStrides[d] = chunkStrides[d + 1] * chunkType.getDimSize(d + 1);
      SmallVector<int64_t> chunkLaneStrides;
      for (int64_t d = 0; d + 1 < rank; ++d)
        if (outType.getDimSize(d) != 1)
          chunkLaneStrides.push_back(chunkStrides[perm[d]]);
      int64_t chunkStride = rank ? chunkStrides[perm.back()] : 1;
      ComputeOpInterface gather = buildCompute(
          rewriter, loc, chunkLanes, {}, {input}, {}, {rowType},
          [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
            bool many = chunkLanes > 1;
            return {b.create<GatherOp>(
                l, rowType, args[0], b.getI64IntegerAttr(0),
                b.getDenseI64ArrayAttr(many ? chunkDims : SmallVector<int64_t>()),
                b.getDenseI64ArrayAttr(many ? chunkLaneStrides : SmallVector<int64_t>()),
                b.getI64IntegerAttr(chunkStride))};
          });
      parts.push_back(reshape(rewriter, loc, gather->getResult(0), {chunkLanes, count}));
    }
    Value rows = parts.size() == 1
                     ? parts.front()
                     : rewriter.create<tensor::ConcatOp>(loc, 0, parts).getResult();
    rewriter.replaceOp(op, reshape(rewriter, loc, rows, outType.getShape()));
    return success();
  }
};

/// Concatenation is a view: consumers read each part where it is.
struct LowerConcat : public LoweringPattern<onnx::ConcatOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult matchAndRewrite(onnx::ConcatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += type.getRank();
    if (adaptor.getInputs().size() == 1) {
      rewriter.replaceOp(op, adaptor.getInputs()[0]);
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::ConcatOp>(op, type, axis, adaptor.getInputs());
    return success();
  }
};

/// A slice is a view (see pick): a negative step reads its runs backwards.
struct LowerSlice : public LoweringPattern<onnx::SliceOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult matchAndRewrite(onnx::SliceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    std::optional<ref::Positions> positions = op.getPositions();
    if (!positions)
      return op.emitError("Slice needs constant starts, ends, axes and steps");
    rewriter.replaceOp(op, pick(rewriter, op.getLoc(), adaptor.getData(), *positions));
    return success();
  }
};

/// Each part of a split is a view of the input.
struct LowerSplit : public LoweringPattern<onnx::SplitOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult matchAndRewrite(onnx::SplitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getInput().getType());
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += type.getRank();
    SmallVector<Value> parts;
    int64_t first = 0;
    for (Value output : op.getOutputs()) {
      ArrayRef<int64_t> shape = cast<RankedTensorType>(output.getType()).getShape();
      SmallVector<int64_t> offsets(type.getRank(), 0);
      offsets[axis] = first;
      first += shape[axis];
      parts.push_back(shape == type.getShape()
                          ? adaptor.getInput()
                          : slice(rewriter, op.getLoc(), adaptor.getInput(), offsets, shape,
                                  shape));
    }
    rewriter.replaceOp(op, parts);
    return success();
  }
};

/// Constant padding is a view; consumers read the padding as filled data.
struct LowerPad : public LoweringPattern<onnx::PadOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult matchAndRewrite(onnx::PadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (op.getMode() != "constant")
      return op.emitError() << "Pad mode '" << op.getMode()
                            << "' is not supported (only constant padding)";
    auto pads = op.getPads().getDefiningOp<onnx::ConstantOp>();
    std::optional<SmallVector<int64_t>> values =
        pads ? getIntValues(pads.getValue()) : std::nullopt;
    if (!values)
      return op.emitError("Pad needs constant pads");
    int64_t rank = values->size() / 2;
    ArrayRef<int64_t> low = ArrayRef<int64_t>(*values).take_front(rank);
    ArrayRef<int64_t> high = ArrayRef<int64_t>(*values).drop_front(rank);
    if (llvm::any_of(*values, [](int64_t p) { return p < 0; }))
      return op.emitError("negative pads (cropping) are not supported");
    float value = 0;
    if (adaptor.getConstantValue()) {
      std::optional<ref::Tensor> constant = constantOf(adaptor.getConstantValue());
      if (!constant)
        return op.emitError("Pad needs a constant padding value");
      value = constant->data[0];
    }
    rewriter.replaceOpWithNewOp<PadOp>(op, op.getType(), adaptor.getData(),
                                       rewriter.getDenseI64ArrayAttr(low),
                                       rewriter.getDenseI64ArrayAttr(high),
                                       rewriter.getF32FloatAttr(value));
    return success();
  }
};

struct ConvertOnnxToSpatialPass
    : public pimc::impl::ConvertOnnxToSpatialBase<ConvertOnnxToSpatialPass> {
  using ConvertOnnxToSpatialBase::ConvertOnnxToSpatialBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::shared_ptr<const Arch> arch = archOf(module);
    if (!arch)
      return signalPassFailure();
    SymbolTable symbols(module);
    // The lowering only reads the band plan.
    bool planned = isa_and_nonnull<BandPlanAttr>(module->getAttr(kBandPlanAttr));
    module.walk([&](Operation *op) {
      if (isa<onnx::ConvOp, onnx::ConvTransposeOp, onnx::MaxPoolOp, onnx::AveragePoolOp>(op) &&
          !isa_and_nonnull<BandsAttr>(op->getAttr(kBandsAttr)))
        planned = false;
    });
    if (!planned) {
      module.emitError("the convolutions and pooling have no band plan (run "
                       "onnx-plan-windows first)");
      return signalPassFailure();
    }
    LoweringContext lowering{*arch, symbols, module};
    lowering.oneInference = !throughput;
    lowering.evenSplits = evenSplits;
    lowering.interleaveRows = interleaveRows;
    planPassThroughs(module, lowering);
    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    target.addLegalDialect<SpatDialect, tensor::TensorDialect, arith::ArithDialect,
                           func::FuncDialect>();
    target.addIllegalDialect<onnx::OnnxDialect>();
    RewritePatternSet patterns(context);
    patterns.add<LowerConstant, LowerUnary<onnx::ReluOp, ReluOp>,
                 LowerUnary<onnx::SigmoidOp, SigmoidOp>, LowerUnary<onnx::TanhOp, TanhOp>,
                 LowerBinary<onnx::AddOp, AddOp>, LowerBinary<onnx::SubOp, SubOp>,
                 LowerBinary<onnx::MulOp, MulOp>, LowerBinary<onnx::MaxOp, MaxOp>, LowerDiv, LowerLeakyRelu, LowerClip,
                 LowerGemm, LowerBatchedMatMul, LowerReshapeLike<onnx::ReshapeOp>,
                 LowerReshapeLike<onnx::FlattenOp>, LowerReshapeLike<onnx::IdentityOp>,
                 LowerTranspose, LowerConcat, LowerPad, LowerSlice, LowerSplit>(context,
                                                                               lowering);
    populateWindowPatterns(patterns, lowering);
    // Each model node's number, by its place in the model, for the computes
    // lowered from it (which carry its location) to keep.
    DenseMap<Location, int64_t> layers;
    module.walk([&](Operation *op) {
      if (isa<onnx::OnnxDialect>(op->getDialect()))
        layers.try_emplace(op->getLoc(), layers.size());
    });
    ConstantDataReleaser releaser(module);
    ConversionConfig config;
    config.listener = &releaser;
    if (failed(applyPartialConversion(module, target, std::move(patterns), config)))
      return signalPassFailure();
    if (lowering.rowsInterleaved)
      module->setAttr(kInterleavedRowsAttr, UnitAttr::get(context));
    Builder builder(context);
    module.walk([&](ComputeOpInterface compute) {
      auto it = layers.find(compute->getLoc());
      if (it != layers.end())
        dialectOf(compute).getLayerAttrHelper().setAttr(
            compute, builder.getI64IntegerAttr(it->second));
    });

    // Shapes, and weights read only by tiles, leave nothing behind.
    module.walk([](func::FuncOp func) {
      for (Block &block : func.getBody())
        for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
          if (isa<arith::ConstantOp, GetGlobalOp, ReshapeOp,
                  tensor::ExtractSliceOp>(op) &&
              op.use_empty())
            op.erase();
    });
    // One walk for all globals: asking global by global walks the module each time.
    llvm::DenseSet<StringAttr> used;
    module.walk([&](Operation *op) {
      op->getAttrDictionary().walk(
          [&](SymbolRefAttr ref) { used.insert(ref.getRootReference()); });
    });
    for (GlobalOp global : llvm::make_early_inc_range(module.getOps<GlobalOp>()))
      if (!used.contains(global.getSymNameAttr()))
        global.erase();
    int64_t needed = crossbarsIn(module, *arch);
    int64_t available = arch->coreCount * arch->matrix.xbarArrayCount;
    if (needed > available) {
      module->setAttr(kWeightsDoNotFitAttr, UnitAttr::get(&getContext()));
      module.emitError() << "the model does not fit the chip: its weights need "
                         << needed << " crossbars of " << arch->matrix.xbarRows
                         << "x" << arch->matrix.xbarCols << ", the chip has "
                         << available << " (" << arch->coreCount << " cores x "
                         << arch->matrix.xbarArrayCount << ")";
      return signalPassFailure();
    }
  }
};
} // namespace
