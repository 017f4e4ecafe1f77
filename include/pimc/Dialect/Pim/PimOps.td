//===- PimOps.td - the pim dialect --------------------------*- tablegen -*-===//
//
// One operation per operation class of the pimsim-nn instruction set, in
// destination-passing style so that they work on tensors (before
// bufferization) and on memrefs of a core's local memory (after it). Lanes of
// identical work stay compressed as scf.for loops until code generation.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_DIALECT_PIM_PIMOPS_TD
#define PIMC_DIALECT_PIM_PIMOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"

def Pim_Dialect : Dialect {
  let name = "pim";
  let cppNamespace = "::pimc::pim";
  let summary = "the pimsim-nn instruction set";
  let useDefaultAttributePrinterParser = 1;
  let discardableAttrs = (ins
    // On the module (pimc-set-arch): the chip every pass compiles for.
    "::pimc::pim::ArchAttr":$arch,
    // Memory planning's hand-off to code generation: the bytes of a core's
    // local memory its buffers take.
    "::mlir::IntegerAttr":$memory_bytes
  );
  let hasOperationAttrVerify = 1;
}

def Pim_ArchAttr : AttrDef<Pim_Dialect, "Arch"> {
  let mnemonic = "arch";
  let summary = "a pimsim-nn architecture, as the texts it is parsed from";
  let description = [{
    The architecture file `name` (as it was named when loaded), its JSON
    text `json` and the text of the network file it names, `network`: what
    the passes parse the architecture from (pimc::archOf), without reading
    a file. The module carries it as `pim.arch`; a module without one is
    for the built-in chip-144.
  }];
  let parameters = (ins StringRefParameter<"the architecture file">:$name,
                        StringRefParameter<"the architecture JSON">:$json,
                        StringRefParameter<"the network file's JSON">:$network);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Pim_GroupAttr : AttrDef<Pim_Dialect, "Group"> {
  let mnemonic = "group";
  let summary = "an array group: crossbars programmed with a weight window";
  let description = [{
    The [rows, cols] window of the 2-D pim.global `weights` starting at
    [row, col]; the group has as many crossbars as it takes to hold cols
    outputs.
  }];
  let parameters = (ins "::mlir::FlatSymbolRefAttr":$weights,
                        "int64_t":$row, "int64_t":$col,
                        "int64_t":$rows, "int64_t":$cols);
  let assemblyFormat = [{
    `<` $weights `[` $row `,` $col `]` `` `,` `[` $rows `,` $cols `]` `>`
  }];
}

def Pim_GroupArrayAttr : TypedArrayAttrBase<Pim_GroupAttr, "array groups">;

def Pim_GlobalKind : I32EnumAttr<"GlobalKind", "what a global tensor holds", [
    I32EnumAttrCase<"constant", 0>, I32EnumAttrCase<"input", 1>,
    I32EnumAttrCase<"output", 2>]> {
  let cppNamespace = "::pimc::pim";
}

def Pim_GlobalOp : Op<Pim_Dialect, "global", [Symbol]> {
  let summary = "a tensor in global memory, or a crossbar weight matrix";
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<AnyRankedTensor>:$type,
                       Pim_GlobalKind:$kind,
                       OptionalAttr<ElementsAttr>:$value,
                       OptionalAttr<I64Attr>:$index,
                       OptionalAttr<StrAttr>:$io_name);
  let assemblyFormat = "$kind $sym_name attr-dict `:` $type (`=` $value^)?";
  let hasVerifier = 1;
}

def Pim_CoreOp : Op<Pim_Dialect, "core", [
    IsolatedFromAbove, SingleBlock, NoTerminator]> {
  let summary = "the program of one core and its array groups";
  let arguments = (ins I64Attr:$id,
                       DefaultValuedAttr<Pim_GroupArrayAttr, "{}">:$groups);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$id (`groups` $groups^)? attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def Pim_AllocOp : Op<Pim_Dialect, "alloc"> {
  let summary = "a buffer in the core's local memory";
  let description = [{
    Liveness planning sets `address`, the byte offset of the buffer in the
    local memory of the enclosing core.
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$address);
  let results = (outs Res<AnyStaticShapeMemRef, "", [MemAlloc]>:$memref);
  let assemblyFormat = "attr-dict `:` type($memref)";
}

def Pim_Buffer : AnyTypeOf<[RankedTensorOf<[F32]>, MemRefOf<[F32]>]>;

class Pim_Op<string mnemonic, list<Trait> traits = []>
    : Op<Pim_Dialect, mnemonic, traits>;

// An op that writes its result into `out`: on tensors it returns the updated
// tensor, on memrefs it returns nothing.
class Pim_DpsOp<string mnemonic, list<Trait> traits = []>
    : Pim_Op<mnemonic, !listconcat(traits, [
        DestinationStyleOpInterface,
        DeclareOpInterfaceMethods<MemoryEffectsOpInterface>])> {
  let results = (outs Optional<RankedTensorOf<[F32]>>:$result);
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() { return getOutMutable(); }
  }];
  let hasVerifier = 1;
}

def Pim_MVMOp : Pim_DpsOp<"mvm"> {
  let summary = "mvmul: multiply a vector by array group `group`";
  let arguments = (ins Pim_Buffer:$input, Pim_Buffer:$out, I64Attr:$group);
  let assemblyFormat = [{
    $input `group` $group `into` $out attr-dict `:` type($input) `into` type($out)
    (`->` type($result)^)?
  }];
}

class Pim_VectorBinaryOp<string mnemonic, string what> : Pim_DpsOp<mnemonic> {
  let summary = mnemonic # ": element-wise " # what;
  let arguments = (ins Pim_Buffer:$lhs, Pim_Buffer:$rhs, Pim_Buffer:$out);
  let assemblyFormat = [{
    $lhs `,` $rhs `into` $out attr-dict `:` type($lhs) `,` type($rhs) `into` type($out)
    (`->` type($result)^)?
  }];
}

def Pim_VVAddOp : Pim_VectorBinaryOp<"vvadd", "sum">;
def Pim_VVSubOp : Pim_VectorBinaryOp<"vvsub", "difference">;
def Pim_VVMulOp : Pim_VectorBinaryOp<"vvmul", "product">;
def Pim_VVMaxOp : Pim_VectorBinaryOp<"vvmax", "maximum">;

class Pim_VectorUnaryOp<string mnemonic, string what> : Pim_DpsOp<mnemonic> {
  let summary = mnemonic # ": " # what;
  let arguments = (ins Pim_Buffer:$input, Pim_Buffer:$out);
  let assemblyFormat = [{
    $input `into` $out attr-dict `:` type($input) `into` type($out)
    (`->` type($result)^)?
  }];
}

def Pim_VReluOp : Pim_VectorUnaryOp<"vrelu", "max(x, 0)">;
def Pim_VSigmOp : Pim_VectorUnaryOp<"vsigm", "sigmoid">;
def Pim_VTanhOp : Pim_VectorUnaryOp<"vtanh", "tanh">;

class Pim_VectorClampOp<string mnemonic, string what> : Pim_DpsOp<mnemonic> {
  let summary = mnemonic # ": clamp to " # what # " the one-element `bound`";
  let arguments = (ins Pim_Buffer:$input, Pim_Buffer:$bound, Pim_Buffer:$out);
  let assemblyFormat = [{
    $input `,` $bound `into` $out attr-dict `:` type($input) `,` type($bound) `into`
    type($out) (`->` type($result)^)?
  }];
}

def Pim_VRSLOp : Pim_VectorClampOp<"vrsl", "at least">;
def Pim_VRSUOp : Pim_VectorClampOp<"vrsu", "at most">;

def Pim_LLDIOp : Pim_DpsOp<"lldi"> {
  let summary = "lldi: fill local memory with the integer `value`";
  let arguments = (ins I64Attr:$value, Pim_Buffer:$out);
  let assemblyFormat = [{
    $value `into` $out attr-dict `:` type($out) (`->` type($result)^)?
  }];
}

def Pim_VMVOp : Pim_DpsOp<"vmv"> {
  let summary = "vmv: gather out[i] = input[i * stride]";
  let arguments = (ins Pim_Buffer:$input, Pim_Buffer:$out, I64Attr:$stride);
  let assemblyFormat = [{
    $input `stride` $stride `into` $out attr-dict `:` type($input) `into` type($out)
    (`->` type($result)^)?
  }];
}

def Pim_LMVOp : Pim_DpsOp<"lmv"> {
  let summary = "lmv: copy within local memory";
  let arguments = (ins Pim_Buffer:$input, Pim_Buffer:$out);
  let assemblyFormat = [{
    $input `into` $out attr-dict `:` type($input) `into` type($out)
    (`->` type($result)^)?
  }];
}

def Pim_LoadOp : Pim_DpsOp<"ld", [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "ld: read global memory into local memory";
  let description = [{
    One ld per row of `out`: row r comes from the row-major element
    `offset + r * row_stride` of `global`.
  }];
  let arguments = (ins FlatSymbolRefAttr:$global, Index:$offset,
                       I64Attr:$row_stride, Pim_Buffer:$out);
  let assemblyFormat = [{
    $global `[` $offset `]` `row_stride` $row_stride `into` $out attr-dict
    `:` type($out) (`->` type($result)^)?
  }];
}

def Pim_StoreOp : Pim_Op<"st", [DeclareOpInterfaceMethods<SymbolUserOpInterface>,
                                DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "st: write local memory into global memory";
  let arguments = (ins Pim_Buffer:$input, FlatSymbolRefAttr:$global,
                       Index:$offset, I64Attr:$row_stride);
  let assemblyFormat = [{
    $input `,` $global `[` $offset `]` `row_stride` $row_stride attr-dict `:` type($input)
  }];
}

def Pim_SendOp : Pim_Op<"send", [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "send: one message per row to core `target`";
  let arguments = (ins Pim_Buffer:$input, I64Attr:$target);
  let assemblyFormat = "$input `to` $target attr-dict `:` type($input)";
}

def Pim_RecvOp : Pim_DpsOp<"recv"> {
  let summary = "recv: one message per row from core `source`";
  let arguments = (ins I64Attr:$source, Pim_Buffer:$out);
  let assemblyFormat = [{
    `from` $source `into` $out attr-dict `:` type($out) (`->` type($result)^)?
  }];
}

def Pim_SyncOp : Pim_Op<"sync"> {
  let summary = "sync: add one to event register `event` of core `target`";
  let arguments = (ins I64Attr:$target, I64Attr:$event);
  let assemblyFormat = "$target `event` $event attr-dict";
}

def Pim_WaitOp : Pim_Op<"wait"> {
  let summary = "wait: block until event register `event` reaches `count`";
  let arguments = (ins I64Attr:$event, I64Attr:$count);
  let assemblyFormat = "$event `count` $count attr-dict";
}

#endif // PIMC_DIALECT_PIM_PIMOPS_TD
