//===- SpatialOps.td - the spat dialect ---------------------*- tablegen -*-===//
//
// Spatial dataflow: the work of a model as computes that own crossbar weight
// tiles. N identical lanes of work (rows of a batch, output pixels, replicas)
// are one spat.compute_batch with a lane count. Values between computes are
// explicit SSA dataflow; after scheduling, each core gets a spat.core program
// in which cross-core edges are channel send/recv pairs.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_DIALECT_SPATIAL_SPATIALOPS_TD
#define PIMC_DIALECT_SPATIAL_SPATIALOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def Spat_Dialect : Dialect {
  let name = "spat";
  let cppNamespace = "::pimc::spat";
  let summary = "spatial dataflow of crossbar computes";
  let useDefaultAttributePrinterParser = 1;
  // What one stage leaves on computes (and the module) for the next.
  let discardableAttrs = (ins
    // On computes that use one copy of their weights, one after another
    // (ONNX-to-Spatial): the same value places them on one core, where
    // their tiles take the crossbars once.
    "::mlir::IntegerAttr":$copy,
    // On computes (ONNX-to-Spatial): the model node they compute part of,
    // by its place in the model; a merged compute is its consumer's. The
    // computes of one node with weights are one pipeline stage when the
    // programs loop (PEFT).
    "::mlir::IntegerAttr":$layer,
    // The schedule (PEFT): a compute's core, and when it starts and
    // finishes there (ns); the module's makespan.
    "::mlir::IntegerAttr":$core,
    "::mlir::FloatAttr":$start,
    "::mlir::FloatAttr":$finish,
    "::mlir::FloatAttr":$makespan
  );
  let hasOperationAttrVerify = 1;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Spat_TileAttr : AttrDef<Spat_Dialect, "Tile"> {
  let mnemonic = "tile";
  let summary = "a rows x cols window of a weight matrix held by crossbars";
  let description = [{
    The window starts at [row, col] of the 2-D spat.global `weights`. The
    rows are the crossbar inputs (at most the crossbar height) and the cols
    its outputs; one tile is one array group of ceil(cols / outputs per
    crossbar) crossbars.
  }];
  let parameters = (ins "::mlir::FlatSymbolRefAttr":$weights,
                        "int64_t":$row, "int64_t":$col,
                        "int64_t":$rows, "int64_t":$cols);
  let assemblyFormat = [{
    `<` $weights `[` $row `,` $col `]` `` `,` `[` $rows `,` $cols `]` `>`
  }];
}

def Spat_TileArrayAttr : TypedArrayAttrBase<Spat_TileAttr, "array of tiles">;

def Spat_BandsAttr : AttrDef<Spat_Dialect, "Bands"> {
  let mnemonic = "bands";
  let summary = "the bands a convolution or pooling is planned to be cut into";
  let description = [{
    Written by onnx-plan-windows on each convolution and pooling (as
    `spat.bands`), read by ONNX-to-Spatial: `count` bands of output rows, or
    of parts of rows, each with its own copy of the weights; a band takes
    `ns` nanoseconds (as the cost model estimates it).
  }];
  let parameters = (ins "int64_t":$count, "::mlir::FloatAttr":$ns);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Spat_BandPlanAttr : AttrDef<Spat_Dialect, "BandPlan"> {
  let mnemonic = "band_plan";
  let summary = "what the band plan of a module settled for all its layers";
  let description = [{
    Written by onnx-plan-windows on the module (as `spat.band_plan`):
    `slowest_ns` is the time of the slowest band of a layer with weights (0
    when there is none), by which ONNX-to-Spatial cuts work without weights.
  }];
  let parameters = (ins "::mlir::FloatAttr":$slowest_ns);
  let assemblyFormat = "`<` struct(params) `>`";
}

//===----------------------------------------------------------------------===//
// Interfaces
//===----------------------------------------------------------------------===//

def Spat_ComputeOpInterface : OpInterface<"ComputeOpInterface"> {
  let cppNamespace = "::pimc::spat";
  let description = [{
    A unit of crossbar and vector work that runs on one core. Its lanes are
    identical instances over different data: lane inputs are indexed by the
    lane along their first dimension, shared inputs are seen whole by every
    lane, and every result stacks the lanes' yields along a new first
    dimension (only when there is more than one lane).
  }];
  let methods = [
    InterfaceMethod<"number of identical lanes", "int64_t", "getLaneCount">,
    InterfaceMethod<"inputs indexed by lane", "::mlir::OperandRange",
                    "getLaneInputs">,
    InterfaceMethod<"inputs every lane reads whole", "::mlir::OperandRange",
                    "getSharedInputs">,
    InterfaceMethod<"weight tiles the compute owns", "::mlir::ArrayAttr",
                    "getTiles">,
    InterfaceMethod<"the per-lane body", "::mlir::Block &", "getBodyBlock",
                    (ins), [{ return $_op.getBody().front(); }]>,
  ];
}

//===----------------------------------------------------------------------===//
// Module-level data
//===----------------------------------------------------------------------===//

def Spat_GlobalKind : I32EnumAttr<"GlobalKind", "what a global tensor holds", [
    I32EnumAttrCase<"constant", 0>, I32EnumAttrCase<"input", 1>,
    I32EnumAttrCase<"output", 2>]> {
  let cppNamespace = "::pimc::spat";
}

def Spat_GlobalOp : Op<Spat_Dialect, "global", [Symbol]> {
  let summary = "a tensor in global memory or a weight matrix";
  let description = [{
    `kind` says what the tensor is: constant (initialized data, either
    programmed into crossbars through spat.tile or read from global memory),
    input or output (the model's I/O; `index` is its position).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<AnyRankedTensor>:$type,
                       Spat_GlobalKind:$kind,
                       OptionalAttr<ElementsAttr>:$value,
                       OptionalAttr<I64Attr>:$index,
                       OptionalAttr<StrAttr>:$io_name);
  let assemblyFormat = [{
    $kind $sym_name attr-dict `:` $type (`=` $value^)?
  }];
  let hasVerifier = 1;
}

def Spat_GetGlobalOp : Op<Spat_Dialect, "get_global",
    [Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "the value of a global tensor (it stays in global memory)";
  let arguments = (ins FlatSymbolRefAttr:$name);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Computes
//===----------------------------------------------------------------------===//

def Spat_ComputeOp : Op<Spat_Dialect, "compute", [
    IsolatedFromAbove, SingleBlockImplicitTerminator<"YieldOp">,
    DeclareOpInterfaceMethods<Spat_ComputeOpInterface>]> {
  let summary = "one instance of work on one core";
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs,
                       DefaultValuedAttr<Spat_TileArrayAttr, "{}">:$tiles);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`(` $inputs^ `:` type($inputs) `)`)? (`tiles` $tiles^)? attr-dict-with-keyword
    $body (`->` type($results)^)?
  }];
  let hasVerifier = 1;
}

def Spat_ComputeBatchOp : Op<Spat_Dialect, "compute_batch", [
    IsolatedFromAbove, SingleBlockImplicitTerminator<"YieldOp">,
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<Spat_ComputeOpInterface>]> {
  let summary = "N identical instances of work that differ only in data";
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<2>]>:$lanes,
                       Variadic<AnyRankedTensor>:$lane_inputs,
                       Variadic<AnyRankedTensor>:$shared_inputs,
                       DefaultValuedAttr<Spat_TileArrayAttr, "{}">:$tiles);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `lanes` `(` $lanes `)`
    (`lane` `(` $lane_inputs^ `:` type($lane_inputs) `)`)?
    (`shared` `(` $shared_inputs^ `:` type($shared_inputs) `)`)?
    (`tiles` $tiles^)? attr-dict-with-keyword $body (`->` type($results)^)?
  }];
  let hasVerifier = 1;
}

def Spat_YieldOp : Op<Spat_Dialect, "yield",
    [Pure, Terminator, ReturnLike,
     ParentOneOf<["ComputeOp", "ComputeBatchOp"]>]> {
  let summary = "the per-lane results of a compute";
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let builders = [OpBuilder<(ins), [{ }]>];
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

//===----------------------------------------------------------------------===//
// Body operations (1-D vectors of one lane)
//===----------------------------------------------------------------------===//

def Spat_Vector : 1DTensorOf<[F32]>;

def Spat_MVMOp : Op<Spat_Dialect, "mvm", [Pure]> {
  let summary = "vector times the weight tile `tile` of the enclosing compute";
  let arguments = (ins Spat_Vector:$input, I64Attr:$tile);
  let results = (outs Spat_Vector:$output);
  let assemblyFormat = "$input `tile` $tile attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

class Spat_BinaryOp<string mnemonic, string what>
    : Op<Spat_Dialect, mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = "element-wise " # what;
  let arguments = (ins Spat_Vector:$lhs, Spat_Vector:$rhs);
  let results = (outs Spat_Vector:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def Spat_AddOp : Spat_BinaryOp<"add", "sum">;
def Spat_SubOp : Spat_BinaryOp<"sub", "difference">;
def Spat_MulOp : Spat_BinaryOp<"mul", "product">;
def Spat_MaxOp : Spat_BinaryOp<"max", "maximum">;

class Spat_UnaryOp<string mnemonic, string what>
    : Op<Spat_Dialect, mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = what;
  let arguments = (ins Spat_Vector:$input);
  let results = (outs Spat_Vector:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Spat_ReluOp : Spat_UnaryOp<"relu", "max(x, 0)">;
def Spat_SigmoidOp : Spat_UnaryOp<"sigmoid", "1 / (1 + exp(-x))">;
def Spat_TanhOp : Spat_UnaryOp<"tanh", "hyperbolic tangent">;

def Spat_GatherOp : Op<Spat_Dialect, "gather", [Pure]> {
  let summary = "a strided gather whose start moves with the lane";
  let description = [{
    result[i] = source[offset + sum_k digit_k * lane_strides[k] + i * stride]
    for i in [0, count), where `source` is read as its row-major elements and
    digit_k are the digits of the enclosing compute's lane index in the
    mixed radix `lane_dims` (the last digit varies fastest; the product of
    `lane_dims` is the lane count, and both are empty in a spat.compute).
  }];
  let arguments = (ins AnyRankedTensor:$source, I64Attr:$offset,
                       DenseI64ArrayAttr:$lane_dims,
                       DenseI64ArrayAttr:$lane_strides, I64Attr:$stride);
  let results = (outs Spat_Vector:$result);
  let assemblyFormat = [{
    $source `[` $offset `+` `lanes` $lane_dims `*` $lane_strides `]` `stride` $stride
    attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Spat_LaneSliceOp : Op<Spat_Dialect, "lane_slice", [Pure]> {
  let summary = "a contiguous window whose start moves with the lane";
  let description = [{
    result[i] = source[offset + sum_k digit_k * lane_strides[k] + i] for i in
    [0, count), with the lane's digits as for spat.gather. It reads the
    source in place: a convolution's input pixels, a pooling window.
  }];
  let arguments = (ins AnyRankedTensor:$source, I64Attr:$offset,
                       DenseI64ArrayAttr:$lane_dims,
                       DenseI64ArrayAttr:$lane_strides);
  let results = (outs Spat_Vector:$result);
  let assemblyFormat = [{
    $source `[` $offset `+` `lanes` $lane_dims `*` $lane_strides `]` attr-dict
    `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Spat_ClampMinOp : Op<Spat_Dialect, "clamp_min",
    [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "max(x, bound) with a one-element bound";
  let arguments = (ins Spat_Vector:$input, 1DTensorOf<[F32]>:$bound);
  let results = (outs Spat_Vector:$result);
  let assemblyFormat = "$input `,` $bound attr-dict `:` type($input) `,` type($bound)";
  let hasVerifier = 1;
}

def Spat_ClampMaxOp : Op<Spat_Dialect, "clamp_max",
    [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "min(x, bound) with a one-element bound";
  let arguments = (ins Spat_Vector:$input, 1DTensorOf<[F32]>:$bound);
  let results = (outs Spat_Vector:$result);
  let assemblyFormat = "$input `,` $bound attr-dict `:` type($input) `,` type($bound)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Dataflow views
//===----------------------------------------------------------------------===//

def Spat_PadOp : Op<Spat_Dialect, "pad", [Pure]> {
  let summary = "the source surrounded by a constant";
  let arguments = (ins AnyRankedTensor:$source, DenseI64ArrayAttr:$low,
                       DenseI64ArrayAttr:$high, F32Attr:$value);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $source `low` $low `high` $high `value` $value attr-dict `:` type($source) `to`
    type($result)
  }];
  let hasVerifier = 1;
}

def Spat_ReshapeOp : Op<Spat_Dialect, "reshape", [Pure]> {
  let summary = "the same row-major elements under another shape";
  let arguments = (ins AnyRankedTensor:$source);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Scheduled programs
//===----------------------------------------------------------------------===//

def Spat_CoreOp : Op<Spat_Dialect, "core", [
    IsolatedFromAbove, SingleBlock, NoTerminator]> {
  let summary = "the ordered program of one core";
  let arguments = (ins I64Attr:$id);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$id attr-dict-with-keyword $body";
}

def Spat_FillOp : Op<Spat_Dialect, "fill", [Pure]> {
  let summary = "a tensor of one value";
  let arguments = (ins F32Attr:$value);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
}

def Spat_LoadOp : Op<Spat_Dialect, "load", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "read row-major elements of a global tensor";
  let description = [{
    Reads the elements of the result, in row-major order, from `global`
    starting at its row-major element `offset`, each result row from
    `offset + r * row_stride` (row_stride is 0 for a 1-D result).
  }];
  let arguments = (ins FlatSymbolRefAttr:$global, I64Attr:$offset,
                       DefaultValuedAttr<I64Attr, "0">:$row_stride);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$global `[` $offset `]` attr-dict `:` type($result)";
}

def Spat_StoreOp : Op<Spat_Dialect, "store", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "write row-major elements into a global tensor";
  let arguments = (ins AnyRankedTensor:$value, FlatSymbolRefAttr:$global,
                       I64Attr:$offset,
                       DefaultValuedAttr<I64Attr, "0">:$row_stride);
  let assemblyFormat = "$value `,` $global `[` $offset `]` attr-dict `:` type($value)";
}

def Spat_SendOp : Op<Spat_Dialect, "send"> {
  let summary = "send a value on a channel to another core";
  let description = [{
    One message per row of the value (the last dimension is a message). The
    receiving core runs the spat.recv of the same channel.
  }];
  let arguments = (ins AnyRankedTensor:$value, I64Attr:$target,
                       I64Attr:$channel);
  let assemblyFormat = "$value `to` $target `channel` $channel attr-dict `:` type($value)";
}

def Spat_RecvOp : Op<Spat_Dialect, "recv"> {
  let summary = "receive a value on a channel from another core";
  let arguments = (ins I64Attr:$source, I64Attr:$channel);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "`from` $source `channel` $channel attr-dict `:` type($result)";
}

#endif // PIMC_DIALECT_SPATIAL_SPATIALOPS_TD
