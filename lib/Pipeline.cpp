//===- Pipeline.cpp - the passes of a compile, as one pipeline ------------===//

#include "pimc/Pipeline.h"

#include "pimc/Conversion/Passes.h"
#include "pimc/Dialect/Onnx/Transforms/Passes.h"
#include "pimc/Dialect/Pim/Transforms/Passes.h"
#include "pimc/Dialect/Spatial/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Threading.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/FormatVariadic.h"

#include <mutex>
#include <vector>

using namespace mlir;

llvm::ArrayRef<llvm::StringRef> pimc::pipelineStages() {
  static const llvm::StringRef names[] = {
      "canonicalize",  "plan-windows",   "onnx-to-spatial", "merge",
      "peft",          "materialize",    "communication",   "spatial-to-pim",
      "bufferize",     "plan-memory"};
  return names;
}

void pimc::buildStage(OpPassManager &pm, llvm::StringRef stage,
                      const PipelineOptions &options) {
  bool stages = options.layerStages;
  if (stage == "canonicalize") {
    onnx::addCanonicalizationPasses(pm.nest<func::FuncOp>(), options.packPixels);
  } else if (stage == "plan-windows") {
    pm.addPass(createOnnxPlanWindows(OnnxPlanWindowsOptions{stages, options.copyBudget}));
  } else if (stage == "onnx-to-spatial") {
    pm.addPass(createConvertOnnxToSpatial(ConvertOnnxToSpatialOptions{
        stages, stages && options.evenSplits, options.interleaveRows}));
  } else if (stage == "merge") {
    pm.addPass(spat::createSpatMergeComputes());
  } else if (stage == "peft") {
    pm.addPass(spat::createSpatPeftSchedule(
        spat::SpatPeftScheduleOptions{stages, stages && options.balanceWeightless}));
  } else if (stage == "materialize") {
    pm.addPass(spat::createSpatMaterializeSchedule());
  } else if (stage == "communication") {
    pm.addPass(spat::createSpatOrderCommunication(
        spat::SpatOrderCommunicationOptions{stages}));
  } else if (stage == "spatial-to-pim") {
    // Looping programs assemble their buffers where the pieces arrive, in
    // the final order: a core's copies are part of every round. (For one
    // inference the orders, chosen with the copies counted, came out slower
    // on most benchmark models.)
    if (options.looping && options.assembleInPlace)
      pm.addPass(spat::createSpatAssembleInPlace());
    pm.addPass(createConvertSpatialToPim());
  } else if (stage == "bufferize") {
    pm.addPass(pim::createPimBufferize());
  } else if (stage == "plan-memory") {
    pm.addPass(pim::createPimPlanMemory());
  } else {
    llvm_unreachable("not a stage of the pipeline");
  }
}

void pimc::buildPipeline(OpPassManager &pm, const PipelineOptions &options) {
  // The stages read the chip from the module.
  pm.addPass(pim::createPimcSetArch(pim::PimcSetArchOptions{options.arch}));
  for (llvm::StringRef stage : pipelineStages())
    buildStage(pm, stage, options);
}

void pimc::registerPipeline() {
  PassPipelineRegistration<PipelineOptions>(
      "pimc-pipeline",
      "the stages of `pimc compile` after import, from canonicalization to "
      "memory planning (code generation is pim-emit-pimsim)",
      buildPipeline);
}

/// The ops in `root` (itself among them) and the values they define.
static void countIr(Operation *root, pimc::IrSize &size) {
  root->walk([&](Operation *op) {
    ++size.ops;
    size.values += op->getNumResults();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        size.values += block.getNumArguments();
  });
}

pimc::IrSize pimc::irSizeOf(Operation *root) {
  // The walk waits on memory more than it computes: the ops under the
  // root's (the cores, once there are cores) are counted in parallel when
  // the context is multithreaded.
  IrSize size{1, root->getNumResults()};
  std::vector<Operation *> tops;
  for (Region &region : root->getRegions())
    for (Block &block : region) {
      size.values += block.getNumArguments();
      for (Operation &op : block)
        tops.push_back(&op);
    }
  std::mutex adding;
  parallelForEach(root->getContext(), tops, [&](Operation *op) {
    IrSize part;
    countIr(op, part);
    std::lock_guard<std::mutex> lock(adding);
    size.ops += part.ops;
    size.values += part.values;
  });
  return size;
}

void pimc::IrSizeInstrumentation::runBeforePass(Pass *pass, Operation *op) {
  if (isa<ModuleOp>(op))
    started = std::chrono::steady_clock::now();
}

void pimc::IrSizeInstrumentation::runAfterPass(Pass *pass, Operation *op) {
  print(pass, op, "");
}

void pimc::IrSizeInstrumentation::runAfterPassFailed(Pass *pass, Operation *op) {
  print(pass, op, "  (failed)");
}

void pimc::IrSizeInstrumentation::print(Pass *pass, Operation *op, llvm::StringRef outcome) {
  // Passes nested on functions are counted in the module's next pass.
  if (!isa<ModuleOp>(op))
    return;
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  IrSize size = irSizeOf(op);
  if (!headed)
    os << llvm::formatv("{0,-36} {1,10} {2,10} {3,10}\n", "pass", "seconds", "ops", "values");
  headed = true;
  // A pass manager nested on the module's functions has no argument.
  llvm::StringRef name =
      pass->getArgument().empty() ? llvm::StringRef("(passes on functions)") : pass->getArgument();
  os << llvm::formatv("{0,-36} {1,10:f4} {2,10} {3,10}{4}\n", name, seconds, size.ops,
                      size.values, outcome);
}
