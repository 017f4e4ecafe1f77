//===- Passes.td - dialect conversions ----------------------*- tablegen -*-===//
#ifndef PIMC_CONVERSION_PASSES_TD
#define PIMC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def OnnxPlanWindows : Pass<"onnx-plan-windows", "::mlir::ModuleOp"> {
  let summary = "Stage 1b: plan the bands of every convolution and pooling";
  let description = [{
    Decides how many bands of output rows (or of parts of rows) each
    convolution and pooling is cut into, every band with its own copy of the
    weights, from the architecture and the cost model (pimc::plan::planBands
    on the layers' shapes), and writes the plan as a #spat.bands on each of
    them and a #spat.band_plan on the module, which convert-onnx-to-spatial
    reads.
  }];
  let options = [
    Option<"throughput", "throughput", "bool", /*default=*/"false",
           "programs that loop: the cores go to the slowest layer, a band at "
           "a time (else the crossbars to the copies that shorten one "
           "inference most)">,
    Option<"copyBudget", "copy-budget", "double", /*default=*/"0.9",
           "the share of the chip's crossbars weights and their copies may take">,
  ];
  let dependentDialects = ["::pimc::spat::SpatDialect"];
}

def ConvertOnnxToSpatial : Pass<"convert-onnx-to-spatial", "::mlir::ModuleOp"> {
  let summary = "Stage 2: ONNX operators to spatial computes";
  let description = [{
    One pattern per operator; convolutions and pooling are cut into the
    bands onnx-plan-windows planned. A weight matrix is cut into tiles of at most
    one crossbar's rows and one array group's columns; every tile is owned by
    a compute that multiplies its slice of the input, and the partial sums of
    a column block are reduced (with the bias) by one more compute. Rows of a
    batch and rows of element-wise work are the lanes of one
    spat.compute_batch. Constants become spat.global symbols.
  }];
  let options = [
    Option<"throughput", "throughput", "bool", /*default=*/"false",
           "programs that loop: a band's row tiles stay in one compute (the "
           "round is bound by all the work and transfers, not by one band)">,
    Option<"evenSplits", "even-splits", "bool", /*default=*/"false",
           "bands of whole rows share a layer's rows out evenly (as many "
           "bands, none longer) rather than leaving a short last band, and "
           "the computes of a copy of weights larger than a core its row "
           "tiles">,
    Option<"interleaveRows", "interleave-rows", "bool", /*default=*/"true",
           "one inference: the rows of a layer go to its copies of the "
           "weights in turn (row r to copy r mod copies), not in runs of "
           "consecutive rows, so that the next layer has its window rows "
           "early">,
  ];
  let dependentDialects = ["::pimc::spat::SpatDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def ConvertSpatialToPim : Pass<"convert-spatial-to-pim", "::mlir::ModuleOp"> {
  let summary = "Stage 7: core programs to pim operations on tensors";
  let description = [{
    Every spat.core becomes a pim.core whose array groups are the weight
    tiles of its computes; compute bodies are inlined (lanes as scf.for
    loops over the batch), each spat operation becomes the pim operation of
    its instruction class in destination-passing style.
  }];
  let dependentDialects = ["::pimc::pim::PimDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // PIMC_CONVERSION_PASSES_TD
