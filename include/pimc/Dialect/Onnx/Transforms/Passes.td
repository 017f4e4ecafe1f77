//===- Passes.td - onnx dialect passes ----------------------*- tablegen -*-===//
#ifndef PIMC_DIALECT_ONNX_TRANSFORMS_PASSES_TD
#define PIMC_DIALECT_ONNX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def OnnxCanonicalize : Pass<"onnx-canonicalize", "::mlir::func::FuncOp"> {
  let summary = "Stage 1: graph canonicalization into the form lowering expects";
  let description = [{
    Removes Identity and Dropout, folds every operator whose operands are all
    constants (with the reference kernels), turns Flatten into Reshape, folds
    reshape chains, and brings Gemm and MatMul into one normal form:
    Y = A x B + C with B a constant [K, N] (transB and alpha folded into it)
    and C absent, a constant [N] or a constant [M, N] (beta and broadcasting
    folded), transA as an explicit Transpose; a constant Add after a Gemm
    becomes its bias.
  }];
}

def OnnxChannelsLast : Pass<"onnx-channels-last", "::mlir::func::FuncOp"> {
  let summary = "Stage 1: channels-last convolutions and pooling, transposes sunk";
  let description = [{
    Crossbars multiply the channels of one pixel at a time, so convolutions
    and pooling run channels-last: each becomes its channels_last form
    between two Transposes, and the Transposes are then moved through
    element-wise operations, concatenations and padding (constants are
    transposed at compile time) until the inverse pairs meet and cancel. A
    Transpose left before a Flatten into a Gemm is absorbed by permuting the
    Gemm's weight rows. What remains is explicit data movement, typically
    only at the model's input.
  }];
}

def OnnxPackPixels : Pass<"onnx-pack-pixels", "::mlir::func::FuncOp"> {
  let summary = "Stage 1: convolutions that compute neighbouring pixels together";
  let description = [{
    A crossbar read costs the same energy however few of its rows and
    columns hold weights, and an mvm takes the same time however many
    crossbars its group has. A convolution with few output channels or a
    short last row tile wastes both. P neighbouring output pixels of the
    last spatial dimension read overlapping windows, so they can share one
    weight matrix: the union of their windows (the kernel widened by
    (P - 1) strides) times P copies of the weights, each shifted by a
    stride. The convolution becomes one with that kernel, a stride P times
    longer and P times the output channels; a Reshape (free in the
    channels-last layout) gives back its pixels, and is moved past the
    element-wise operations after it. P is the divisor of the output width
    up to 8 whose crossbar reads per pixel are fewest (then its mvms).
  }];
}

#endif // PIMC_DIALECT_ONNX_TRANSFORMS_PASSES_TD
