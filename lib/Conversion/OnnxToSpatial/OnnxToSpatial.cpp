//===- OnnxToSpatial.cpp - stage 2: ONNX operators to spatial computes ----===//
//
// One pattern per operator of the canonical onnx graph. Activations are seen
// as row-major matrices whose rows are the lanes of element-wise work: a
// tensor of shape [..., C] has numel / C rows of C elements.
//
//===----------------------------------------------------------------------===//

#include "pimc/Support/ArchOption.h"
#include "pimc/Arch/Arch.h"
#include "pimc/Conversion/Passes.h"
#include "pimc/Dialect/Onnx/OnnxDialect.h"
#include "pimc/Dialect/Spatial/SpatialUtils.h"
#include "pimc/Reference/Reference.h"
#include "pimc/Support/Constants.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Support/FormatVariadic.h"

namespace pimc {
#define GEN_PASS_DEF_CONVERTONNXTOSPATIAL
#include "pimc/Conversion/Passes.h.inc"
} // namespace pimc

using namespace mlir;
using namespace pimc;
using namespace pimc::spat;

namespace {

/// Rows and columns of the row-major matrix view of a tensor type.
std::pair<int64_t, int64_t> rowsAndCols(RankedTensorType type) {
  int64_t cols = type.getRank() ? type.getShape().back() : 1;
  return {cols ? type.getNumElements() / cols : 0, cols};
}

RankedTensorType f32Tensor(MLIRContext *context, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, Float32Type::get(context));
}

Value reshape(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return b.create<ReshapeOp>(loc, type.clone(shape), value);
}

Value slice(OpBuilder &b, Location loc, Value source, ArrayRef<int64_t> offsets,
            ArrayRef<int64_t> sizes, ArrayRef<int64_t> resultShape) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<OpFoldResult> o, s, st;
  for (auto [offset, size] : llvm::zip(offsets, sizes)) {
    o.push_back(b.getIndexAttr(offset));
    s.push_back(b.getIndexAttr(size));
    st.push_back(b.getIndexAttr(1));
  }
  return b.create<tensor::ExtractSliceOp>(loc, type.clone(resultShape), source, o,
                                          s, st);
}

/// The global behind a converted constant operand, if it is one.
GlobalOp globalOf(Value value) {
  auto get = value.getDefiningOp<GetGlobalOp>();
  if (!get)
    return {};
  return SymbolTable::lookupNearestSymbolFrom<GlobalOp>(get, get.getNameAttr());
}

/// Shared state of the patterns: the architecture and the module's symbols.
struct LoweringContext {
  const Arch &arch;
  SymbolTable &symbols;
  ModuleOp module;

  /// A new constant global holding `value`.
  GlobalOp addGlobal(OpBuilder &b, Location loc, StringRef name,
                     ElementsAttr value) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto type = cast<RankedTensorType>(value.getType());
    auto global = b.create<GlobalOp>(loc, name, type, GlobalKind::constant, value,
                                     IntegerAttr(), StringAttr());
    symbols.insert(global); // renames on a clash
    return global;
  }
};

std::string nameOf(Operation *op, StringRef fallback) {
  if (auto name = dyn_cast<NameLoc>(op->getLoc())) {
    std::string text;
    for (char c : name.getName().strref()) {
      bool keep = isalnum(static_cast<unsigned char>(c));
      if (keep)
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

template <typename OpT>
struct LoweringPattern : public OpConversionPattern<OpT> {
  LoweringPattern(MLIRContext *context, LoweringContext &lowering)
      : OpConversionPattern<OpT>(context), lowering(lowering) {}
  LoweringContext &lowering;
};

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
    GlobalOp global = lowering.addGlobal(rewriter, op.getLoc(),
                                         nameOf(op, "const"), op.getValue());
    rewriter.replaceOpWithNewOp<GetGlobalOp>(op, type, global.getSymName());
    return success();
  }
};

/// Element-wise work over the rows of a tensor: one lane per row.
Value lowerElementwise(ConversionPatternRewriter &rewriter, Location loc,
                       RankedTensorType resultType, ValueRange rowInputs,
                       ValueRange sharedRows,
                       function_ref<Value(OpBuilder &, Location, ValueRange)> op) {
  auto [rows, cols] = rowsAndCols(resultType);
  MLIRContext *context = rewriter.getContext();
  auto rowType = f32Tensor(context, {cols});
  SmallVector<Value> laneInputs, sharedInputs;
  for (Value input : rowInputs)
    (rows == 1 ? sharedInputs : laneInputs)
        .push_back(reshape(rewriter, loc, input,
                           rows == 1 ? ArrayRef<int64_t>{cols}
                                     : ArrayRef<int64_t>{rows, cols}));
  unsigned rowCount = rowInputs.size();
  for (Value input : sharedRows)
    sharedInputs.push_back(reshape(rewriter, loc, input, {cols}));
  ComputeOpInterface compute = buildCompute(
      rewriter, loc, rows, laneInputs, sharedInputs, {}, {rowType},
      [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
        // Lane arguments come first; with one row they are shared ones.
        SmallVector<Value> ordered(args.take_front(rowCount));
        llvm::append_range(ordered, args.drop_front(rowCount));
        return {op(b, l, ordered)};
      });
  return reshape(rewriter, loc, compute->getResult(0), resultType.getShape());
}

template <typename OnnxOp, typename SpatOp>
struct LowerUnary : public LoweringPattern<OnnxOp> {
  using LoweringPattern<OnnxOp>::LoweringPattern;
  LogicalResult matchAndRewrite(OnnxOp op, typename OnnxOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    rewriter.replaceOp(
        op, lowerElementwise(rewriter, op.getLoc(), type, {adaptor.getX()}, {},
                             [](OpBuilder &b, Location l, ValueRange args) -> Value {
                               return b.create<SpatOp>(l, args[0]);
                             }));
    return success();
  }
};

/// Add with numpy broadcasting: an operand of the result's shape is read row
/// by row; one that repeats a single row is shared by every lane; a constant
/// broadcast any other way is expanded at compile time.
struct LowerAdd : public LoweringPattern<onnx::AddOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult matchAndRewrite(onnx::AddOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto [rows, cols] = rowsAndCols(type);
    SmallVector<Value> rowInputs, sharedRows;
    for (Value operand : {adaptor.getA(), adaptor.getB()}) {
      auto operandType = cast<RankedTensorType>(operand.getType());
      if (operandType.getShape() == type.getShape()) {
        rowInputs.push_back(operand);
        continue;
      }
      ArrayRef<int64_t> shape = operandType.getShape();
      bool oneRow = operandType.getNumElements() == cols && !shape.empty() &&
                    shape.back() == cols;
      if (oneRow && cols > 1) {
        sharedRows.push_back(operand);
        continue;
      }
      GlobalOp global = globalOf(operand);
      std::optional<FloatData> data =
          global ? FloatData::get(*global.getValue()) : std::nullopt;
      if (!data)
        return op.emitError() << "broadcasting the computed tensor of shape "
                              << operandType << " to " << type
                              << " is not supported (only constants and single "
                                 "rows broadcast)";
      ref::Tensor tensor(std::vector<int64_t>(shape.begin(), shape.end()),
                         std::vector<float>(data->values().begin(),
                                            data->values().end()));
      llvm::Expected<ref::Tensor> full = ref::broadcastTo(
          tensor, std::vector<int64_t>(type.getShape().begin(), type.getShape().end()));
      if (!full)
        return op.emitError(llvm::toString(full.takeError()));
      GlobalOp expanded = lowering.addGlobal(
          rewriter, op.getLoc(), (global.getSymName() + "_broadcast").str(),
          makeFloatConstant(type, std::move(full->data), global.getSymName()));
      rowInputs.push_back(
          rewriter.create<GetGlobalOp>(op.getLoc(), type, expanded.getSymName()));
    }
    if (rowInputs.empty())
      return op.emitError("an Add of two broadcast operands is not supported");
    rewriter.replaceOp(
        op, lowerElementwise(rewriter, op.getLoc(), type, rowInputs, sharedRows,
                             [](OpBuilder &b, Location l, ValueRange args) -> Value {
                               return b.create<AddOp>(l, args[0], args[1]);
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
                         const Arch &arch, Value a, GlobalOp weights,
                         int64_t rowOffset, int64_t n, Value bias) {
  MLIRContext *context = rewriter.getContext();
  auto aType = cast<RankedTensorType>(a.getType());
  int64_t m = aType.getDimSize(0), k = aType.getDimSize(1);
  int64_t tileRows = arch.matrix.xbarRows;
  int64_t perCrossbar = arch.outputsPerCrossbar();
  int64_t maxCols = arch.groupCrossbarLimit() * perCrossbar;
  int64_t blocks = (n + maxCols - 1) / maxCols;
  // Column blocks of equal width (a whole number of crossbars), so that the
  // array groups are balanced.
  int64_t width = (n + blocks - 1) / blocks;
  width = (width + perCrossbar - 1) / perCrossbar * perCrossbar;
  blocks = (n + width - 1) / width;
  int64_t rowTiles = (k + tileRows - 1) / tileRows;
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
    Value result = partials.front();
    if (partials.size() > 1 || bias) {
      SmallVector<Value> laneInputs, sharedInputs;
      SmallVector<Value> &partialList = m == 1 ? sharedInputs : laneInputs;
      llvm::append_range(partialList, partials);
      if (bias && perRowBias)
        laneInputs.push_back(slice(rewriter, loc, bias, {0, col}, {m, w}, {m, w}));
      else if (bias)
        sharedInputs.push_back(slice(rewriter, loc, bias, {col}, {w}, {w}));
      size_t count = partials.size();
      ComputeOpInterface reduce = buildCompute(
          rewriter, loc, m, laneInputs, sharedInputs, {}, {blockType},
          [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
            // Block arguments: lane inputs first, then shared ones.
            SmallVector<Value> terms;
            if (m == 1 || !perRowBias) {
              llvm::append_range(terms, args.take_front(count));
              if (bias)
                terms.push_back(args[count]);
            } else {
              llvm::append_range(terms, args.take_front(count + 1));
            }
            Value sum = terms.front();
            for (Value term : ArrayRef<Value>(terms).drop_front())
              sum = b.create<AddOp>(l, sum, term);
            return {sum};
          });
      result = reduce->getResult(0);
    }
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
    rewriter.replaceOp(op, lowerMatrixProduct(rewriter, op.getLoc(), lowering.arch,
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
      products.push_back(lowerMatrixProduct(rewriter, loc, lowering.arch, rows,
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
    ComputeOpInterface gather = buildCompute(
        rewriter, loc, lanes, {}, {adaptor.getData()}, {}, {rowType},
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          return {b.create<GatherOp>(l, rowType, args[0], b.getI64IntegerAttr(0),
                                     b.getDenseI64ArrayAttr(lanes > 1 ? laneDims
                                                                      : SmallVector<int64_t>()),
                                     b.getDenseI64ArrayAttr(lanes > 1 ? laneStrides
                                                                      : SmallVector<int64_t>()),
                                     b.getI64IntegerAttr(stride))};
        });
    rewriter.replaceOp(op, reshape(rewriter, loc, gather->getResult(0),
                                   outType.getShape()));
    return success();
  }
};

struct ConvertOnnxToSpatialPass
    : public pimc::impl::ConvertOnnxToSpatialBase<ConvertOnnxToSpatialPass> {
  using ConvertOnnxToSpatialBase::ConvertOnnxToSpatialBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<Arch> arch = loadArchOption(module, archFile);
    if (!arch)
      return signalPassFailure();
    SymbolTable symbols(module);
    LoweringContext lowering{*arch, symbols, module};
    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    target.addLegalDialect<SpatDialect, tensor::TensorDialect, arith::ArithDialect,
                           func::FuncDialect>();
    target.addIllegalDialect<onnx::OnnxDialect>();
    RewritePatternSet patterns(context);
    patterns.add<LowerConstant, LowerUnary<onnx::ReluOp, ReluOp>,
                 LowerUnary<onnx::SigmoidOp, SigmoidOp>,
                 LowerUnary<onnx::TanhOp, TanhOp>, LowerAdd, LowerGemm,
                 LowerBatchedMatMul, LowerReshapeLike<onnx::ReshapeOp>,
                 LowerReshapeLike<onnx::FlattenOp>,
                 LowerReshapeLike<onnx::IdentityOp>, LowerTranspose>(context,
                                                                     lowering);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // Shapes, and weights read only by tiles, leave nothing behind.
    module.walk([](func::FuncOp func) {
      for (Block &block : func.getBody())
        for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
          if (isa<arith::ConstantOp, GetGlobalOp, ReshapeOp,
                  tensor::ExtractSliceOp>(op) &&
              op.use_empty())
            op.erase();
    });
    for (GlobalOp global : llvm::make_early_inc_range(module.getOps<GlobalOp>()))
      if (SymbolTable::symbolKnownUseEmpty(global, module))
        global.erase();
    int64_t needed = 0;
    module.walk([&](ComputeOpInterface compute) {
      needed += crossbarsOf(compute, *arch);
    });
    int64_t available = arch->coreCount * arch->matrix.xbarArrayCount;
    if (needed > available) {
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
