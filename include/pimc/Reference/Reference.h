//===- Reference.h - reference ONNX interpreter -----------------*- C++ -*-===//
//
// Plain, obviously-correct f32 kernels of every operator pimc supports, and
// an interpreter that runs an ONNX graph with them. It reads the model as
// plain data (frontend::Model), independently of pimc's importer and
// dialects, so that it can check them. Graph canonicalization also folds
// constants with these kernels.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_REFERENCE_REFERENCE_H
#define PIMC_REFERENCE_REFERENCE_H

#include "pimc/Frontend/OnnxModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pimc::ref {

/// A dense row-major f32 tensor.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> data;

  Tensor() = default;
  Tensor(std::vector<int64_t> shape, std::vector<float> data);
  /// A tensor of `shape` filled with `value`.
  static Tensor filled(std::vector<int64_t> shape, float value);
  static Tensor fromData(const frontend::TensorData &tensor);
  frontend::TensorData toData(const std::string &name) const;
  int64_t numElements() const;
};

/// The numpy broadcast of two shapes; fails when they do not broadcast.
llvm::Expected<std::vector<int64_t>> broadcastShape(llvm::ArrayRef<int64_t> a,
                                                    llvm::ArrayRef<int64_t> b);
/// `x` broadcast (numpy rules) to `shape`.
llvm::Expected<Tensor> broadcastTo(const Tensor &x, llvm::ArrayRef<int64_t> shape);

/// Y = alpha * op(A) * op(B) + beta * C, C broadcast to Y (ONNX Gemm).
llvm::Expected<Tensor> gemm(const Tensor &a, const Tensor &b, const Tensor *c,
                            float alpha, float beta, bool transA, bool transB);
/// numpy.matmul, including 1-D operands and broadcast batch dimensions.
llvm::Expected<Tensor> matmul(const Tensor &a, const Tensor &b);
/// Elementwise arithmetic with numpy broadcasting.
llvm::Expected<Tensor> add(const Tensor &a, const Tensor &b);
llvm::Expected<Tensor> sub(const Tensor &a, const Tensor &b);
llvm::Expected<Tensor> mul(const Tensor &a, const Tensor &b);
llvm::Expected<Tensor> div(const Tensor &a, const Tensor &b);
/// ONNX Max and Min of two operands; NaN propagates.
llvm::Expected<Tensor> maximum(const Tensor &a, const Tensor &b);
llvm::Expected<Tensor> minimum(const Tensor &a, const Tensor &b);
/// x < 0 ? slope * x : x, slope broadcast to x (ONNX PRelu).
llvm::Expected<Tensor> prelu(const Tensor &x, const Tensor &slope);
Tensor relu(const Tensor &x);
/// x < 0 ? alpha * x : x.
Tensor leakyRelu(const Tensor &x, float alpha);
/// ONNX ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceSumSquare,
/// ReduceL1 and ReduceProd over `axes` (every axis if empty; negative ones
/// count from the end), keeping the reduced axes as 1 if `keepdims`.
enum class Reduction { Sum, Mean, Max, Min, SumSquare, L1, Prod };
llvm::Expected<Tensor> reduce(const Tensor &x, llvm::ArrayRef<int64_t> axes, bool keepdims,
                              Reduction kind);
/// max(0, min(1, alpha * x + beta)).
Tensor hardSigmoid(const Tensor &x, float alpha, float beta);
Tensor abs(const Tensor &x);
Tensor sigmoid(const Tensor &x);
Tensor tanh(const Tensor &x);
Tensor scale(const Tensor &x, float factor);
/// min(max(x, lo), hi), as numpy.clip: all of x becomes hi when lo > hi, and
/// NaN stays NaN. An infinite bound is no bound.
Tensor clip(const Tensor &x, float lo, float hi);
/// ONNX Transpose; `perm` is a permutation of the dimensions.
Tensor transpose(const Tensor &x, llvm::ArrayRef<int64_t> perm);
/// The values of a tensor of `shape` transposed by `perm`.
std::vector<float> transposeValues(llvm::ArrayRef<float> x, llvm::ArrayRef<int64_t> shape,
                                   llvm::ArrayRef<int64_t> perm);
/// The same elements under a new shape of the same element count.
Tensor reshape(const Tensor &x, std::vector<int64_t> shape);
/// ONNX Reshape's target shape: 0 copies the input dimension (unless
/// allowzero) and one -1 is inferred.
llvm::Expected<std::vector<int64_t>> reshapeTarget(llvm::ArrayRef<int64_t> input,
                                                   llvm::ArrayRef<int64_t> shape,
                                                   bool allowZero);
/// ONNX Flatten at `axis` (negative counts from the end).
llvm::Expected<Tensor> flatten(const Tensor &x, int64_t axis);
/// ONNX Squeeze: drops the size-1 dimensions `axes` (negative counts from the
/// end), or every size-1 dimension when `axes` is empty.
llvm::Expected<Tensor> squeeze(const Tensor &x, llvm::ArrayRef<int64_t> axes);
/// ONNX Unsqueeze: inserts size-1 dimensions at `axes` of the result, in any
/// order (negative counts from the end of the result).
llvm::Expected<Tensor> unsqueeze(const Tensor &x, llvm::ArrayRef<int64_t> axes);
/// ONNX Concat along `axis` (negative counts from the end).
llvm::Expected<Tensor> concat(llvm::ArrayRef<Tensor> inputs, int64_t axis);

/// The positions that data movement reads along each dimension of a tensor:
/// element (i_0, ..., i_n) of the result is element (positions[0][i_0], ...,
/// positions[n][i_n]) of the input (repeats and any order allowed).
using Positions = std::vector<std::vector<int64_t>>;
/// The row-major indices into a tensor of `shape` of the elements `positions`
/// picks, in the result's order.
std::vector<int64_t> pickedIndices(llvm::ArrayRef<int64_t> shape,
                                   const Positions &positions);
/// The elements of `x` that `positions` picks.
Tensor pick(const Tensor &x, const Positions &positions);
/// Every position of every dimension of `shape`.
Positions allPositions(llvm::ArrayRef<int64_t> shape);
/// ONNX Slice's positions in a tensor of `shape`: along `axes` (all the
/// first starts.size() ones if empty; negative count from the end), from
/// starts to ends (negative count from the end, clamped to the dimension) by
/// `steps` (all 1 if empty; a negative step walks backwards).
llvm::Expected<Positions> slicePositions(llvm::ArrayRef<int64_t> shape,
                                         llvm::ArrayRef<int64_t> starts,
                                         llvm::ArrayRef<int64_t> ends,
                                         llvm::ArrayRef<int64_t> axes,
                                         llvm::ArrayRef<int64_t> steps);
/// The lengths of ONNX Split's parts of a dimension of `length`: `split` if
/// it is given (they must add up to `length`), else `parts` equal parts, the
/// last one shorter if they do not divide it (opset 18).
llvm::Expected<std::vector<int64_t>> splitLengths(int64_t length,
                                                  llvm::ArrayRef<int64_t> split,
                                                  int64_t parts);
/// ONNX Split of `x` along `axis` into parts of `lengths`.
llvm::Expected<std::vector<Tensor>> split(const Tensor &x, int64_t axis,
                                          llvm::ArrayRef<int64_t> lengths);
/// ONNX Resize (opsets 11 to 13; Upsample is its asymmetric form with floor
/// rounding): how an output coordinate maps back onto the input, and how it
/// is interpolated there.
struct ResizeAttrs {
  std::string mode = "nearest"; // nearest, linear or cubic
  std::string coordinateMode = "half_pixel";
  std::string nearestMode = "round_prefer_floor";
  double cubicA = -0.75;
  bool excludeOutside = false;
};
/// The input positions and weights each output element of one dimension sums
/// when `in` elements are resized to `out` by `scale`: a constant linear
/// combination of the inputs, as in ONNX's reference implementation.
using ResizeWeights = std::vector<std::vector<std::pair<int64_t, double>>>;
llvm::Expected<ResizeWeights> resizeWeights(int64_t in, int64_t out, double scale,
                                            const ResizeAttrs &attrs);
/// ONNX Resize of `x` to `shape`, dimension by dimension, by `scales`.
llvm::Expected<Tensor> resize(const Tensor &x, llvm::ArrayRef<int64_t> shape,
                              llvm::ArrayRef<double> scales, const ResizeAttrs &attrs);
/// ONNX Pad in `mode` "constant" (with `value`), "edge" or "reflect". `pads`
/// holds the begins of every dimension, then the ends; negative pads remove
/// elements before any are added (as onnxruntime does). Reflect mirrors
/// without repeating the edge and, as numpy, mirrors again when the pad is
/// longer than the dimension.
llvm::Expected<Tensor> pad(const Tensor &x, llvm::ArrayRef<int64_t> pads,
                           llvm::StringRef mode, float value);

/// A sliding window over the spatial dimensions D1..Dn of an N x C x D1 x ...
/// x Dn tensor, with one value per spatial dimension; auto_pad is resolved.
struct WindowAttrs {
  std::vector<int64_t> strides, dilations; // at least 1
  /// D1 begin, ..., Dn begin, D1 end, ..., Dn end: padding, at least 0.
  std::vector<int64_t> pads;
};

/// ONNX Conv; the kernel shape is that of the weights.
struct ConvAttrs : WindowAttrs {
  int64_t groups = 1;
};

/// ONNX MaxPool and AveragePool.
struct PoolAttrs : WindowAttrs {
  std::vector<int64_t> kernel;
  /// Rounds the output size up; a window that would start in the end padding
  /// is dropped (as in onnxruntime and PyTorch).
  bool ceilMode = false;
  /// Averages divide by the window positions within the padded input,
  /// rather than within the input.
  bool countIncludePad = false;
};

/// The output sizes of a window over spatial sizes `input` with explicit
/// `pads` (the begins, then the ends); fails on sizes out of range.
llvm::Expected<std::vector<int64_t>>
windowOutput(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> kernel,
             llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> dilations,
             llvm::ArrayRef<int64_t> pads, bool ceilMode);

/// The explicit pads (as WindowAttrs::pads) of ONNX auto_pad `autoPad` for a
/// window over spatial sizes `input`: `pads` for NOTSET (empty: none), none
/// for VALID, and for SAME_UPPER and SAME_LOWER the least that gives
/// ceil(input / stride) outputs, the odd one at the end or the begin.
llvm::Expected<std::vector<int64_t>>
resolvePads(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> kernel,
            llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> dilations,
            llvm::ArrayRef<int64_t> pads, llvm::StringRef autoPad);

/// ONNX Conv (cross-correlation) of x (N x C x D1 x ... x Dn) with weights w
/// (M x C/groups x K1 x ... x Kn) plus the optional bias b (M); padding is 0.
llvm::Expected<Tensor> conv(const Tensor &x, const Tensor &w, const Tensor *b,
                            const ConvAttrs &attrs);
/// ONNX ConvTranspose, resolved: output position o of spatial dimension d
/// gathers input position i through kernel position k where
/// i * strides[d] + k * dilations[d] == o + beginPads[d].
struct ConvTransposeAttrs {
  std::vector<int64_t> strides, dilations;
  /// Negative when the output starts before the first position the
  /// kernel reaches (an output_shape larger than the full output).
  std::vector<int64_t> beginPads;
  std::vector<int64_t> output; // spatial output sizes
  int64_t groups = 1;
};

/// Resolves ConvTranspose's attributes for spatial input sizes `input` and
/// kernel `kernel` (empty lists take ONNX's defaults): `outputShape` (its
/// spatial part) sets the output sizes and the padding follows from them,
/// auto_pad SAME_* gives input * stride outputs, otherwise `pads` (begins,
/// then ends) trim the full output, which `outputPadding` lengthens at the end.
llvm::Expected<ConvTransposeAttrs>
resolveConvTranspose(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> kernel,
                     llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> dilations,
                     llvm::ArrayRef<int64_t> pads, llvm::ArrayRef<int64_t> outputPadding,
                     llvm::ArrayRef<int64_t> outputShape, llvm::StringRef autoPad,
                     int64_t groups);

/// ONNX ConvTranspose of x (N x C x D1 x ... x Dn) with weights w
/// (C x M/groups x K1 x ... x Kn) plus the optional bias b (M).
llvm::Expected<Tensor> convTranspose(const Tensor &x, const Tensor &w, const Tensor *b,
                                     const ConvTransposeAttrs &attrs);
/// ONNX MaxPool (its Y output); padding is never the maximum.
llvm::Expected<Tensor> maxPool(const Tensor &x, const PoolAttrs &attrs);
/// ONNX AveragePool.
llvm::Expected<Tensor> averagePool(const Tensor &x, const PoolAttrs &attrs);
/// ONNX GlobalMaxPool and GlobalAveragePool: one window over every spatial
/// dimension, which the result keeps with size 1.
llvm::Expected<Tensor> globalMaxPool(const Tensor &x);
llvm::Expected<Tensor> globalAveragePool(const Tensor &x);
/// Inference ONNX BatchNormalization: per channel c (dimension 1),
/// y = scale[c] * (x - mean[c]) / sqrt(variance[c] + epsilon) + bias[c].
llvm::Expected<Tensor> batchNorm(const Tensor &x, const Tensor &scale,
                                 const Tensor &bias, const Tensor &mean,
                                 const Tensor &variance, float epsilon);

/// ONNX RNN, GRU and LSTM over full-length sequences.
enum class Cell { Rnn, Gru, Lstm };
struct RecurrentAttrs {
  Cell cell = Cell::Rnn;
  int64_t hiddenSize = 0;
  /// Whether the forward, the reverse or both directions (in that order) run.
  bool forward = true, reverse = false;
  /// The cell's activations (RNN f; GRU f, g; LSTM f, g, h) for each
  /// direction, by ONNX name: Sigmoid, Tanh or Relu.
  std::vector<std::string> activations;
  bool linearBeforeReset = false;
  /// 0: X is [T, B, I]; 1: X is [B, T, I] (and the outputs batch-first too).
  int64_t layout = 0;
};
/// The outputs Y, Y_h and (LSTM) Y_c.
struct RecurrentResult {
  Tensor y, yH, yC;
};
/// W, R, B, initial_h, initial_c and P have ONNX's shapes; b, initialH,
/// initialC and p may be null (zeros).
llvm::Expected<RecurrentResult> recurrent(const Tensor &x, const Tensor &w, const Tensor &r,
                                          const Tensor *b, const Tensor *initialH,
                                          const Tensor *initialC, const Tensor *p,
                                          const RecurrentAttrs &attrs);

/// Runs `model` on `inputs` (one per graph input, in order) and returns one
/// tensor per graph output. Errors name the node.
llvm::Expected<std::vector<Tensor>> run(const frontend::Model &model,
                                        const std::vector<Tensor> &inputs);

/// Compares `actual` with `expected` elementwise: |a - e| <= atol + rtol*|e|.
struct Comparison {
  bool match = true;
  double maxAbsError = 0, maxRelError = 0;
  int64_t worstIndex = -1;
  std::string message; // empty when they match
};
Comparison compare(const Tensor &actual, const Tensor &expected, double rtol,
                   double atol);

} // namespace pimc::ref

#endif // PIMC_REFERENCE_REFERENCE_H
