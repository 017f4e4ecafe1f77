//===- ChannelsLast.cpp - stage 1: channels-last windows ------------------===//
//
// Convolutions and pooling become their channels_last forms between
// Transposes; the Transposes then sink through layout-agnostic operations
// (element-wise ones, with constants transposed at compile time;
// concatenations; padding) so that inverse pairs meet and cancel, and a
// Transpose feeding a Flatten into a Gemm is absorbed by permuting the
// Gemm's weight rows.
//
//===----------------------------------------------------------------------===//

#include "ConstantTensors.h"
#include "Elementwise.h"

#include "pimc/Dialect/Onnx/OnnxDialect.h"
#include "pimc/Dialect/Onnx/Transforms/Passes.h"
#include "pimc/Reference/Reference.h"
#include "pimc/Support/Constants.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/BitVector.h"

namespace pimc::onnx {
#define GEN_PASS_DEF_ONNXCHANNELSLAST
#include "pimc/Dialect/Onnx/Transforms/Passes.h.inc"
} // namespace pimc::onnx

using namespace mlir;
using namespace pimc;
using namespace pimc::onnx;

namespace {

/// The permutation q with q[p[i]] = i.
SmallVector<int64_t> inverse(ArrayRef<int64_t> p) {
  SmallVector<int64_t> q(p.size());
  for (size_t i = 0; i < p.size(); ++i)
    q[p[i]] = i;
  return q;
}

bool isIdentity(ArrayRef<int64_t> p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != (int64_t)i)
      return false;
  return true;
}

RankedTensorType permuted(RankedTensorType type, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  return type.clone(shape);
}

Value transpose(PatternRewriter &rewriter, Location loc, Value value,
                ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(value.getType());
  return rewriter.create<TransposeOp>(loc, permuted(type, perm), value,
                                      rewriter.getDenseI64ArrayAttr(perm));
}

/// [0, 2, ..., n - 1, 1]: channels to the end.
SmallVector<int64_t> toChannelsLast(int64_t rank) {
  SmallVector<int64_t> perm = {0};
  for (int64_t d = 2; d < rank; ++d)
    perm.push_back(d);
  perm.push_back(1);
  return perm;
}

/// Convolutions and pooling in their channels_last form.
template <typename OpT> struct ToChannelsLast : public OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op, PatternRewriter &rewriter) const override {
    if (op.getChannelsLast())
      return failure();
    auto inType = cast<RankedTensorType>(op.getX().getType());
    auto outType = cast<RankedTensorType>(op.getY().getType());
    int64_t rank = inType.getRank();
    SmallVector<int64_t> last = toChannelsLast(rank);
    Location loc = op.getLoc();
    Value x = transpose(rewriter, loc, op.getX(), last);
    Operation *clone = rewriter.clone(*op.getOperation());
    clone->setOperand(0, x);
    clone->getResult(0).setType(permuted(outType, last));
    clone->setAttr("channels_last", rewriter.getUnitAttr());
    rewriter.replaceOp(op, transpose(rewriter, loc, clone->getResult(0), inverse(last)));
    return success();
  }
};

Value reshape(PatternRewriter &rewriter, Location loc, Value value, ArrayRef<int64_t> shape) {
  auto shapeType = RankedTensorType::get({(int64_t)shape.size()}, rewriter.getI64Type());
  Value shapeValue =
      rewriter.create<ConstantOp>(loc, shapeType, DenseElementsAttr::get(shapeType, shape));
  return rewriter.create<ReshapeOp>(loc, cast<RankedTensorType>(value.getType()).clone(shape),
                                    value, shapeValue, rewriter.getI64IntegerAttr(0));
}

/// T(T(x, p1), p2) is T(x, p1 . p2); a Transpose keeping the order of the
/// non-unit dimensions is a Reshape.
struct SimplifyTranspose : public OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> perm = op.getPerm();
    if (auto inner = op.getData().getDefiningOp<TransposeOp>()) {
      SmallVector<int64_t> composed;
      for (int64_t p : perm)
        composed.push_back(inner.getPerm()[p]);
      if (isIdentity(composed))
        rewriter.replaceOp(op, inner.getData());
      else
        rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), inner.getData(),
                                                 rewriter.getDenseI64ArrayAttr(composed));
      return success();
    }
    if (isIdentity(perm)) {
      rewriter.replaceOp(op, op.getData());
      return success();
    }
    auto inType = cast<RankedTensorType>(op.getData().getType());
    SmallVector<int64_t> kept;
    for (int64_t p : perm)
      if (inType.getDimSize(p) != 1)
        kept.push_back(p);
    if (!llvm::is_sorted(kept))
      return failure();
    rewriter.replaceOp(op, reshape(rewriter, op.getLoc(), op.getData(),
                                   cast<RankedTensorType>(op.getType()).getShape()));
    return success();
  }
};

/// The Transpose an operand comes from, if it is its only user.
TransposeOp soleTranspose(Value value) {
  auto t = value.getDefiningOp<TransposeOp>();
  return t && t->hasOneUse() ? t : TransposeOp();
}

/// op(T(x, p)) -> T(op(x), p) for element-wise operations of one operand
/// (Clip's bounds are scalars).
struct SinkThroughUnary : public ElementwiseUnaryPattern {
  using ElementwiseUnaryPattern::ElementwiseUnaryPattern;
  LogicalResult rewriteUnary(Operation *op, PatternRewriter &rewriter) const override {
    TransposeOp t = soleTranspose(op->getOperand(0));
    if (!t)
      return failure();
    rewriter.replaceOp(op, transpose(rewriter, op->getLoc(),
                                     applyElementwise(rewriter, op, t.getData()), t.getPerm()));
    return success();
  }
};

/// The constant operand of a binary operation under the inverse of `perm`:
/// right-aligned to the full rank, then transposed (its unit dimensions
/// stay unit, so nothing is expanded).
std::optional<Value> untransposedConstant(PatternRewriter &rewriter, Location loc,
                                          Value constant, ArrayRef<int64_t> perm) {
  std::optional<FloatData> data = constantData(constant);
  if (!data)
    return std::nullopt;
  ArrayRef<int64_t> own = cast<RankedTensorType>(constant.getType()).getShape();
  std::vector<int64_t> shape(perm.size() - own.size(), 1);
  shape.insert(shape.end(), own.begin(), own.end());
  SmallVector<int64_t> back = inverse(perm);
  std::vector<int64_t> backShape;
  for (int64_t p : back)
    backShape.push_back(shape[p]);
  return makeConstant(rewriter, loc,
                      ref::Tensor(backShape, ref::transposeValues(data->values(), shape, back)),
                      constantName(constant.getDefiningOp()));
}

/// A computed operand of a binary operation under the inverse of `perm`,
/// when that keeps the order of its non-unit dimensions (a per-channel
/// vector such as a squeeze-and-excitation scale): a Reshape.
std::optional<Value> untransposedByReshape(PatternRewriter &rewriter, Location loc,
                                           Value value, ArrayRef<int64_t> perm) {
  ArrayRef<int64_t> own = cast<RankedTensorType>(value.getType()).getShape();
  SmallVector<int64_t> shape(perm.size() - own.size(), 1);
  llvm::append_range(shape, own);
  SmallVector<int64_t> kept, backShape;
  for (int64_t p : inverse(perm)) {
    backShape.push_back(shape[p]);
    if (shape[p] != 1)
      kept.push_back(p);
  }
  if (!llvm::is_sorted(kept))
    return std::nullopt;
  return reshape(rewriter, loc, value, backShape);
}

/// op(T(a, p), T(b, p)) -> T(op(a, b), p), and op(T(a, p), c) with a
/// constant c, or a c that T's inverse only reshapes, likewise.
template <typename OpT> struct SinkThroughBinary : public OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op, PatternRewriter &rewriter) const override {
    auto a = op.getA().template getDefiningOp<TransposeOp>();
    auto b = op.getB().template getDefiningOp<TransposeOp>();
    TransposeOp t = a ? a : b;
    if (!t)
      return failure();
    ArrayRef<int64_t> perm = t.getPerm();
    auto type = cast<RankedTensorType>(op.getType());
    if ((int64_t)perm.size() != type.getRank())
      return failure();
    Location loc = op.getLoc();
    auto operand = [&](Value value, TransposeOp from) -> std::optional<Value> {
      if (from && from.getPerm() == perm)
        return from.getData();
      if (std::optional<Value> constant = untransposedConstant(rewriter, loc, value, perm))
        return constant;
      return untransposedByReshape(rewriter, loc, value, perm);
    };
    // Only when this saves a Transpose: both transposed, or one only used here.
    if (!(a && b) && !(t->hasOneUse()))
      return failure();
    std::optional<Value> x = operand(op.getA(), a), y = operand(op.getB(), b);
    if (!x || !y)
      return failure();
    auto result = rewriter.create<OpT>(loc, permuted(type, inverse(perm)), *x, *y);
    rewriter.replaceOp(op, transpose(rewriter, loc, result, perm));
    return success();
  }
};

/// Concat(T(x1, p), ..., T(xn, p), axis) -> T(Concat(x1, ..., xn, p[axis]), p).
struct SinkThroughConcat : public OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op, PatternRewriter &rewriter) const override {
    SmallVector<Value> inputs;
    ArrayRef<int64_t> perm;
    for (Value input : op.getInputs()) {
      auto t = input.getDefiningOp<TransposeOp>();
      if (!t || (!perm.empty() && t.getPerm() != perm))
        return failure();
      perm = t.getPerm();
      inputs.push_back(t.getData());
    }
    auto type = cast<RankedTensorType>(op.getType());
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += type.getRank();
    auto concat = rewriter.create<ConcatOp>(op.getLoc(), permuted(type, inverse(perm)),
                                            inputs, rewriter.getI64IntegerAttr(perm[axis]));
    rewriter.replaceOp(op, transpose(rewriter, op.getLoc(), concat, perm));
    return success();
  }
};

/// Pad(T(x, p)) -> T(Pad(x, pads permuted), p) for constant pads.
struct SinkThroughPad : public OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp op, PatternRewriter &rewriter) const override {
    TransposeOp t = soleTranspose(op.getData());
    auto padsOp = op.getPads().getDefiningOp<ConstantOp>();
    if (!t || !padsOp)
      return failure();
    std::optional<SmallVector<int64_t>> pads = getIntValues(padsOp.getValue());
    if (!pads)
      return failure();
    ArrayRef<int64_t> perm = t.getPerm();
    int64_t rank = perm.size();
    SmallVector<int64_t> moved(2 * rank);
    for (int64_t i = 0; i < rank; ++i) {
      moved[perm[i]] = (*pads)[i];
      moved[rank + perm[i]] = (*pads)[rank + i];
    }
    auto padsType = cast<RankedTensorType>(op.getPads().getType());
    Value newPads = rewriter.create<ConstantOp>(
        op.getLoc(), padsType, DenseElementsAttr::get(padsType, ArrayRef<int64_t>(moved)));
    auto type = cast<RankedTensorType>(op.getType());
    auto pad = rewriter.create<PadOp>(op.getLoc(), permuted(type, inverse(perm)),
                                      t.getData(), newPads, op.getConstantValue(),
                                      op.getModeAttr());
    rewriter.replaceOp(op, transpose(rewriter, op.getLoc(), pad, perm));
    return success();
  }
};

/// Gemm(Reshape(T(z, p)) to [M, K], B): the Gemm reads z flattened in its own
/// order instead, and B's rows are permuted to match.
struct AbsorbTransposeIntoGemm : public OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmOp op, PatternRewriter &rewriter) const override {
    if (op.getTransA() || op.getTransB())
      return failure();
    auto reshape = op.getA().getDefiningOp<ReshapeOp>();
    if (!reshape)
      return failure();
    TransposeOp t = soleTranspose(reshape.getData());
    if (!t || !reshape->hasOneUse())
      return failure();
    auto bType = dyn_cast<RankedTensorType>(op.getB().getType());
    if (!bType || !constantData(op.getB()))
      return failure();
    ArrayRef<int64_t> perm = t.getPerm();
    auto zType = cast<RankedTensorType>(t.getData().getType());
    int64_t m = cast<RankedTensorType>(op.getA().getType()).getDimSize(0);
    if (perm[0] != 0 || zType.getDimSize(0) != m)
      return failure();
    // Row j of the transposed flattening is row `source[j]` of z's.
    ArrayRef<int64_t> shape = zType.getShape().drop_front();
    SmallVector<int64_t> tShape;
    for (int64_t p : perm.drop_front())
      tShape.push_back(zType.getDimSize(p));
    int64_t k = bType.getDimSize(0), n = bType.getDimSize(1);
    SmallVector<int64_t> zStrides(shape.size(), 1);
    for (int64_t d = shape.size() - 2; d >= 0; --d)
      zStrides[d] = zStrides[d + 1] * shape[d + 1];
    std::vector<int64_t> source(k);
    SmallVector<int64_t> index(tShape.size(), 0);
    for (int64_t j = 0; j < k; ++j) {
      for (size_t d = 0; d < tShape.size(); ++d)
        source[j] += index[d] * zStrides[perm[d + 1] - 1];
      for (int64_t d = tShape.size() - 1; d >= 0; --d) {
        if (++index[d] < tShape[d])
          break;
        index[d] = 0;
      }
    }
    Value b = op.getB();
    if (std::optional<MutableArrayRef<float>> owned =
            ownedFloatData(op->getParentOfType<ModuleOp>(), b)) {
      // Nothing else reads these weights: their rows move along the
      // permutation's cycles, without a second copy of them all.
      std::vector<float> carried(n);
      llvm::BitVector placed(k);
      for (int64_t start = 0; start < k; ++start) {
        if (placed[start])
          continue;
        std::copy_n(owned->data() + start * n, n, carried.data());
        for (int64_t j = start;;) {
          int64_t to = source[j];
          std::swap_ranges(carried.begin(), carried.end(), owned->data() + to * n);
          placed.set(to);
          if (to == start)
            break;
          j = to;
        }
      }
    } else {
      std::optional<FloatData> weights = constantData(b);
      std::vector<float> rows(weights->size());
      for (int64_t j = 0; j < k; ++j)
        std::copy_n(weights->values().data() + j * n, n, &rows[source[j] * n]);
      b = makeConstant(rewriter, op.getLoc(), ref::Tensor({k, n}, std::move(rows)),
                       constantName(b.getDefiningOp()));
    }
    Location loc = op.getLoc();
    auto shapeType = RankedTensorType::get({2}, rewriter.getI64Type());
    Value flatShape = rewriter.create<ConstantOp>(
        loc, shapeType, DenseElementsAttr::get(shapeType, ArrayRef<int64_t>{m, k}));
    Value flat = rewriter.create<ReshapeOp>(loc, reshape.getType(), t.getData(), flatShape,
                                            rewriter.getI64IntegerAttr(0));
    rewriter.replaceOpWithNewOp<GemmOp>(op, op.getType(), flat, b, op.getC(),
                                        op.getAlphaAttr(), op.getBetaAttr(),
                                        op.getTransAAttr(), op.getTransBAttr());
    return success();
  }
};

struct OnnxChannelsLastPass
    : public onnx::impl::OnnxChannelsLastBase<OnnxChannelsLastPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ToChannelsLast<ConvOp>, ToChannelsLast<ConvTransposeOp>,
                 ToChannelsLast<MaxPoolOp>,
                 ToChannelsLast<AveragePoolOp>, ToChannelsLast<GlobalAveragePoolOp>,
                 ToChannelsLast<GlobalMaxPoolOp>, SimplifyTranspose, SinkThroughUnary,
                 SinkThroughBinary<AddOp>, SinkThroughBinary<SubOp>,
                 SinkThroughBinary<MulOp>, SinkThroughConcat, SinkThroughPad,
                 AbsorbTransposeIntoGemm>(&getContext());
    if (failed(applyPatternsReleasingConstants(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
