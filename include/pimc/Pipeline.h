//===- Pipeline.h - the passes of a compile, as one pipeline ----*- C++ -*-===//
//
// The stages after import, from canonicalization to memory planning, with
// their options defined once: `pimc compile` runs them stage by stage (to
// time each, count its IR and retry a plan), and pimc-opt runs them whole as
// --pimc-pipeline on MLIR text that `pimc compile --emit-mlir=import` printed.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_PIPELINE_H
#define PIMC_PIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassOptions.h"

#include <chrono>

#include <string>

namespace pimc {

struct PipelineOptions : public mlir::PassPipelineOptions<PipelineOptions> {
  Option<std::string> arch{*this, "arch",
                           llvm::cl::desc("pimsim-nn architecture file (empty: the "
                                          "built-in chip-144)"),
                           llvm::cl::init("")};
  Option<bool> looping{*this, "looping",
                       llvm::cl::desc("the programs loop (throughput mode): a core "
                                      "assembles its buffers where the pieces arrive"),
                       llvm::cl::init(false)};
  Option<bool> layerStages{*this, "layer-stages",
                           llvm::cl::desc("plan a pipeline of layer stages rather "
                                          "than one inference"),
                           llvm::cl::init(false)};
  Option<bool> evenSplits{*this, "even-splits",
                          llvm::cl::desc("layer stages: bands share a layer's rows "
                                         "out evenly"),
                          llvm::cl::init(false)};
  Option<bool> balanceWeightless{*this, "balance-weightless",
                                 llvm::cl::desc("layer stages: work without weights "
                                                "goes to the least loaded core"),
                                 llvm::cl::init(false)};
  Option<bool> packPixels{*this, "pack-pixels",
                          llvm::cl::desc("convolutions compute neighbouring pixels "
                                         "with one matrix where that reads fewer "
                                         "crossbars"),
                          llvm::cl::init(true)};
  Option<double> copyBudget{*this, "copy-budget",
                            llvm::cl::desc("the share of the crossbars weights and "
                                           "their copies may take"),
                            llvm::cl::init(0.9)};
  Option<bool> assembleInPlace{*this, "assemble-in-place",
                               llvm::cl::desc("looping programs: a core assembles its "
                                              "buffers where the pieces arrive, rather "
                                              "than copying them into place"),
                               llvm::cl::init(true)};
  Option<bool> interleaveRows{*this, "interleave-rows",
                              llvm::cl::desc("one inference: a layer's rows go to its "
                                             "copies of the weights in turn"),
                              llvm::cl::init(true)};
};

/// The stages the pipeline runs, in order.
llvm::ArrayRef<llvm::StringRef> pipelineStages();

/// Adds the passes of one stage (a name of pipelineStages()) to `pm`; they
/// compile for the chip the module carries (pim.arch).
void buildStage(mlir::OpPassManager &pm, llvm::StringRef stage,
                const PipelineOptions &options);

/// Adds pimc-set-arch with the options' `arch`, then every stage, from
/// canonicalization to memory planning.
void buildPipeline(mlir::OpPassManager &pm, const PipelineOptions &options);

/// Registers buildPipeline as --pimc-pipeline.
void registerPipeline();

/// The ops in `root` (itself included) and the values they define (results
/// and block arguments).
struct IrSize {
  int64_t ops = 0, values = 0;
};
IrSize irSizeOf(mlir::Operation *root);

/// Prints, after each pass run on a module, its seconds and the ops and
/// values it left: a pass that grows the IR faster than its input shows.
/// pimc-opt's --pimc-ir-sizes.
class IrSizeInstrumentation : public mlir::PassInstrumentation {
public:
  explicit IrSizeInstrumentation(llvm::raw_ostream &os) : os(os) {}
  void runBeforePass(mlir::Pass *pass, mlir::Operation *op) override;
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override;
  void runAfterPassFailed(mlir::Pass *pass, mlir::Operation *op) override;

private:
  void print(mlir::Pass *pass, mlir::Operation *op, llvm::StringRef outcome);

  llvm::raw_ostream &os;
  std::chrono::steady_clock::time_point started;
  bool headed = false;
};

} // namespace pimc

#endif // PIMC_PIPELINE_H
