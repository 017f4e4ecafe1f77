//===- Canonicalize.cpp - stage 1: graph canonicalization -----------------===//
//
// Brings the imported graph into the normal form ONNX-to-Spatial lowers:
// constants folded (with the reference kernels), Flatten as Reshape, reshape
// chains collapsed, and every matrix product as a Gemm Y = A x B + C with a
// constant B [K, N] and C absent, a constant [N] or a constant [M, N].
//
//===----------------------------------------------------------------------===//

#include "ConstantTensors.h"

#include "pimc/Dialect/Onnx/OnnxDialect.h"
#include "pimc/Dialect/Onnx/Transforms/Passes.h"
#include "pimc/Reference/Reference.h"
#include "pimc/Support/Constants.h"

#include "mlir/IR/PatternMatch.h"

#include <cmath>
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

namespace pimc::onnx {
#define GEN_PASS_DEF_ONNXCANONICALIZE
#include "pimc/Dialect/Onnx/Transforms/Passes.h.inc"
} // namespace pimc::onnx

using namespace mlir;
using namespace pimc;
using namespace pimc::onnx;

static Value makeShape(PatternRewriter &rewriter, Location loc,
                       ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get({(int64_t)shape.size()}, rewriter.getI64Type());
  return rewriter.create<ConstantOp>(loc, type, DenseElementsAttr::get(type, shape));
}

static Value reshapeTo(PatternRewriter &rewriter, Location loc, Value value,
                       ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return rewriter.create<ReshapeOp>(loc, type.clone(shape), value,
                                    makeShape(rewriter, loc, shape),
                                    rewriter.getI64IntegerAttr(0));
}

namespace {

/// Evaluates an operation whose float operands are all constants.
struct FoldConstantOperation : public RewritePattern {
  FoldConstantOperation(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<GemmOp, MatMulOp, AddOp, SubOp, MulOp, DivOp, MaxOp, ReluOp, SigmoidOp,
             TanhOp, TransposeOp, ReshapeOp, FlattenOp, ConcatOp, SliceOp>(op))
      return failure();
    // A Reshape's shape operand is not read: the result type has it.
    auto floatOperands = llvm::make_filter_range(op->getOperands(), [](Value operand) {
      return cast<RankedTensorType>(operand.getType()).getElementType().isF32();
    });
    if (!llvm::all_of(floatOperands, [](Value v) { return v.getDefiningOp<ConstantOp>(); }))
      return failure();
    SmallVector<ref::Tensor> operands;
    for (Value operand : floatOperands) {
      std::optional<ref::Tensor> tensor = constantTensor(operand);
      if (!tensor)
        return failure();
      operands.push_back(std::move(*tensor));
    }
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    std::vector<int64_t> shape(resultType.getShape().begin(),
                               resultType.getShape().end());
    llvm::Expected<ref::Tensor> result =
        llvm::TypeSwitch<Operation *, llvm::Expected<ref::Tensor>>(op)
            .Case([&](GemmOp gemm) {
              return ref::gemm(operands[0], operands[1],
                               operands.size() > 2 ? &operands[2] : nullptr,
                               gemm.getAlpha().convertToFloat(),
                               gemm.getBeta().convertToFloat(), gemm.getTransA(),
                               gemm.getTransB());
            })
            .Case([&](MatMulOp) { return ref::matmul(operands[0], operands[1]); })
            .Case([&](AddOp) { return ref::add(operands[0], operands[1]); })
            .Case([&](SubOp) { return ref::sub(operands[0], operands[1]); })
            .Case([&](MulOp) { return ref::mul(operands[0], operands[1]); })
            .Case([&](DivOp) { return ref::div(operands[0], operands[1]); })
            .Case([&](MaxOp) { return ref::maximum(operands[0], operands[1]); })
            .Case([&](ConcatOp c) { return ref::concat(operands, c.getAxis()); })
            .Case([&](ReluOp) { return ref::relu(operands[0]); })
            .Case([&](SigmoidOp) { return ref::sigmoid(operands[0]); })
            .Case([&](TanhOp) { return ref::tanh(operands[0]); })
            .Case([&](TransposeOp t) {
              return ref::transpose(operands[0], t.getPerm());
            })
            .Case([&](SliceOp slice) -> llvm::Expected<ref::Tensor> {
              std::optional<ref::Positions> positions = slice.getPositions();
              if (!positions)
                return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                               "the slice's bounds are not constants");
              return ref::pick(operands[0], *positions);
            })
            .Default([&](Operation *) { return ref::reshape(operands[0], shape); });
    if (!result) {
      llvm::consumeError(result.takeError());
      return failure();
    }
    if (result->shape != shape)
      return failure();
    rewriter.replaceOp(op, makeConstant(rewriter, op->getLoc(), std::move(*result),
                                        constantName(op)));
    return success();
  }
};

/// A Split of a constant is one constant per part.
struct FoldConstantSplit : public OpRewritePattern<SplitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SplitOp op, PatternRewriter &rewriter) const override {
    std::optional<ref::Tensor> input = constantTensor(op.getInput());
    if (!input)
      return failure();
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += input->shape.size();
    SmallVector<int64_t> lengths;
    for (Value output : op.getOutputs())
      lengths.push_back(cast<RankedTensorType>(output.getType()).getDimSize(axis));
    llvm::Expected<std::vector<ref::Tensor>> parts = ref::split(*input, axis, lengths);
    if (!parts) {
      llvm::consumeError(parts.takeError());
      return failure();
    }
    SmallVector<Value> constants;
    for (ref::Tensor &part : *parts)
      constants.push_back(makeConstant(rewriter, op.getLoc(), std::move(part),
                                       constantName(op)));
    rewriter.replaceOp(op, constants);
    return success();
  }
};

struct FlattenToReshape : public OpRewritePattern<FlattenOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FlattenOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTo(rewriter, op.getLoc(), op.getInput(),
                                     op.getType().getShape()));
    return success();
  }
};

/// reshape(reshape(x)) -> reshape(x) (the folder takes the reshapes that
/// give back their input's type).
struct CollapseReshapes : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getData().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    rewriter.replaceOp(op, reshapeTo(rewriter, op.getLoc(), inner.getData(),
                                     op.getType().getShape()));
    return success();
  }
};

/// Gemm into Y = A x B + C: B a constant [K, N] with transB and alpha folded
/// in, C absent, [N] or [M, N] with beta and broadcasting folded in, transA
/// as a Transpose of A.
struct NormalizeGemm : public OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;

  static bool isNormal(GemmOp op) {
    if (op.getAlpha().convertToFloat() != 1.0f ||
        op.getBeta().convertToFloat() != 1.0f || op.getTransA() || op.getTransB())
      return false;
    if (!op.getC())
      return true;
    ArrayRef<int64_t> c = cast<RankedTensorType>(op.getC().getType()).getShape();
    ArrayRef<int64_t> y = op.getType().getShape();
    return (c.size() == 1 && c[0] == y[1]) || (c.size() == 2 && c == y && y[0] > 1);
  }

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    if (isNormal(op))
      return failure();
    std::optional<FloatData> b = constantData(op.getB());
    std::optional<ref::Tensor> c;
    if (!b || (op.getC() && !(c = constantTensor(op.getC()))))
      return failure();
    Location loc = op.getLoc();
    std::string name = constantName(op);
    float alpha = op.getAlpha().convertToFloat(), beta = op.getBeta().convertToFloat();
    // B is read in place: only a transposed or scaled B is a new constant.
    Value weights = op.getB();
    if (op.getTransB() || alpha != 1.0f) {
      auto bType = cast<RankedTensorType>(op.getB().getType());
      std::vector<int64_t> shape(bType.getShape().begin(), bType.getShape().end());
      ref::Tensor w;
      if (op.getTransB()) {
        w = ref::Tensor({shape[1], shape[0]}, ref::transposeValues(b->values(), shape, {1, 0}));
      } else {
        w = ref::Tensor(shape, b->values().vec());
      }
      if (alpha != 1.0f)
        for (float &v : w.data)
          v *= alpha;
      weights = makeConstant(rewriter, loc, std::move(w), name + "_weights");
    }
    Value a = op.getA();
    if (op.getTransA()) {
      auto type = cast<RankedTensorType>(a.getType());
      a = rewriter.create<TransposeOp>(
          loc, type.clone({type.getDimSize(1), type.getDimSize(0)}), a,
          rewriter.getDenseI64ArrayAttr({1, 0}));
    }
    Value bias;
    if (c) {
      int64_t m = op.getType().getDimSize(0), n = op.getType().getDimSize(1);
      // A bias that is the same for every row is kept as one row.
      bool perRow = c->shape.size() == 2 && c->shape[0] == m && m > 1;
      std::vector<int64_t> shape = perRow ? std::vector<int64_t>{m, n}
                                          : std::vector<int64_t>{n};
      ref::Tensor flat = *c;
      if (!perRow && flat.shape.size() == 2)
        flat = ref::reshape(flat, {flat.shape[1]});
      llvm::Expected<ref::Tensor> broadcast = ref::broadcastTo(flat, shape);
      if (!broadcast) {
        llvm::consumeError(broadcast.takeError());
        return failure();
      }
      bias = makeConstant(rewriter, loc,
                          beta != 1.0f ? ref::scale(*broadcast, beta) : std::move(*broadcast),
                          name + "_bias");
    }
    rewriter.replaceOpWithNewOp<GemmOp>(
        op, op.getType(), a, weights,
        bias, rewriter.getF32FloatAttr(1.0f), rewriter.getF32FloatAttr(1.0f),
        rewriter.getI64IntegerAttr(0), rewriter.getI64IntegerAttr(0));
    return success();
  }
};

/// MatMul by a constant 1-D or 2-D B: the rows of every batch of A are the
/// rows of one Gemm.
struct MatMulToGemm : public OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatMulOp op,
                                PatternRewriter &rewriter) const override {
    auto bType = cast<RankedTensorType>(op.getB().getType());
    auto aType = cast<RankedTensorType>(op.getA().getType());
    if (bType.getRank() > 2 || !op.getB().getDefiningOp<ConstantOp>())
      return failure();
    Location loc = op.getLoc();
    int64_t k = bType.getDimSize(0);
    int64_t n = bType.getRank() == 2 ? bType.getDimSize(1) : 1;
    int64_t rows = aType.getNumElements() / k;
    Value a = reshapeTo(rewriter, loc, op.getA(), {rows, k});
    Value b = reshapeTo(rewriter, loc, op.getB(), {k, n});
    auto gemm = rewriter.create<GemmOp>(
        loc, aType.clone({rows, n}), a, b, Value(), rewriter.getF32FloatAttr(1.0f),
        rewriter.getF32FloatAttr(1.0f), rewriter.getI64IntegerAttr(0),
        rewriter.getI64IntegerAttr(0));
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, gemm, op.getType().getShape()));
    return success();
  }
};

/// Add(Gemm(A, B, C), D) with a constant D that is the same for every row
/// (or a full [M, N] matrix): D joins the bias. The Gemm may be seen through
/// a reshape that keeps its rows.
struct FuseAddIntoGemm : public OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    for (auto [gemmSide, constSide] :
         {std::pair{op.getA(), op.getB()}, std::pair{op.getB(), op.getA()}}) {
      std::optional<ref::Tensor> addend = constantTensor(constSide);
      if (!addend)
        continue;
      Value produced = gemmSide;
      auto reshape = produced.getDefiningOp<ReshapeOp>();
      if (reshape && reshape->hasOneUse())
        produced = reshape.getData();
      auto gemm = produced.getDefiningOp<GemmOp>();
      if (!gemm || !gemm->hasOneUse() || !NormalizeGemm::isNormal(gemm) ||
          gemmSide.getType() != op.getType())
        continue;
      int64_t m = gemm.getType().getDimSize(0), n = gemm.getType().getDimSize(1);
      // The addend broadcast to the Add's result must repeat one row of N
      // (through a reshape) or be the Gemm's own shape.
      llvm::Expected<ref::Tensor> full = ref::broadcastTo(
          *addend, std::vector<int64_t>(op.getType().getShape().begin(),
                                        op.getType().getShape().end()));
      if (!full) {
        llvm::consumeError(full.takeError());
        continue;
      }
      ref::Tensor rowsByN = ref::reshape(*full, {m, n});
      bool sameRows = true;
      for (int64_t r = 1; r < m && sameRows; ++r)
        for (int64_t j = 0; j < n && sameRows; ++j)
          sameRows = rowsByN.data[r * n + j] == rowsByN.data[j];
      ref::Tensor bias = sameRows ? ref::Tensor({n}, std::vector<float>(
                                                        rowsByN.data.begin(),
                                                        rowsByN.data.begin() + n))
                                  : rowsByN;
      if (!sameRows && reshape)
        continue; // a per-row bias through a reshape stays an Add
      if (gemm.getC()) {
        std::optional<ref::Tensor> c = constantTensor(gemm.getC());
        if (!c)
          continue;
        llvm::Expected<ref::Tensor> shapedC =
            ref::broadcastTo(*c, bias.shape.size() == 2 ? bias.shape
                                                        : std::vector<int64_t>{n});
        if (!shapedC) {
          llvm::consumeError(shapedC.takeError());
          continue;
        }
        if (bias.shape.size() < shapedC->shape.size()) {
          llvm::Expected<ref::Tensor> wide = ref::broadcastTo(bias, shapedC->shape);
          if (!wide) {
            llvm::consumeError(wide.takeError());
            continue;
          }
          bias = std::move(*wide);
        }
        llvm::Expected<ref::Tensor> sum = ref::add(bias, *shapedC);
        if (!sum) {
          llvm::consumeError(sum.takeError());
          continue;
        }
        bias = std::move(*sum);
      }
      if (bias.shape.size() == 2 && m == 1)
        bias = ref::reshape(bias, {n});
      Location loc = gemm.getLoc();
      rewriter.setInsertionPoint(gemm);
      auto fused = rewriter.create<GemmOp>(
          loc, gemm.getType(), gemm.getA(), gemm.getB(),
          makeConstant(rewriter, loc, std::move(bias), constantName(gemm) + "_bias"),
          gemm.getAlphaAttr(), gemm.getBetaAttr(), gemm.getTransAAttr(),
          gemm.getTransBAttr());
      rewriter.setInsertionPoint(op);
      rewriter.replaceOp(op, reshapeTo(rewriter, op.getLoc(), fused,
                                       op.getType().getShape()));
      if (reshape && reshape->use_empty())
        rewriter.eraseOp(reshape);
      rewriter.eraseOp(gemm);
      return success();
    }
    return failure();
  }
};

/// Explicit window attributes: auto_pad resolved into pads, and every list
/// present (strides and dilations 1, pads 0, the kernel from the weights).
template <typename OpT>
struct NormalizeWindow : public OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op, PatternRewriter &rewriter) const override {
    if (op.getAutoPad() == "NOTSET" && op.getKernelShape() && op.getStrides() &&
        op.getPads() && (op.getDilations() || isa<AveragePoolOp>(op)))
      return failure();
    auto inType = cast<RankedTensorType>(op.getX().getType());
    bool channelsLast = op.getChannelsLast();
    ArrayRef<int64_t> shape = inType.getShape();
    SmallVector<int64_t> spatial(channelsLast ? shape.drop_front().drop_back()
                                              : shape.drop_front(2));
    size_t n = spatial.size();
    SmallVector<int64_t> kernel;
    if (op.getKernelShape())
      kernel.assign(op.getKernelShape()->begin(), op.getKernelShape()->end());
    else if constexpr (std::is_same_v<OpT, ConvOp>)
      kernel.assign(cast<RankedTensorType>(op.getW().getType()).getShape().begin() + 2,
                    cast<RankedTensorType>(op.getW().getType()).getShape().end());
    SmallVector<int64_t> strides(n, 1), dilations(n, 1), pads(2 * n, 0);
    if (op.getStrides())
      strides.assign(op.getStrides()->begin(), op.getStrides()->end());
    if (op.getDilations())
      dilations.assign(op.getDilations()->begin(), op.getDilations()->end());
    if (op.getPads())
      pads.assign(op.getPads()->begin(), op.getPads()->end());
    llvm::Expected<std::vector<int64_t>> resolved =
        ref::resolvePads(spatial, kernel, strides, dilations, pads, op.getAutoPad());
    if (!resolved)
      return rewriter.notifyMatchFailure(op, llvm::toString(resolved.takeError()));
    rewriter.modifyOpInPlace(op, [&] {
      op.setKernelShapeAttr(rewriter.getDenseI64ArrayAttr(kernel));
      op.setStridesAttr(rewriter.getDenseI64ArrayAttr(strides));
      op.setPadsAttr(rewriter.getDenseI64ArrayAttr(*resolved));
      if (!isa<AveragePoolOp>(op))
        op->setAttr("dilations", rewriter.getDenseI64ArrayAttr(dilations));
      op.setAutoPadAttr(rewriter.getStringAttr("NOTSET"));
    });
    return success();
  }
};

/// The per-channel scale and shift of an inference BatchNormalization.
static std::optional<std::pair<std::vector<float>, std::vector<float>>>
batchNormAffine(BatchNormalizationOp op) {
  std::optional<ref::Tensor> scale = constantTensor(op.getScale());
  std::optional<ref::Tensor> bias = constantTensor(op.getB());
  std::optional<ref::Tensor> mean = constantTensor(op.getInputMean());
  std::optional<ref::Tensor> var = constantTensor(op.getInputVar());
  if (!scale || !bias || !mean || !var)
    return std::nullopt;
  float epsilon = op.getEpsilon().convertToFloat();
  std::vector<float> s(scale->data.size()), t(scale->data.size());
  for (size_t c = 0; c < s.size(); ++c) {
    s[c] = scale->data[c] / std::sqrt(var->data[c] + epsilon);
    t[c] = bias->data[c] - mean->data[c] * s[c];
  }
  return std::pair{std::move(s), std::move(t)};
}

/// The Conv whose weights and bias can absorb BatchNormalization `op`: it
/// produces op's input for op alone, from constant weights (and bias).
static ConvOp foldableConv(BatchNormalizationOp op) {
  auto conv = op.getX().getDefiningOp<ConvOp>();
  if (!conv || !conv->hasOneUse() || conv.getChannelsLast() ||
      !conv.getW().getDefiningOp<ConstantOp>() ||
      (conv.getB() && !conv.getB().getDefiningOp<ConstantOp>()))
    return nullptr;
  return conv;
}

/// BatchNormalization of a Conv's only result: the conv's weights and bias
/// absorb the per-channel scale and shift.
struct FoldBatchNormIntoConv : public OpRewritePattern<BatchNormalizationOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormalizationOp op,
                                PatternRewriter &rewriter) const override {
    ConvOp conv = foldableConv(op);
    if (!conv)
      return failure();
    std::optional<ref::Tensor> weights = constantTensor(conv.getW());
    std::optional<ref::Tensor> bias;
    if (conv.getB() && !(bias = constantTensor(conv.getB())))
      return failure();
    auto affine = batchNormAffine(op);
    if (!weights || !affine)
      return failure();
    auto &[scale, shift] = *affine;
    int64_t outChannels = weights->shape[0];
    int64_t perChannel = weights->numElements() / outChannels;
    for (int64_t o = 0; o < outChannels; ++o)
      for (int64_t i = 0; i < perChannel; ++i)
        weights->data[o * perChannel + i] *= scale[o];
    ref::Tensor newBias({outChannels}, shift);
    for (int64_t o = 0; o < outChannels && bias; ++o)
      newBias.data[o] += bias->data[o] * scale[o];
    Location loc = conv.getLoc();
    std::string name = constantName(conv);
    rewriter.setInsertionPoint(conv);
    Value w = makeConstant(rewriter, loc, std::move(*weights), name + "_weights");
    Value b = makeConstant(rewriter, loc, std::move(newBias), name + "_bias");
    rewriter.replaceOpWithNewOp<ConvOp>(
        op, op.getType(), conv.getX(), w, b, conv.getGroupAttr(), conv.getKernelShapeAttr(),
        conv.getStridesAttr(), conv.getPadsAttr(), conv.getDilationsAttr(),
        conv.getAutoPadAttr(), conv.getChannelsLastAttr());
    rewriter.eraseOp(conv);
    return success();
  }
};

/// Any other BatchNormalization: a multiplication and an addition by
/// per-channel constants.
struct BatchNormToAffine : public OpRewritePattern<BatchNormalizationOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormalizationOp op,
                                PatternRewriter &rewriter) const override {
    if (foldableConv(op))
      return failure(); // FoldBatchNormIntoConv takes it
    auto affine = batchNormAffine(op);
    if (!affine)
      return failure();
    auto type = cast<RankedTensorType>(op.getType());
    // [C, 1, ..., 1] broadcasts over the dimensions after the channel one.
    std::vector<int64_t> shape(type.getRank() - 1, 1);
    shape[0] = type.getDimSize(1);
    std::string name = constantName(op);
    Location loc = op.getLoc();
    Value scale = makeConstant(rewriter, loc, ref::Tensor(shape, std::move(affine->first)),
                               name + "_scale");
    Value shift = makeConstant(rewriter, loc, ref::Tensor(shape, std::move(affine->second)),
                               name + "_shift");
    Value scaled = rewriter.create<MulOp>(loc, type, op.getX(), scale);
    rewriter.replaceOpWithNewOp<AddOp>(op, type, scaled, shift);
    return success();
  }
};

/// Division by a constant is multiplication by its reciprocal: the
/// instruction set has no division.
struct DivideByConstant : public OpRewritePattern<DivOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DivOp op, PatternRewriter &rewriter) const override {
    std::optional<ref::Tensor> divisor = constantTensor(op.getB());
    if (!divisor)
      return failure();
    for (float &v : divisor->data)
      v = 1.0f / v;
    Value reciprocal =
        makeConstant(rewriter, op.getLoc(), std::move(*divisor), constantName(op) + "_reciprocal");
    rewriter.replaceOpWithNewOp<MulOp>(op, op.getType(), op.getA(), reciprocal);
    return success();
  }
};

struct OnnxCanonicalizePass
    : public onnx::impl::OnnxCanonicalizeBase<OnnxCanonicalizePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldConstantOperation, FoldConstantSplit, FlattenToReshape, CollapseReshapes,
                 NormalizeGemm, MatMulToGemm, FuseAddIntoGemm, NormalizeWindow<ConvOp>,
                 NormalizeWindow<MaxPoolOp>, NormalizeWindow<AveragePoolOp>,
                 FoldBatchNormIntoConv, BatchNormToAffine, DivideByConstant>(
        &getContext());
    GreedyRewriteConfig config;
    config.useTopDownTraversal = true;
    if (failed(applyPatternsReleasingConstants(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace

void pimc::onnx::addCanonicalizationPasses(mlir::OpPassManager &func, bool packPixels) {
  func.addPass(createOnnxCanonicalize());
  func.addPass(createOnnxChannelsLast());
  func.addPass(createOnnxCanonicalize());
  if (packPixels)
    func.addPass(createOnnxPackPixels());
}
