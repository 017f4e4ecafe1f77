//===- Lowering.h - shared pieces of ONNX-to-Spatial ------------*- C++ -*-===//
//
// Activations are seen as row-major matrices whose rows are the lanes of
// element-wise work: a tensor of shape [..., C] has numel / C rows of C
// elements (a pixel's channels, in the channels-last layout).
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_LIB_CONVERSION_ONNXTOSPATIAL_LOWERING_H
#define PIMC_LIB_CONVERSION_ONNXTOSPATIAL_LOWERING_H

#include "pimc/Arch/Arch.h"
#include "pimc/Dialect/Onnx/OnnxDialect.h"
#include "pimc/Dialect/Spatial/SpatialUtils.h"
#include "pimc/Reference/Reference.h"
#include "pimc/Support/Constants.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"

namespace pimc::lowering {

/// Rows and columns of the row-major matrix view of a tensor type.
std::pair<int64_t, int64_t> rowsAndCols(mlir::RankedTensorType type);
mlir::RankedTensorType f32Tensor(mlir::MLIRContext *context,
                                 llvm::ArrayRef<int64_t> shape);
/// `value` under `shape` (a spat.reshape unless it already has it).
mlir::Value reshape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                    llvm::ArrayRef<int64_t> shape);
/// A static, unit-stride tensor.extract_slice (rank-reducing to `resultShape`).
mlir::Value slice(mlir::OpBuilder &b, mlir::Location loc, mlir::Value source,
                  llvm::ArrayRef<int64_t> offsets, llvm::ArrayRef<int64_t> sizes,
                  llvm::ArrayRef<int64_t> resultShape);
/// The elements of `source` that `positions` picks (see ref::Positions), as
/// a view: one slice of the dimensions read in one run of consecutive
/// positions, and along each other dimension a concatenation of its runs.
mlir::Value pick(mlir::OpBuilder &b, mlir::Location loc, mlir::Value source,
                 const ref::Positions &positions);
/// The global behind a converted constant operand, if it is one.
spat::GlobalOp globalOf(mlir::Value value);
/// The shape and values of a converted constant operand, viewed in place.
struct ConstantView {
  llvm::ArrayRef<int64_t> shape;
  FloatData data;
};
/// The values of a converted constant operand, if it is one, viewed in place.
std::optional<ConstantView> constantViewOf(mlir::Value value);
/// A copy of the values of a converted constant operand, if it is one.
std::optional<ref::Tensor> constantOf(mlir::Value value);
/// A symbol-friendly name for the constants an op makes.
std::string nameOf(mlir::Operation *op, llvm::StringRef fallback);

/// Shared state of the patterns: the architecture and the module's symbols.
struct LoweringContext {
  const Arch &arch;
  mlir::SymbolTable &symbols;
  mlir::ModuleOp module;
  /// Whether the programs run one inference as fast as it can go (latency
  /// mode: a band's row tiles may spread over several computes) or loop as
  /// a pipeline (throughput mode).
  bool oneInference = true;
  /// Bands of whole rows share the rows out evenly rather than leaving the
  /// rest to a short last band, and the computes of a copy larger than a
  /// core share its row tiles out evenly.
  bool evenSplits = false;
  /// One inference: a layer's rows go to its copies of the weights in turn;
  /// and whether any layer's did.
  bool interleaveRows = true;
  bool rowsInterleaved = false;
  /// The next value of spat.copy.
  int64_t nextCopy = 0;
  /// Pipelines: the sums whose operand `first` skips layers, with the
  /// convolution that reads that operand and passes it on (`second`; see
  /// planPassThroughs); and the operand as each such convolution passed it.
  llvm::DenseMap<mlir::Operation *, std::pair<unsigned, mlir::Operation *>> skips{};
  /// Pipelines: the convolutions that read their input as a convolution
  /// beside them passes it on, a stage later (the shallow branches of a
  /// concatenation; see planPassThroughs).
  llvm::DenseMap<mlir::Operation *, mlir::Operation *> delays{};
  llvm::DenseMap<mlir::Operation *, mlir::Value> passedInput{};

  /// How long the computes of work without weights are. In a pipeline, as
  /// long as the slowest band, so that they do not stand out either. For one
  /// inference the layer after such work (pooling, the model input's
  /// transpose) waits for its pieces, row by row, so they are cut sixteen
  /// times finer.
  double weightlessNs() const {
    return oneInference ? slowestBandNs() / 16 : slowestBandNs();
  }
  /// The time of the slowest planned band (0 when there is none).
  double slowestBandNs() const {
    return module->getAttrOfType<spat::BandPlanAttr>(spat::kBandPlanAttr)
        .getSlowestNs()
        .getValueAsDouble();
  }

  /// A new constant global holding `value`.
  spat::GlobalOp addGlobal(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
                           mlir::ElementsAttr value);
  /// A new constant global of `tensor`, read where it is (spat.get_global).
  mlir::Value constant(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
                       const ref::Tensor &tensor);
};

template <typename OpT>
struct LoweringPattern : public mlir::OpConversionPattern<OpT> {
  LoweringPattern(mlir::MLIRContext *context, LoweringContext &lowering)
      : mlir::OpConversionPattern<OpT>(context), lowering(lowering) {}
  LoweringContext &lowering;
};

/// An operand of element-wise work: read row by row (one row per lane), or
/// one row every lane shares, or (`whole`) a value every lane reads as it
/// is (a clamp's one-element bound).
struct RowOperand {
  mlir::Value value;
  bool shared = false;
  bool whole = false;
};

/// The operand `value` of element-wise work whose result has type
/// `resultType`, following numpy broadcasting: the result's shape is read
/// row by row, a single row is shared, and a constant broadcast any other
/// way is expanded at compile time (and shared if all its rows agree).
mlir::FailureOr<RowOperand> broadcastOperand(mlir::ConversionPatternRewriter &rewriter,
                                             mlir::Operation *op, mlir::Value value,
                                             mlir::RankedTensorType resultType,
                                             LoweringContext &lowering);

/// Element-wise work over the rows of the result: one lane per row. `body`
/// gets one row (or shared row) per operand, in order. The rows are cut
/// into chunks, one compute each, that follow the row blocks the first
/// operand is made of (the bands of a convolution, so that each chunk can be
/// merged into its band) or, failing that, fit in local memory.
mlir::Value lowerElementwise(
    mlir::ConversionPatternRewriter &rewriter, mlir::Location loc,
    const LoweringContext &lowering, mlir::RankedTensorType resultType,
    llvm::ArrayRef<RowOperand> operands,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::ValueRange)> body);

/// The sum of `terms` (all of type `type`) and of `bias` when it is given,
/// as a tree of element-wise computes of a few terms each, so that no
/// compute has to hold all the partial sums of a long reduction.
mlir::Value sumTree(mlir::ConversionPatternRewriter &rewriter, mlir::Location loc,
                    const LoweringContext &lowering, llvm::ArrayRef<mlir::Value> terms,
                    std::optional<RowOperand> bias, mlir::RankedTensorType type);

/// One input channel per group and one output channel: a product per
/// channel, on the vector unit.
bool isDepthwise(onnx::ConvOp conv);

/// A ConvTranspose as stride-1 convolutions of its input, one per output
/// phase (the outputs whose positions, padding included, share their
/// remainders modulo the strides): a phase's outputs gather the input
/// through the kernel positions of its remainder only, so no crossbar
/// multiplies the zeros a stride would insert. Every phase computes Q
/// outputs per spatial dimension; interleaved, they cover the output from
/// `crop` on.
struct TransposedWindow {
  struct Phase {
    llvm::SmallVector<int64_t> kernel, dilations; // its taps per dimension
    /// Where its first window starts in the padded input.
    llvm::SmallVector<int64_t> start;
    /// Per dimension, the ConvTranspose kernel position of each tap.
    llvm::SmallVector<llvm::SmallVector<int64_t>> taps;
  };
  llvm::SmallVector<int64_t> strides, outputs, low, high, crop;
  /// Row-major over the remainders of the spatial dimensions.
  std::vector<Phase> phases;
};
/// The phases of channels-last `op`. A phase that no kernel position
/// reaches (a stride beyond the kernel) has a kernel of size 0.
mlir::FailureOr<TransposedWindow> transposedWindow(onnx::ConvTransposeOp op);

/// For a pipeline of layer stages: a sum whose operands come from layers
/// two stages apart (a residual connection) would have the earlier stage
/// wait for the later one in a rendezvous every round. When the layer in
/// between is a convolution that reads the earlier operand on the same grid
/// of pixels, its computes pass on the pixels of their rows, and the sum
/// reads them there, one stage back. Likewise the branches of a
/// concatenation one layer shallower than the deepest: the convolution of
/// such a branch reads its input as the first convolution of a deeper
/// branch passes it on.
void planPassThroughs(mlir::ModuleOp module, LoweringContext &lowering);

/// Patterns of convolutions and pooling (channels-last forms).
void populateWindowPatterns(mlir::RewritePatternSet &patterns, LoweringContext &lowering);

} // namespace pimc::lowering

#endif // PIMC_LIB_CONVERSION_ONNXTOSPATIAL_LOWERING_H
