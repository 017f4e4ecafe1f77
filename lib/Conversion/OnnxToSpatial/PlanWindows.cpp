//===- PlanWindows.cpp - the band plan of convolutions and pooling --------===//
//
// Collects the convolutions, pooling and matrix products of the module as
// plain layers (work from the cost model, crossbars of one copy), plans
// them with pimc::plan::planBands, and writes the plan onto the IR for
// ONNX-to-Spatial to read.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "pimc/Arch/CostModel.h"
#include "pimc/Conversion/BandPlan.h"
#include "pimc/Conversion/Passes.h"
#include "pimc/Dialect/Pim/ModuleArch.h"

namespace pimc {
#define GEN_PASS_DEF_ONNXPLANWINDOWS
#include "pimc/Conversion/Passes.h.inc"
} // namespace pimc

using namespace mlir;
using namespace pimc;
using namespace pimc::spat;

/// The most parts a band cuts one output row into. Halves of rows shorten
/// one inference by 9 to 20% on the benchmark models where crossbars are
/// left for the copies; quarters were slower on two of them and cost twice
/// the compile time.
constexpr int64_t kMaxRowParts = 2;

/// The time per output pixel of a dense convolution of `group` groups of a
/// [patch, og] matrix; adds the crossbars of one copy to `crossbars`.
static double denseCost(const Arch &arch, const CostModel &cost, int64_t patch, int64_t og,
                        int64_t group, int64_t &crossbars) {
  DenseTiling tiling = denseTiling(arch, patch, og);
  int64_t rows = arch.matrix.xbarRows * arch.inputBytes();
  double pixelNs = 0;
  for (int64_t c = 0; c < tiling.blocks; ++c) {
    int64_t cols = tiling.columns(c, og);
    int64_t blockCrossbars = tiling.crossbars(c, og);
    crossbars += group * tiling.rowTiles * blockCrossbars;
    // An mvm per row tile, its input gathered by a copy, and the sum of the
    // partial products.
    pixelNs += group * tiling.rowTiles *
               (cost.mvmNs(blockCrossbars) + cost.localReadNs(rows) +
                cost.localWriteNs(rows) + cost.vectorNs(2, cols));
  }
  return pixelNs;
}

/// A ConvTranspose as the planner sees it: its phases' rows, their
/// crossbars and work together (each band is a band of every phase).
static std::optional<plan::WindowLayer>
transposedLayer(onnx::ConvTransposeOp op, const Arch &arch, const CostModel &cost) {
  FailureOr<lowering::TransposedWindow> window = lowering::transposedWindow(op);
  if (failed(window))
    return std::nullopt;
  const lowering::TransposedWindow &transposed = *window;
  int64_t cg = cast<RankedTensorType>(op.getW().getType()).getDimSize(0) / op.getGroup();
  int64_t og = cast<RankedTensorType>(op.getW().getType()).getDimSize(1);
  plan::WindowLayer layer;
  layer.rows = cast<RankedTensorType>(op.getX().getType()).getDimSize(0) *
               transposed.outputs.front();
  if (transposed.outputs.size() >= 2) {
    layer.cols = transposed.outputs[1];
    layer.maxParts = std::min<int64_t>(layer.cols, kMaxRowParts);
  }
  int64_t pixels = 1;
  for (int64_t q : transposed.outputs)
    pixels *= q;
  for (const lowering::TransposedWindow::Phase &phase : transposed.phases) {
    int64_t positions = 1;
    for (int64_t k : phase.kernel)
      positions *= k;
    if (positions == 0)
      continue;
    layer.work +=
        pixels * denseCost(arch, cost, positions * cg, og, op.getGroup(), layer.crossbars);
  }
  return layer;
}

/// A convolution or pooling as the planner sees it, if `op` is one.
static std::optional<plan::WindowLayer> windowLayer(Operation *op, const Arch &arch,
                                                    const CostModel &cost, bool oneInference) {
  if (auto convTranspose = dyn_cast<onnx::ConvTransposeOp>(op))
    return transposedLayer(convTranspose, arch, cost);
  if (!isa<onnx::ConvOp, onnx::MaxPoolOp, onnx::AveragePoolOp>(op))
    return std::nullopt;
  auto x = cast<RankedTensorType>(op->getOperand(0).getType());
  auto y = cast<RankedTensorType>(op->getResult(0).getType());
  if (x.getRank() < 3 || y.getRank() != x.getRank())
    return std::nullopt;
  int64_t pixels = y.getNumElements() / y.getShape().back();
  int64_t channels = x.getShape().back();
  plan::WindowLayer layer;
  // The rows of every sample of the batch (bandsOf shares the bands out).
  layer.rows = y.getDimSize(0) * y.getDimSize(1);
  if (y.getRank() >= 4) {
    layer.cols = y.getDimSize(2);
    layer.maxParts = std::min<int64_t>(layer.cols, kMaxRowParts);
  }
  if (auto conv = dyn_cast<onnx::ConvOp>(op)) {
    auto wType = cast<RankedTensorType>(conv.getW().getType());
    int64_t positions = wType.getNumElements() / (wType.getDimSize(0) * wType.getDimSize(1));
    int64_t group = conv.getGroup(), cg = wType.getDimSize(1);
    int64_t og = wType.getDimSize(0) / group;
    double pixelNs = 0;
    if (lowering::isDepthwise(conv)) {
      pixelNs = positions * 2 * cost.vectorNs(2, channels);
    } else {
      pixelNs = denseCost(arch, cost, positions * cg, og, group, layer.crossbars);
    }
    layer.work = pixels * pixelNs;
    // When the programs loop, a core also spends every round on receiving
    // its band's input and copying it into place, halo rows included
    // (rounds 2 to 8% shorter on four of the six benchmark models).
    if (!oneInference)
      layer.work += cost.loopInputNs(x.getNumElements() * arch.inputBytes());
    return layer;
  }
  auto kernel = op->getAttrOfType<DenseI64ArrayAttr>("kernel_shape");
  int64_t positions = 1;
  for (int64_t k : kernel ? kernel.asArrayRef() : ArrayRef<int64_t>())
    positions *= k;
  layer.work = pixels * positions * cost.vectorNs(2, channels);
  return layer;
}

namespace {
struct OnnxPlanWindowsPass : public pimc::impl::OnnxPlanWindowsBase<OnnxPlanWindowsPass> {
  using OnnxPlanWindowsBase::OnnxPlanWindowsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::shared_ptr<const Arch> arch = archOf(module);
    if (!arch)
      return signalPassFailure();
    CostModel cost(*arch);
    int64_t perCore = arch->matrix.xbarArrayCount;
    plan::BandProblem problem;
    problem.cores = arch->coreCount;
    problem.crossbarsPerCore = perCore;
    problem.oneInference = !throughput;
    problem.copyBudget = copyBudget;
    SmallVector<Operation *> windows;
    module.walk([&](Operation *op) {
      if (std::optional<plan::WindowLayer> layer = windowLayer(op, *arch, cost, !throughput)) {
        problem.layers.push_back(*layer);
        windows.push_back(op);
      }
    });
    // Matrix products are not replicated, but their tiles take crossbars
    // too: one compute per row tile and column block.
    module.walk([&](Operation *op) {
      if (!isa<onnx::GemmOp, onnx::MatMulOp>(op))
        return;
      auto a = cast<RankedTensorType>(op->getOperand(0).getType());
      auto y = cast<RankedTensorType>(op->getResult(0).getType());
      if (a.getRank() < 1 || y.getRank() < 1)
        return;
      auto gemm = dyn_cast<onnx::GemmOp>(op);
      int64_t k = gemm && gemm.getTransA() ? a.getDimSize(0) : a.getShape().back();
      int64_t n = y.getShape().back();
      DenseTiling tiling = denseTiling(*arch, k, n);
      int64_t crossbars = 0;
      for (int64_t c = 0; c < tiling.blocks; ++c)
        crossbars += tiling.rowTiles * tiling.crossbars(c, n);
      problem.matrixCrossbars += crossbars;
      problem.matrixCores += llvm::divideCeilSigned(crossbars, perCore);
    });
    plan::BandPlan plan = plan::planBands(problem);
    MLIRContext *context = &getContext();
    auto f64 = [&](double value) { return FloatAttr::get(Float64Type::get(context), value); };
    for (auto [op, layer, bands] : llvm::zip_equal(windows, problem.layers, plan.bands))
      op->setAttr(kBandsAttr, BandsAttr::get(context, bands, f64(layer.bandNs(bands))));
    module->setAttr(kBandPlanAttr, BandPlanAttr::get(context, f64(plan.bandNs)));
  }
};
} // namespace
