//===- PackPixels.cpp - stage 1: neighbouring pixels in one matrix --------===//
//
// A convolution whose crossbars are partly empty (few output channels, a
// short last row tile) computes P neighbouring pixels of a row with one
// weight matrix over the union of their windows; a Reshape gives back the
// pixels and sinks through the element-wise work after it.
//
//===----------------------------------------------------------------------===//

#include "ConstantTensors.h"
#include "Elementwise.h"

#include "pimc/Arch/Arch.h"
#include "pimc/Dialect/Onnx/OnnxDialect.h"
#include "pimc/Dialect/Onnx/Transforms/Passes.h"
#include "pimc/Dialect/Pim/ModuleArch.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace pimc::onnx {
#define GEN_PASS_DEF_ONNXPACKPIXELS
#include "pimc/Dialect/Onnx/Transforms/Passes.h.inc"
} // namespace pimc::onnx

using namespace mlir;
using namespace pimc;
using namespace pimc::onnx;

namespace {

/// The most neighbouring pixels one matrix computes.
constexpr int64_t kMaxPackedPixels = 8;

Value reshapeTo(PatternRewriter &rewriter, Location loc, Value value,
                RankedTensorType type) {
  auto shapeType = RankedTensorType::get({type.getRank()}, rewriter.getI64Type());
  Value shape = rewriter.create<ConstantOp>(
      loc, shapeType, DenseElementsAttr::get(shapeType, type.getShape()));
  return rewriter.create<ReshapeOp>(loc, type, value, shape, rewriter.getI64IntegerAttr(0));
}

/// The crossbar reads and mvms of one output pixel, as fractions
/// (numerators over `pixels`), of a [patch, og] matrix shared by `pixels`.
struct PixelCost {
  int64_t reads, mvms, pixels;
};

PixelCost pixelCost(const Arch &arch, int64_t patch, int64_t og, int64_t pixels) {
  DenseTiling tiling = denseTiling(arch, patch, og);
  int64_t crossbars = 0;
  for (int64_t c = 0; c < tiling.blocks; ++c)
    crossbars += tiling.crossbars(c, og);
  return {tiling.rowTiles * crossbars, tiling.rowTiles * tiling.blocks, pixels};
}

/// Fewer reads per pixel, then fewer mvms.
bool cheaper(const PixelCost &a, const PixelCost &b) {
  int64_t readsA = a.reads * b.pixels, readsB = b.reads * a.pixels;
  if (readsA != readsB)
    return readsA < readsB;
  return a.mvms * b.pixels < b.mvms * a.pixels;
}

/// Conv(x) -> Reshape(Conv'(x)), where Conv' computes P pixels of the last
/// spatial dimension per output position.
LogicalResult packConv(ConvOp op, const Arch &arch, PatternRewriter &rewriter) {
  if (!op.getChannelsLast() || op.getGroup() != 1 || op.getAutoPad() != "NOTSET" ||
      !op.getKernelShape())
    return failure();
  std::optional<ref::Tensor> weights = constantTensor(op.getW());
  std::optional<ref::Tensor> bias;
  if (!weights || (op.getB() && !(bias = constantTensor(op.getB()))))
    return failure();
  auto outType = cast<RankedTensorType>(op.getType());
  int64_t rank = outType.getRank(), spatial = rank - 2;
  if (spatial < 1)
    return failure();
  SmallVector<int64_t> kernel(*op.getKernelShape());
  SmallVector<int64_t> strides(spatial, 1), dilations(spatial, 1);
  if (op.getStrides())
    strides.assign(op.getStrides()->begin(), op.getStrides()->end());
  if (op.getDilations())
    dilations.assign(op.getDilations()->begin(), op.getDilations()->end());
  int64_t last = spatial - 1;
  if (dilations[last] != 1)
    return failure();
  int64_t outChannels = weights->shape[0], inChannels = weights->shape[1];
  int64_t width = outType.getDimSize(rank - 2), stride = strides[last];
  int64_t otherPositions = 1;
  for (int64_t d = 0; d < last; ++d)
    otherPositions *= kernel[d];
  auto patch = [&](int64_t pixels) {
    return otherPositions * (kernel[last] + (pixels - 1) * stride) * inChannels;
  };
  int64_t pixels = 1;
  PixelCost best = pixelCost(arch, patch(1), outChannels, 1);
  for (int64_t p = 2; p <= std::min(width, kMaxPackedPixels); ++p) {
    if (width % p)
      continue;
    PixelCost cost = pixelCost(arch, patch(p), p * outChannels, p);
    if (cheaper(cost, best)) {
      best = cost;
      pixels = p;
    }
  }
  if (pixels == 1)
    return failure();

  // W'[p * O + o, c, ..., j] = W[o, c, ..., j - p * stride].
  int64_t packedWidth = kernel[last] + (pixels - 1) * stride;
  int64_t rowsPerFilter = inChannels * otherPositions; // (c, other positions)
  std::vector<float> packed(pixels * outChannels * rowsPerFilter * packedWidth, 0.0f);
  for (int64_t p = 0; p < pixels; ++p)
    for (int64_t o = 0; o < outChannels; ++o)
      for (int64_t r = 0; r < rowsPerFilter; ++r)
        for (int64_t j = 0; j < kernel[last]; ++j)
          packed[((p * outChannels + o) * rowsPerFilter + r) * packedWidth + j + p * stride] =
              weights->data[(o * rowsPerFilter + r) * kernel[last] + j];
  std::vector<int64_t> wShape = weights->shape;
  wShape[0] = pixels * outChannels;
  wShape.back() = packedWidth;
  Location loc = op.getLoc();
  std::string name = constantName(op.getW().getDefiningOp());
  Value w = makeConstant(rewriter, loc, ref::Tensor(wShape, std::move(packed)), name);
  Value b;
  if (bias) {
    std::vector<float> tiled;
    for (int64_t p = 0; p < pixels; ++p)
      llvm::append_range(tiled, bias->data);
    b = makeConstant(rewriter, loc, ref::Tensor({pixels * outChannels}, std::move(tiled)),
                     constantName(op.getB().getDefiningOp()));
  }
  kernel[last] = packedWidth;
  strides[last] *= pixels;
  SmallVector<int64_t> shape(outType.getShape());
  shape[rank - 2] /= pixels;
  shape[rank - 1] *= pixels;
  auto conv = rewriter.create<ConvOp>(
      loc, outType.clone(shape), op.getX(), w, b, op.getGroupAttr(),
      rewriter.getDenseI64ArrayAttr(kernel), rewriter.getDenseI64ArrayAttr(strides),
      op.getPadsAttr(), rewriter.getDenseI64ArrayAttr(dilations), op.getAutoPadAttr(),
      op.getChannelsLastAttr());
  conv->setAttr(kPackedPixelsAttr, rewriter.getI64IntegerAttr(pixels));
  rewriter.replaceOp(op, reshapeTo(rewriter, loc, conv, outType));
  return success();
}

/// The Reshape `value` comes from, if it is its only user and gives back
/// the pixels of packed ones (the same rank, fewer channels). Only these
/// sink: the Reshapes made on the way pack, and so stay.
ReshapeOp soleUnpacking(Value value) {
  auto r = value.getDefiningOp<ReshapeOp>();
  if (!r || !r->hasOneUse())
    return ReshapeOp();
  auto from = cast<RankedTensorType>(r.getData().getType());
  auto to = cast<RankedTensorType>(r.getType());
  bool unpacks = from.getRank() == to.getRank() && from.getRank() >= 2 &&
                 from.getShape().back() > to.getShape().back();
  return unpacks ? r : ReshapeOp();
}

/// op(Reshape(x)) -> Reshape(op(x)) for element-wise operations of one
/// operand (Clip's bounds are scalars).
struct SinkReshapeThroughUnary : public ElementwiseUnaryPattern {
  using ElementwiseUnaryPattern::ElementwiseUnaryPattern;
  LogicalResult rewriteUnary(Operation *op, PatternRewriter &rewriter) const override {
    ReshapeOp r = soleUnpacking(op->getOperand(0));
    if (!r)
      return failure();
    rewriter.replaceOp(op, reshapeTo(rewriter, op->getLoc(),
                                     applyElementwise(rewriter, op, r.getData()),
                                     cast<RankedTensorType>(op->getResult(0).getType())));
    return success();
  }
};

/// op(Reshape(a), b) -> Reshape(op(a, Reshape(b))) when neither operand is
/// broadcast (so the shapes only regroup the same rows), and likewise with
/// the operands swapped; a Reshape of b back to a's shape folds.
template <typename OpT> struct SinkReshapeThroughBinary : public OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op, PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (op.getA().getType() != type || op.getB().getType() != type)
      return failure();
    ReshapeOp a = soleUnpacking(op.getA()), b = soleUnpacking(op.getB());
    ReshapeOp r = a ? a : b;
    if (!r)
      return failure();
    auto inner = cast<RankedTensorType>(r.getData().getType());
    Location loc = op.getLoc();
    auto operand = [&](Value value) -> Value {
      if (auto from = value.getDefiningOp<ReshapeOp>();
          from && from.getData().getType() == inner)
        return from.getData();
      return reshapeTo(rewriter, loc, value, inner);
    };
    auto result = rewriter.create<OpT>(loc, inner, operand(op.getA()), operand(op.getB()));
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, result, type));
    return success();
  }
};

struct OnnxPackPixelsPass : public onnx::impl::OnnxPackPixelsBase<OnnxPackPixelsPass> {
  using OnnxPackPixelsBase::OnnxPackPixelsBase;
  void runOnOperation() override {
    // The chip is the module's (pim.arch).
    auto module = getOperation()->getParentOfType<ModuleOp>();
    if (!module) {
      getOperation().emitError("onnx-pack-pixels needs the function in a module");
      return signalPassFailure();
    }
    std::shared_ptr<const Arch> arch = archOf(module);
    if (!arch)
      return signalPassFailure();
    SmallVector<ConvOp> convs;
    getOperation().walk([&](ConvOp op) { convs.push_back(op); });
    PatternRewriter rewriter(&getContext());
    for (ConvOp op : convs) {
      rewriter.setInsertionPoint(op);
      (void)packConv(op, *arch, rewriter);
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<SinkReshapeThroughUnary, SinkReshapeThroughBinary<AddOp>,
                 SinkReshapeThroughBinary<SubOp>, SinkReshapeThroughBinary<MulOp>>(
        &getContext());
    // The weights of the convolutions packed die here.
    if (failed(applyPatternsReleasingConstants(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
