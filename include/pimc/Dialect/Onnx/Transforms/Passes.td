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

#endif // PIMC_DIALECT_ONNX_TRANSFORMS_PASSES_TD
