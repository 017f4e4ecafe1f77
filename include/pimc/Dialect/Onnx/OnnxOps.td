//===- OnnxOps.td - the onnx dialect ------------------------*- tablegen -*-===//
//
// A subset of the ONNX operator set with ONNX semantics on ranked, static
// tensors of f32. The importer produces it; graph canonicalization rewrites it
// into the normal form that ONNX-to-Spatial lowering expects.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_DIALECT_ONNX_ONNXOPS_TD
#define PIMC_DIALECT_ONNX_ONNXOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Onnx_Dialect : Dialect {
  let name = "onnx";
  let cppNamespace = "::pimc::onnx";
  let summary = "ONNX operators with ONNX semantics";
  let hasConstantMaterializer = 1;
}

class Onnx_Op<string mnemonic, list<Trait> traits = []>
    : Op<Onnx_Dialect, mnemonic, !listconcat(traits, [Pure])>;

def Onnx_F32Tensor : RankedTensorOf<[F32]>;
def Onnx_I64Tensor : RankedTensorOf<[I64]>;

def Onnx_ConstantOp : Onnx_Op<"Constant", [ConstantLike]> {
  let summary = "a constant tensor (an ONNX initializer or Constant node)";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "attr-dict $value `:` type($output)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Onnx_GemmOp : Onnx_Op<"Gemm"> {
  let summary = "Y = alpha * op(A) * op(B) + beta * C";
  let arguments = (ins Onnx_F32Tensor:$A, Onnx_F32Tensor:$B,
                       Optional<Onnx_F32Tensor>:$C,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.0">:$beta,
                       DefaultValuedAttr<I64Attr, "0">:$transA,
                       DefaultValuedAttr<I64Attr, "0">:$transB);
  let results = (outs Onnx_F32Tensor:$Y);
  let assemblyFormat = [{
    $A `,` $B (`,` $C^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Onnx_MatMulOp : Onnx_Op<"MatMul"> {
  let summary = "matrix product with numpy broadcasting of batch dimensions";
  let arguments = (ins Onnx_F32Tensor:$A, Onnx_F32Tensor:$B);
  let results = (outs Onnx_F32Tensor:$Y);
  let assemblyFormat = "$A `,` $B attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

class Onnx_BinaryOp<string mnemonic, string what>
    : Onnx_Op<mnemonic> {
  let summary = what # " with numpy broadcasting";
  let arguments = (ins Onnx_F32Tensor:$A, Onnx_F32Tensor:$B);
  let results = (outs Onnx_F32Tensor:$C);
  let assemblyFormat = "$A `,` $B attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Onnx_AddOp : Onnx_BinaryOp<"Add", "element-wise sum">;
def Onnx_SubOp : Onnx_BinaryOp<"Sub", "element-wise difference">;
def Onnx_MulOp : Onnx_BinaryOp<"Mul", "element-wise product">;
def Onnx_DivOp : Onnx_BinaryOp<"Div", "element-wise quotient">;
def Onnx_MaxOp : Onnx_BinaryOp<"Max", "element-wise maximum">;

class Onnx_UnaryOp<string mnemonic, string what>
    : Onnx_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = what;
  let arguments = (ins Onnx_F32Tensor:$X);
  let results = (outs Onnx_F32Tensor:$Y);
  let assemblyFormat = "$X attr-dict `:` type($X)";
}

def Onnx_ReluOp : Onnx_UnaryOp<"Relu", "max(x, 0)">;
def Onnx_SigmoidOp : Onnx_UnaryOp<"Sigmoid", "1 / (1 + exp(-x))">;
def Onnx_TanhOp : Onnx_UnaryOp<"Tanh", "hyperbolic tangent">;
def Onnx_IdentityOp : Onnx_UnaryOp<"Identity", "the input itself"> {
  let hasFolder = 1;
}

def Onnx_LeakyReluOp : Onnx_Op<"LeakyRelu", [SameOperandsAndResultType]> {
  let summary = "x for x >= 0, alpha * x otherwise";
  let arguments = (ins Onnx_F32Tensor:$X,
                       DefaultValuedAttr<F32Attr, "0.01">:$alpha);
  let results = (outs Onnx_F32Tensor:$Y);
  let assemblyFormat = "$X attr-dict `:` type($X)";
}

def Onnx_ClipOp : Onnx_Op<"Clip", [AttrSizedOperandSegments]> {
  let summary = "min(max(x, min), max) with optional scalar bounds";
  let arguments = (ins Onnx_F32Tensor:$input, Optional<Onnx_F32Tensor>:$min,
                       Optional<Onnx_F32Tensor>:$max);
  let results = (outs Onnx_F32Tensor:$output);
  let assemblyFormat = [{
    $input (`min` $min^ `:` type($min))? (`max` $max^ `:` type($max))? attr-dict
    `:` type($input) `->` type($output)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Convolution and pooling. `channels_last` marks the form canonicalization
// makes: X is [N, D1, ..., Dn, C] and Y [N, O1, ..., On, OC] instead of ONNX's
// [N, C, D1, ..., Dn]; the weights keep their ONNX layout [OC, C/group, K1,
// ..., Kn]. Attribute lists cover the n spatial dimensions (pads: the n
// begins, then the n ends).
//===----------------------------------------------------------------------===//

defvar Onnx_WindowAttrs = (ins OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                               OptionalAttr<DenseI64ArrayAttr>:$strides,
                               OptionalAttr<DenseI64ArrayAttr>:$pads,
                               OptionalAttr<DenseI64ArrayAttr>:$dilations,
                               DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                               UnitAttr:$channels_last);

def Onnx_ConvOp : Onnx_Op<"Conv"> {
  let summary = "N-D convolution with groups, strides, pads and dilations";
  let arguments = !con((ins Onnx_F32Tensor:$X, Onnx_F32Tensor:$W,
                            Optional<Onnx_F32Tensor>:$B,
                            DefaultValuedAttr<I64Attr, "1">:$group),
                       Onnx_WindowAttrs);
  let results = (outs Onnx_F32Tensor:$Y);
  let assemblyFormat = [{
    $X `,` $W (`,` $B^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Onnx_ConvTransposeOp : Onnx_Op<"ConvTranspose"> {
  let summary = "N-D transposed convolution with groups, strides, pads, dilations "
                "and output padding";
  let description = [{
    W is [C, M / group, K...]. With output_shape or auto_pad SAME_*, the
    padding follows from the output sizes (see ref::resolveConvTranspose).
  }];
  let arguments = !con((ins Onnx_F32Tensor:$X, Onnx_F32Tensor:$W,
                            Optional<Onnx_F32Tensor>:$B,
                            DefaultValuedAttr<I64Attr, "1">:$group,
                            OptionalAttr<DenseI64ArrayAttr>:$output_padding,
                            OptionalAttr<DenseI64ArrayAttr>:$output_shape),
                       Onnx_WindowAttrs);
  let results = (outs Onnx_F32Tensor:$Y);
  let assemblyFormat = [{
    $X `,` $W (`,` $B^)? attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The resolved window (pads from output_shape and auto_pad).
    llvm::Expected<pimc::ref::ConvTransposeAttrs> resolved();
  }];
  let hasVerifier = 1;
}

def Onnx_MaxPoolOp : Onnx_Op<"MaxPool"> {
  let summary = "maximum over windows";
  let arguments = !con((ins Onnx_F32Tensor:$X,
                            DefaultValuedAttr<I64Attr, "0">:$ceil_mode),
                       Onnx_WindowAttrs);
  let results = (outs Onnx_F32Tensor:$Y);
  let assemblyFormat = "$X attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Onnx_AveragePoolOp : Onnx_Op<"AveragePool"> {
  let summary = "average over windows";
  let arguments = !con((ins Onnx_F32Tensor:$X,
                            DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                            DefaultValuedAttr<I64Attr, "0">:$count_include_pad),
                       Onnx_WindowAttrs);
  let results = (outs Onnx_F32Tensor:$Y);
  let assemblyFormat = "$X attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

class Onnx_GlobalPoolOp<string mnemonic, string what> : Onnx_Op<mnemonic> {
  let summary = what # " over all spatial positions";
  let arguments = (ins Onnx_F32Tensor:$X, UnitAttr:$channels_last);
  let results = (outs Onnx_F32Tensor:$Y);
  let assemblyFormat = "$X attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Onnx_GlobalAveragePoolOp : Onnx_GlobalPoolOp<"GlobalAveragePool", "average">;
def Onnx_GlobalMaxPoolOp : Onnx_GlobalPoolOp<"GlobalMaxPool", "maximum">;

def Onnx_BatchNormalizationOp : Onnx_Op<"BatchNormalization"> {
  let summary = "inference batch normalization over dimension 1";
  let arguments = (ins Onnx_F32Tensor:$X, Onnx_F32Tensor:$scale,
                       Onnx_F32Tensor:$B, Onnx_F32Tensor:$input_mean,
                       Onnx_F32Tensor:$input_var,
                       DefaultValuedAttr<F32Attr, "1e-05">:$epsilon);
  let results = (outs Onnx_F32Tensor:$Y);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Onnx_ConcatOp : Onnx_Op<"Concat"> {
  let summary = "concatenation along `axis`";
  let arguments = (ins Variadic<Onnx_F32Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Onnx_F32Tensor:$concat_result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Onnx_PadOp : Onnx_Op<"Pad"> {
  let summary = "padding with a constant (or the edge, or a reflection)";
  let arguments = (ins Onnx_F32Tensor:$data, Onnx_I64Tensor:$pads,
                       Optional<Onnx_F32Tensor>:$constant_value,
                       DefaultValuedAttr<StrAttr, "\"constant\"">:$mode);
  let results = (outs Onnx_F32Tensor:$output);
  let assemblyFormat = [{
    $data `,` $pads (`,` $constant_value^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Onnx_FlattenOp : Onnx_Op<"Flatten"> {
  let summary = "reshape to 2-D, splitting the dimensions at axis";
  let arguments = (ins Onnx_F32Tensor:$input,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Onnx_F32Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Onnx_ReshapeOp : Onnx_Op<"Reshape"> {
  let summary = "reshape to the shape given by a constant i64 tensor";
  let arguments = (ins Onnx_F32Tensor:$data, Onnx_I64Tensor:$shape,
                       DefaultValuedAttr<I64Attr, "0">:$allowzero);
  let results = (outs Onnx_F32Tensor:$reshaped);
  let assemblyFormat = "$data `,` $shape attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Onnx_TransposeOp : Onnx_Op<"Transpose"> {
  let summary = "permute the dimensions";
  let arguments = (ins Onnx_F32Tensor:$data, DenseI64ArrayAttr:$perm);
  let results = (outs Onnx_F32Tensor:$transposed);
  let assemblyFormat = "$data attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Onnx_SliceOp : Onnx_Op<"Slice", [AttrSizedOperandSegments]> {
  let summary = "the elements from starts to ends by steps along axes";
  let description = [{
    ONNX Slice (opset 10 and later; the importer turns the attributes of
    earlier opsets into these operands). Negative starts and ends count from
    the end of their axis, both are clamped to it, and a negative step walks
    the axis backwards. Axes default to the first len(starts) ones, steps to 1.
  }];
  let arguments = (ins Onnx_F32Tensor:$data, Onnx_I64Tensor:$starts,
                       Onnx_I64Tensor:$ends, Optional<Onnx_I64Tensor>:$axes,
                       Optional<Onnx_I64Tensor>:$steps);
  let results = (outs Onnx_F32Tensor:$output);
  let assemblyFormat = [{
    $data `,` $starts `,` $ends (`axes` $axes^)? (`steps` $steps^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The positions the slice reads along each dimension of its data
    /// (ref::Positions), when its bounds are constants and valid.
    std::optional<std::vector<std::vector<int64_t>>> getPositions();
  }];
  let hasVerifier = 1;
}

def Onnx_SplitOp : Onnx_Op<"Split"> {
  let summary = "consecutive parts of the input along `axis`";
  let description = [{
    ONNX Split: the parts' lengths are `split` when it is given (opset 13 and
    later; the importer turns the attribute of earlier opsets into it) and
    equal parts otherwise (the last one shorter, as opset 18's num_outputs).
    The result types hold the lengths either way.
  }];
  let arguments = (ins Onnx_F32Tensor:$input, Optional<Onnx_I64Tensor>:$split,
                       I64Attr:$axis);
  let results = (outs Variadic<Onnx_F32Tensor>:$outputs);
  let assemblyFormat = [{
    $input (`,` $split^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // PIMC_DIALECT_ONNX_ONNXOPS_TD
