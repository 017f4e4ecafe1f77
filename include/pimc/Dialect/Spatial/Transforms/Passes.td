//===- Passes.td - spat dialect passes ----------------------*- tablegen -*-===//
#ifndef PIMC_DIALECT_SPATIAL_TRANSFORMS_PASSES_TD
#define PIMC_DIALECT_SPATIAL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SpatMergeComputes : Pass<"spat-merge-computes", "::mlir::ModuleOp"> {
  let summary = "Stage 3: merge computes where no parallelism is lost";
  let description = [{
    Merges a compute into its consumer when the consumer is its only user and
    it is the consumer's only producer (a single-producer/single-consumer
    chain), the lane counts agree and the merged weight tiles still fit one
    core's crossbars. Independent work is never merged.
  }];
}

def SpatPeftSchedule : Pass<"spat-peft-schedule", "::mlir::ModuleOp"> {
  let summary = "Stage 4: PEFT list scheduling of computes onto cores";
  let description = [{
    Predict-Earliest-Finish-Time scheduling: computes are ranked by their
    optimistic cost to the end of the graph and placed, one by one, on the
    core that minimizes their earliest finish time plus that optimistic cost,
    among the cores with enough free crossbars. Costs come from the
    architecture's timing model and NoC table. Sets spat.core, spat.start and
    spat.finish on every compute and spat.makespan on the module.

    With `throughput`, the programs will loop (pimsim-nn's throughput mode),
    so a core must not hold work of both early and late layers: each layer
    with weights (with the work that follows it until the next one) is a
    stage that gets cores of its own, as many as its crossbars need and more
    in proportion to its work. The stages then run as a pipeline whose period
    is the busiest core's round. With `balance-weightless`, work without
    weights (sums of partial products, pooling) goes to the stage's core with
    the least work so far rather than the one it finishes first on: a sum
    beside a long piece of a layer makes that core the round's longest. It
    stays beside its largest input, though, while that core keeps well
    within the stage's time: it then needs no transfer, and no core has to
    gather a stage's results to hand them on.
  }];
  let options = [
    Option<"throughput", "throughput", "bool", /*default=*/"false",
           "place each layer on cores of its own (a pipeline of layers) for "
           "programs that loop">,
    Option<"balanceWeightless", "balance-weightless", "bool", /*default=*/"false",
           "with throughput: work without weights goes beside its input, or "
           "to the least loaded core of its stage">,
  ];
}

def SpatMaterializeSchedule
    : Pass<"spat-materialize-schedule", "::mlir::ModuleOp"> {
  let summary = "Stage 5: per-core programs with channels";
  let description = [{
    Replaces the dataflow function by one spat.core program per used core, its
    computes in schedule order. Model inputs and outputs become spat.global
    symbols read with spat.load and written with spat.store; every value that
    crosses cores becomes a spat.send / spat.recv pair on a fresh channel,
    carrying exactly the elements the consumer reads.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def SpatOrderCommunication : Pass<"spat-order-communication", "::mlir::ModuleOp"> {
  let summary = "Stage 6: a deadlock-free order of the rendezvous pairs";
  let description = [{
    Orders the operations of every core by simulating the cores on the
    architecture's timing model: a core that becomes free first takes a
    transfer whose peer is already waiting for it, else the most urgent
    local work that is ready, else it waits. For one inference, urgency is
    halfway between the schedule's time and the latest start that keeps the
    critical path; with `throughput` it is the schedule's time (a looping
    program's round is not one inference's critical path). Both ends of a
    channel run at one simulated time, so every core meets its channels in
    one global order and rendezvous transfers cannot deadlock; the pass
    checks this by replaying the channels. A send is thus never issued
    while its receiver is busy with other work the sender could overlap.

    With `throughput` the simulation also runs the programs as loops, each
    core starting a round when it has run the round before, and takes the
    last round's order; of these orders (1 to 6 rounds, with the schedule's
    times or halfway to the latest start as urgency), the one whose loop has
    the shortest round is kept, and so is the order of the data's flow (the
    earliest starts if each node had a core of its own). Where a channel
    still waits for a core busy with local work that does not feed it, that
    work moves after the channel while the round gets shorter; of the two
    orders so shortened, the one with the shorter round is taken. A round
    is timed with a channel's sender free once its data is read.
  }];
  let options = [
    Option<"throughput", "throughput", "bool", /*default=*/"false",
           "order by the schedule's times alone, for programs that loop">,
  ];
}

def SpatAssembleInPlace : Pass<"spat-assemble-in-place", "::mlir::ModuleOp"> {
  let summary = "Stage 6b: a core's buffers take each piece where it arrives";
  let description = [{
    A core assembles a buffer (a band's padded input) from pieces: messages
    it receives, fills, its own results, inserted one by one into an empty
    tensor. The communication order receives a piece early, often before
    the instruction that creates the buffer, and a piece that arrives
    before its buffer exists is copied into place later. Where the pieces
    of a buffer are disjoint, this pass creates the buffer at the start of
    the core's program and inserts each piece right after it is made, so
    that Spatial-to-PIM writes every piece in place. Nothing else moves.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

#endif // PIMC_DIALECT_SPATIAL_TRANSFORMS_PASSES_TD
