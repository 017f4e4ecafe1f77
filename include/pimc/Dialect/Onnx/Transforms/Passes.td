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

#endif // PIMC_DIALECT_ONNX_TRANSFORMS_PASSES_TD
