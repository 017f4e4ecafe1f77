//===- PeftSchedule.cpp - stage 4: PEFT scheduling ------------------------===//
//
// Places the computes of the dataflow function on the cores with PEFT list
// scheduling (pimc::peft::schedule, Peft.h): the computes' costs, crossbars
// and the bytes they pass on are read from the IR, and each compute gets its
// core and its start and finish times (spat.core, spat.start, spat.finish).
//
//===----------------------------------------------------------------------===//

#include "pimc/Dialect/Pim/ModuleArch.h"
#include "pimc/Arch/CostModel.h"
#include "pimc/Dialect/Spatial/CostAnalysis.h"
#include "pimc/Dialect/Spatial/Fragments.h"
#include "pimc/Dialect/Spatial/SpatialUtils.h"
#include "pimc/Dialect/Spatial/Transforms/Passes.h"
#include "pimc/Dialect/Spatial/Transforms/Peft.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace pimc::spat {
#define GEN_PASS_DEF_SPATPEFTSCHEDULE
#include "pimc/Dialect/Spatial/Transforms/Passes.h.inc"
} // namespace pimc::spat

using namespace mlir;
using namespace pimc;
using namespace pimc::spat;

namespace {

struct SpatPeftSchedulePass
    : public spat::impl::SpatPeftScheduleBase<SpatPeftSchedulePass> {
  using SpatPeftScheduleBase::SpatPeftScheduleBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::shared_ptr<const Arch> arch = archOf(module);
    if (!arch)
      return signalPassFailure();
    for (auto func : module.getOps<func::FuncOp>()) {
      std::vector<ComputeOpInterface> computes;
      FailureOr<std::vector<peft::Task>> tasks = readTasks(func, *arch, computes);
      if (failed(tasks))
        return signalPassFailure();
      auto scheduled = peft::schedule(*tasks, *arch, {throughput, balanceWeightless});
      if (auto *misfit = std::get_if<peft::Misfit>(&scheduled)) {
        report(*misfit, computes[misfit->task], module, arch->localMemory.memorySize);
        return signalPassFailure();
      }
      const peft::Schedule &schedule = std::get<peft::Schedule>(scheduled);
      Builder b(&getContext());
      SpatDialect &spat = dialectOf(module);
      for (auto [compute, placed] : llvm::zip(computes, schedule.placements)) {
        spat.getCoreAttrHelper().setAttr(compute, b.getI64IntegerAttr(placed.core));
        spat.getStartAttrHelper().setAttr(compute, b.getF64FloatAttr(placed.start));
        spat.getFinishAttrHelper().setAttr(compute, b.getF64FloatAttr(placed.finish));
      }
      spat.getMakespanAttrHelper().setAttr(module, b.getF64FloatAttr(schedule.makespan));
    }
  }

  /// The computes of `func` in order, as PEFT's tasks.
  static FailureOr<std::vector<peft::Task>>
  readTasks(func::FuncOp func, const Arch &arch, std::vector<ComputeOpInterface> &computes) {
    CostModel cost(arch);
    int64_t elementBytes = arch.inputBytes();
    std::vector<peft::Task> tasks;
    DenseMap<Operation *, unsigned> index;
    int64_t unnamedLayer = 0; // counts down: model nodes count up from 0
    func.walk([&](ComputeOpInterface op) {
      index[op] = tasks.size();
      computes.push_back(op);
      peft::Task task;
      task.cost = computeNs(op, cost);
      task.crossbars = crossbarsOf(op, arch);
      if (IntegerAttr copy = dialectOf(op).getCopyAttrHelper().getAttr(op))
        task.copy = copy.getInt();
      // A compute with no node (written by hand) is a layer of its own.
      if (IntegerAttr layer = dialectOf(op).getLayerAttrHelper().getAttr(op))
        task.layer = layer.getInt();
      else
        task.layer = --unnamedLayer;
      tasks.push_back(task);
    });
    FragmentAnalysis fragments;
    for (unsigned t = 0; t < tasks.size(); ++t) {
      DenseMap<unsigned, int64_t> bytesFrom;
      for (Value input : computes[t]->getOperands()) {
        FailureOr<ArrayRef<Fragment>> pieces = fragments.getFragments(input);
        if (failed(pieces))
          return failure();
        for (const Fragment &f : *pieces) {
          int64_t bytes = f.numElements() * elementBytes;
          tasks[t].inputBytes += bytes;
          if (ComputeOpInterface from = f.source.getCompute())
            bytesFrom[index[from]] += bytes;
          else if (!f.source.isFill())
            tasks[t].globalBytes += bytes;
        }
      }
      for (auto [from, bytes] : bytesFrom)
        tasks[t].preds.push_back({from, bytes});
      for (Value result : computes[t]->getResults())
        tasks[t].outputBytes +=
            cast<ShapedType>(result.getType()).getNumElements() * elementBytes;
    }
    return tasks;
  }

  void report(const peft::Misfit &misfit, ComputeOpInterface compute, ModuleOp module,
              int64_t localMemory) {
    if (misfit.outOfCrossbars) {
      // The driver may plan fewer weight copies and try again.
      module->setAttr(kOutOfCrossbarsAttr, UnitAttr::get(&getContext()));
      compute.emitError() << "no core has the " << misfit.crossbars
                          << " free crossbars this compute's weights need ("
                          << misfit.freeCrossbars << " crossbars are free on the chip, at most "
                          << misfit.mostFreeOnOneCore << " on one core)";
    } else {
      compute.emitError() << "does not fit the local memory of any core: its inputs "
                             "and results take "
                          << misfit.bytes << " bytes, and a core keeps at most "
                          << misfit.memoryLimit << " of its " << localMemory
                          << " bytes for them";
    }
  }
};
} // namespace
