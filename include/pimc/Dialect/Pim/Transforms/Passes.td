//===- Passes.td - pim dialect passes -----------------------*- tablegen -*-===//
#ifndef PIMC_DIALECT_PIM_TRANSFORMS_PASSES_TD
#define PIMC_DIALECT_PIM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PimcSetArch : Pass<"pimc-set-arch", "::mlir::ModuleOp"> {
  let summary = "the chip the module is compiled for, as its pim.arch";
  let description = [{
    Loads the pimsim-nn architecture file `arch` and attaches it to the
    module as `pim.arch`: the file's text and its network file's, from
    which every pass that needs the chip parses it (pimc::archOf) without
    reading a file. With no file (the built-in chip-144), the module has no
    pim.arch. The first pass of --pimc-pipeline.
  }];
  let options = [
    Option<"archFile", "arch", "std::string", /*default=*/"\"\"",
           "pimsim-nn architecture file (empty: the built-in chip-144)">,
  ];
  let dependentDialects = ["::pimc::pim::PimDialect"];
}

def PimBufferize : Pass<"pim-bufferize", "::mlir::ModuleOp"> {
  let summary = "Stage 8: One-Shot Bufferize of the core programs";
  let description = [{
    Runs MLIR's One-Shot Bufferize on every pim.core: pim ops write their
    destination in place, allocations become pim.alloc and the copies
    bufferization cannot avoid become pim.lmv (counted as runtime copies).
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def PimPlanMemory : Pass<"pim-plan-memory", "::mlir::ModuleOp"> {
  let summary = "Stage 9: local-memory offsets by liveness";
  let description = [{
    Gives every pim.alloc of a core an address: buffers whose live ranges do
    not overlap share memory (first-fit interval allocation). Fails, naming the
    core and the buffer, when a core's buffers do not fit its local memory
    (of the module's pim.arch).
  }];
}

#endif // PIMC_DIALECT_PIM_TRANSFORMS_PASSES_TD
