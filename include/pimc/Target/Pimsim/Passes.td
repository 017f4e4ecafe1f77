//===- Passes.td - pimsim-nn code generation ----------------*- tablegen -*-===//
#ifndef PIMC_TARGET_PIMSIM_PASSES_TD
#define PIMC_TARGET_PIMSIM_PASSES_TD

include "mlir/Pass/PassBase.td"

def PimEmitPimsim : Pass<"pim-emit-pimsim", "::mlir::ModuleOp"> {
  let summary = "Stage 10: write the pimsim-nn artifacts";
  let description = [{
    Streams the instructions of every pim.core, unrolling lanes while it
    writes, into core_<id>.pim (and core_<id>.json), and writes config.json
    with the array_group_map, the crossbar weights, the global-memory image,
    the architecture file and the manifest into `output-dir`.
  }];
  let options = [
    Option<"outputDir", "output-dir", "std::string", /*default=*/"\"\"",
           "directory for the artifacts">,
    Option<"emitJson", "emit-json", "bool", /*default=*/"false",
           "also write core_<id>.json">,
  ];
}

#endif // PIMC_TARGET_PIMSIM_PASSES_TD
