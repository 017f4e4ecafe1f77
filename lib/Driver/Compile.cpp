//===- Compile.cpp - the compile pipeline and its report ------------------===//

#include "pimc/Driver/Driver.h"

#include "pimc/Arch/Arch.h"
#include "pimc/Conversion/Passes.h"
#include "pimc/Dialect/Onnx/OnnxDialect.h"
#include "pimc/Dialect/Onnx/Transforms/Passes.h"
#include "pimc/Dialect/Pim/Transforms/Passes.h"
#include "pimc/Dialect/Spatial/CostAnalysis.h"
#include "pimc/Dialect/Spatial/SpatialUtils.h"
#include "pimc/Dialect/Spatial/Transforms/Passes.h"
#include "pimc/Frontend/OnnxImporter.h"
#include "pimc/InitAll.h"
#include "pimc/Support/Locations.h"
#include "pimc/Simulator/Timing.h"
#include "pimc/Target/Pimsim/Artifacts.h"
#include "pimc/Target/Pimsim/CodeGen.h"

#include <cmath>

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/Timer.h"

#include <chrono>
#include <map>
#include <set>
#include <sys/resource.h>

using namespace mlir;
using namespace pimc;
using llvm::json::Array;
using llvm::json::Object;

llvm::ArrayRef<llvm::StringRef> pimc::stageNames() {
  static const llvm::StringRef names[] = {
      "import",        "canonicalize",   "onnx-to-spatial", "merge",
      "peft",          "materialize",    "communication",   "spatial-to-pim",
      "bufferize",     "plan-memory",    "codegen"};
  return names;
}

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static int64_t peakRssBytes() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

/// "node Gemm 'fc1'" for a location the importer made, else the file.
static std::string describeLocation(Location loc) {
  if (std::string node = nodeName(loc); !node.empty())
    return "node " + node;
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return file.getFilename().str();
  return "";
}

namespace {
struct IrCounts {
  int64_t ops = 0, values = 0;
};

IrCounts countIr(ModuleOp module) {
  IrCounts counts;
  module.walk([&](Operation *op) {
    ++counts.ops;
    counts.values += op->getNumResults();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        counts.values += block.getNumArguments();
  });
  return counts;
}

/// Computes, lanes and tiles of the dataflow graph after merging.
Object graphStats(ModuleOp module, const Arch &arch) {
  int64_t computes = 0, batches = 0, lanes = 0, tiles = 0;
  int64_t crossbars = spat::crossbarsIn(module, arch);
  Array batchList;
  module.walk([&](spat::ComputeOpInterface compute) {
    ++computes;
    lanes += compute.getLaneCount();
    tiles += compute.getTiles().size();
    if (compute.getLaneCount() > 1) {
      ++batches;
      batchList.push_back(Object{{"node", nodeName(compute.getLoc())},
                                 {"lanes", compute.getLaneCount()}});
    }
  });
  return Object{{"compute_instances", computes}, {"compute_batches", batches},
                {"lanes", lanes},                {"weight_tiles", tiles},
                {"crossbars", crossbars},        {"batches", std::move(batchList)}};
}

/// The name of model node `node` (an index into `nodeNames`, -1 for none).
std::string nodeLabel(llvm::ArrayRef<std::string> nodeNames, int32_t node) {
  bool named = node >= 0 && size_t(node) < nodeNames.size() && !nodeNames[node].empty();
  return named ? nodeNames[node] : "(no model node)";
}

/// A chain of work and transfers by model node, most first (what to make
/// faster), with its transfers and the cores it runs over.
Object pathStats(llvm::ArrayRef<sim::PathStep> path, llvm::ArrayRef<std::string> nodeNames) {
  std::map<std::string, double> onPath;
  double transferNs = 0;
  std::set<int64_t> cores;
  for (const sim::PathStep &step : path) {
    cores.insert(step.core);
    if (step.transfer)
      transferNs += step.endNs - step.startNs;
    else
      onPath[nodeLabel(nodeNames, step.node)] += step.endNs - step.startNs;
  }
  std::vector<std::pair<std::string, double>> byTime(onPath.begin(), onPath.end());
  llvm::stable_sort(byTime, [](const auto &a, const auto &b) { return a.second > b.second; });
  Array nodes;
  for (auto &[node, ns] : byTime)
    nodes.push_back(Object{{"node", node}, {"ns", ns}});
  return Object{{"transfer_ns", transferNs},
                {"cores", int64_t(cores.size())},
                {"nodes", std::move(nodes)}};
}

/// Where the time of one inference goes, core by core and in all.
Object timingStats(const sim::Timing &timing, llvm::ArrayRef<std::string> nodeNames) {
  Array nodes;
  for (auto [n, node] : llvm::enumerate(timing.nodes))
    if (node.startNs >= 0)
      nodes.push_back(Object{{"node", nodeLabel(nodeNames, n)},
                             {"start_ns", node.startNs},
                             {"end_ns", node.endNs},
                             {"busy_ns", node.busyNs},
                             {"wait_ns", node.waitNs},
                             {"cores", node.cores}});
  Array cores;
  sim::CoreTiming total;
  int64_t slowest = 0;
  for (auto [id, c] : llvm::enumerate(timing.cores)) {
    if (c.finishNs > timing.cores[slowest].finishNs)
      slowest = id;
    total.computeNs += c.computeNs;
    total.transferNs += c.transferNs;
    total.sendWaitNs += c.sendWaitNs;
    total.recvWaitNs += c.recvWaitNs;
    total.memoryWaitNs += c.memoryWaitNs;
    total.eventWaitNs += c.eventWaitNs;
    if (!c.instructions)
      continue;
    cores.push_back(Object{{"id", (int64_t)id},
                           {"finish_ns", c.finishNs},
                           {"compute_ns", c.computeNs},
                           {"transfer_ns", c.transferNs},
                           {"rendezvous_ns", c.rendezvousNs()},
                           {"send_wait_ns", c.sendWaitNs},
                           {"recv_wait_ns", c.recvWaitNs},
                           {"memory_wait_ns", c.memoryWaitNs},
                           {"event_wait_ns", c.eventWaitNs},
                           {"slowest_peer", c.slowestPeer},
                           {"slowest_peer_wait_ns", c.slowestPeerNs},
                           {"node", nodeLabel(nodeNames, c.mainNode)}});
  }
  const sim::Energy &e = timing.energy;
  return Object{{"latency_ns", timing.latencyNs},
                {"slowest_core", slowest},
                {"energy_pj", e.dynamicPj() + e.staticMw * timing.latencyNs},
                {"energy", Object{{"crossbar_pj", e.crossbarPj},
                                  {"crossbar_reads", e.crossbarReads},
                                  {"vector_pj", e.vectorPj},
                                  {"memory_pj", e.memoryPj},
                                  {"noc_pj", e.nocPj},
                                  {"static_mw", e.staticMw}}},
                {"critical_path", pathStats(timing.criticalPath, nodeNames)},
                {"compute_ns", total.computeNs},
                {"transfer_ns", total.transferNs},
                {"rendezvous_ns", total.rendezvousNs()},
                {"send_wait_ns", total.sendWaitNs},
                {"recv_wait_ns", total.recvWaitNs},
                {"memory_wait_ns", total.memoryWaitNs},
                {"event_wait_ns", total.eventWaitNs},
                {"cores", std::move(cores)},
                {"nodes", std::move(nodes)}};
}

/// Where each working core's time goes in one round of the looping
/// programs, the busiest first: it bounds the round, and the others' waits
/// tell whether later stages hold them up or earlier ones starve them.
Array roundStats(const sim::Timing &looping, llvm::ArrayRef<std::string> nodeNames) {
  std::vector<size_t> working;
  for (auto [id, c] : llvm::enumerate(looping.roundCores))
    if (c.busyNs() > 0)
      working.push_back(id);
  llvm::stable_sort(working, [&](size_t a, size_t b) {
    return looping.roundCores[a].busyNs() > looping.roundCores[b].busyNs();
  });
  Array cores;
  for (size_t id : working) {
    const sim::CoreTiming &c = looping.roundCores[id];
    cores.push_back(Object{{"id", int64_t(id)},
                           {"node", nodeLabel(nodeNames, looping.cores[id].mainNode)},
                           {"busy_ns", c.busyNs()},
                           {"send_wait_ns", c.sendWaitNs},
                           {"recv_wait_ns", c.recvWaitNs},
                           {"memory_wait_ns", c.memoryWaitNs},
                           {"event_wait_ns", c.eventWaitNs}});
  }
  return cores;
}

/// The PEFT placement of every compute and the schedule's length.
Object scheduleStats(ModuleOp module, const Arch &arch) {
  Array assignment;
  std::set<int64_t> cores;
  std::map<int64_t, int64_t> lanesPerCore;
  module.walk([&](spat::ComputeOpInterface compute) {
    auto core = compute->getAttrOfType<IntegerAttr>(spat::kCoreAttr);
    if (!core)
      return;
    cores.insert(core.getInt());
    lanesPerCore[core.getInt()] += compute.getLaneCount();
    assignment.push_back(Object{
        {"node", nodeName(compute.getLoc())},
        {"lanes", compute.getLaneCount()},
        {"core", core.getInt()},
        {"start_ns", spat::getTimeAttr(compute, spat::kStartAttr)},
        {"finish_ns", spat::getTimeAttr(compute, spat::kFinishAttr)}});
  });
  int64_t maxLanes = 0;
  for (auto [core, count] : lanesPerCore)
    maxLanes = std::max(maxLanes, count);
  double makespan = 0;
  if (auto attr = module->getAttrOfType<FloatAttr>(spat::kMakespanAttr))
    makespan = attr.getValueAsDouble();
  return Object{{"cores_used", (int64_t)cores.size()},
                {"critical_path_ns", makespan},
                {"max_lanes_per_core", maxLanes},
                {"assignment", std::move(assignment)}};
}

Object coreStatsJson(const CoreCodeStats &c) {
  return Object{{"id", c.id},
                {"instructions", c.instructions},
                {"mvm", c.mvm},
                {"vector", c.vector},
                {"scalar", c.scalar},
                {"register_operands", c.registerOperands},
                {"setbw", c.setbw},
                {"send", c.send},
                {"send_bytes", c.sendBytes},
                {"recv", c.recv},
                {"recv_bytes", c.recvBytes},
                {"load", c.load},
                {"load_bytes", c.loadBytes},
                {"store", c.store},
                {"store_bytes", c.storeBytes},
                {"copies", c.copies},
                {"copy_bytes", c.copyBytes},
                {"other", c.other},
                {"groups", c.groups},
                {"crossbars", c.crossbars},
                {"memory_bytes", c.memoryBytes}};
}

std::unique_ptr<Pass> stagePass(StringRef stage, const CompileOptions &options);

/// The passes of a stage after import (canonicalization is a small group).
void addStagePasses(PassManager &pm, StringRef stage, const CompileOptions &options) {
  if (stage == "canonicalize") {
    OpPassManager &func = pm.nest<func::FuncOp>();
    func.addPass(onnx::createOnnxCanonicalize());
    func.addPass(onnx::createOnnxChannelsLast());
    func.addPass(onnx::createOnnxCanonicalize());
    if (options.packPixels)
      func.addPass(onnx::createOnnxPackPixels(onnx::OnnxPackPixelsOptions{options.archPath}));
    return;
  }
  // Looping programs assemble their buffers where the pieces arrive, in
  // the final order: a core's copies are part of every round. (For one
  // inference the orders, chosen with the copies counted, came out 1%
  // slower on three of five benchmark models and faster on two.)
  if (stage == "spatial-to-pim" && options.throughput)
    pm.addPass(spat::createSpatAssembleInPlace());
  pm.addPass(stagePass(stage, options));
}

std::unique_ptr<Pass> stagePass(StringRef stage, const CompileOptions &options) {
  const std::string &arch = options.archPath;
  // The passes plan a pipeline of layer stages, or one inference.
  bool stages = options.throughput && options.plan != CompileOptions::Plan::WholeChip;
  if (stage == "onnx-to-spatial")
    return createConvertOnnxToSpatial(
        ConvertOnnxToSpatialOptions{arch, stages, options.copyBudget,
                                    stages && options.evenSplits, options.interleaveRows});
  if (stage == "merge")
    return spat::createSpatMergeComputes(spat::SpatMergeComputesOptions{arch});
  if (stage == "peft")
    return spat::createSpatPeftSchedule(
        spat::SpatPeftScheduleOptions{arch, stages, stages && options.balanceWeightless});
  if (stage == "materialize")
    return spat::createSpatMaterializeSchedule();
  if (stage == "communication")
    return spat::createSpatOrderCommunication(
        spat::SpatOrderCommunicationOptions{arch, stages});
  if (stage == "spatial-to-pim")
    return createConvertSpatialToPim(ConvertSpatialToPimOptions{arch});
  if (stage == "bufferize")
    return pim::createPimBufferize();
  if (stage == "plan-memory")
    return pim::createPimPlanMemory(pim::PimPlanMemoryOptions{arch});
  return nullptr;
}
} // namespace

/// `text` with its line breaks as spaces, for a report line.
static std::string oneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

/// How a candidate of throughput mode lays out the programs.
static std::string describePlan(const CompileOptions &options) {
  if (options.plan == CompileOptions::Plan::WholeChip)
    return "whole chip";
  std::string variant = options.packPixels ? "pixels packed" : "pixels one by one";
  if (options.balanceWeightless)
    variant += ", sums on the least loaded cores";
  if (options.evenSplits)
    variant += ", rows and row tiles split evenly";
  return "layer stages, " + variant;
}

/// A progress line, written at once: candidates may compile in parallel.
static void printProgress(const CompileOptions &options, const llvm::Twine &line) {
  if (options.progress)
    llvm::errs() << (options.progressLabel.empty() ? "" : options.progressLabel + ": ") +
                        line.str() + "\n";
}

static double secondsSince(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

/// What a compile that failed ran out of, for the driver to try with less.
enum class Misfit { None, Crossbars, LocalMemory };

/// Compiles with the plan options.plan names (for throughput mode, Best is
/// the pipeline of layer stages); sets `misfit` when scheduling found no
/// core with room for some weights, or a core's buffers overflowed its
/// local memory with rows dealt out to copies. The report counts the
/// compile time from `started`.
static llvm::Expected<Object> compileOnce(const CompileOptions &options,
                                          const frontend::Model *preloaded,
                                          std::chrono::steady_clock::time_point started,
                                          Misfit &misfit) {
  if (!options.emitMlirAfter.empty() &&
      !llvm::is_contained(stageNames(), options.emitMlirAfter))
    return fail("unknown stage '" + options.emitMlirAfter + "' (stages: " +
                llvm::join(stageNames(), ", ") + ")");
  llvm::Expected<Arch> arch = Arch::loadOrDefault(options.archPath);
  if (!arch)
    return arch.takeError();

  DialectRegistry registry;
  registerAllDialects(registry);
  auto contextOwner = std::make_unique<MLIRContext>(registry);
  MLIRContext &context = *contextOwner;
  context.loadAllAvailableDialects();
  context.disableMultithreading();
  // Diagnostics name the model node (the importer's locations) they are about.
  std::string diagnostics;
  bool reportedError = false;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    // The conversion framework repeats a pattern's own error; keep the first.
    if (diag.getSeverity() == DiagnosticSeverity::Error) {
      if (reportedError && StringRef(diag.str()).starts_with("failed to legalize"))
        return success();
      reportedError = true;
    }
    llvm::raw_string_ostream os(diagnostics);
    std::string where = describeLocation(diag.getLocation());
    const char *severity = diag.getSeverity() == DiagnosticSeverity::Error ? "error"
                           : diag.getSeverity() == DiagnosticSeverity::Warning
                               ? "warning"
                               : "note";
    os << severity << ": " << (where.empty() ? "" : where + ": ") << diag.str()
       << "\n";
    return success();
  });

  Array stages;
  auto stageStart = std::chrono::steady_clock::now();
  auto progress = [&](StringRef stage, size_t number) {
    printProgress(options, llvm::formatv("[{0,2}/{1}] {2,-16} {3:f3} s", number,
                                         stageNames().size() - 1, stage,
                                         secondsSince(stageStart)));
  };

  frontend::Model loadedModel;
  const frontend::Model *model = preloaded;
  if (!model) {
    llvm::Expected<frontend::Model> loaded = frontend::loadModel(options.modelPath);
    if (!loaded)
      return loaded.takeError();
    loadedModel = std::move(*loaded);
    model = &loadedModel;
  }
  llvm::Expected<OwningOpRef<ModuleOp>> imported =
      importOnnxModel(context, *model, options.modelPath);
  if (!imported)
    return fail(llvm::toString(imported.takeError()) +
                (diagnostics.empty() ? "" : "\n" + diagnostics));
  ModuleOp module = **imported;
  // The IR shares the weights now: each is freed when the passes drop it.
  loadedModel = frontend::Model();
  auto recordStage = [&](StringRef stage) {
    IrCounts counts = countIr(module);
    stages.push_back(Object{{"name", stage},
                            {"seconds", secondsSince(stageStart)},
                            {"ops", counts.ops},
                            {"values", counts.values},
                            {"peak_rss_bytes", peakRssBytes()}});
  };
  recordStage("import");
  progress("import", 0);
  auto dumpIfAsked = [&](StringRef stage) {
    if (options.emitMlirAfter == stage) {
      module.print(llvm::outs());
      llvm::outs() << "\n";
      return true;
    }
    return false;
  };
  if (dumpIfAsked("import"))
    return Object{};

  Object report;
  Array packed; // the convolutions onnx-pack-pixels made
  for (StringRef stage : stageNames().drop_front().drop_back()) {
    stageStart = std::chrono::steady_clock::now();
    // Once the IR is per-core programs, bufferization and the verifier run
    // core by core in parallel (and the communication order's simulations);
    // before, the context's locks cost more than threads gain.
    bool perCore = stage == "communication" || stage == "spatial-to-pim" ||
                   stage == "bufferize" || stage == "plan-memory";
    context.disableMultithreading(!perCore);
    PassManager pm(&context);
    addStagePasses(pm, stage, options);
    if (failed(pm.run(module))) {
      if (module->hasAttr(spat::kOutOfCrossbarsAttr))
        misfit = Misfit::Crossbars;
      else if (stage == "plan-memory" && module->hasAttr(spat::kInterleavedRowsAttr))
        misfit = Misfit::LocalMemory;
      return fail("stage '" + stage + "' failed:\n" + diagnostics);
    }
    recordStage(stage);
    progress(stage, stages.size() - 1);
    if (stage == "canonicalize")
      module.walk([&](onnx::ConvOp conv) {
        if (auto pixels = conv->getAttrOfType<IntegerAttr>(onnx::kPackedPixelsAttr))
          packed.push_back(
              Object{{"node", nodeName(conv.getLoc())}, {"pixels", pixels.getInt()}});
      });
    if (stage == "merge") {
      report["graph"] = graphStats(module, *arch);
      (*report.getObject("graph"))["packed_convolutions"] = std::move(packed);
    }
    if (stage == "peft") {
      report["schedule"] = scheduleStats(module, *arch);
      (*report.getObject("schedule"))["copy_budget"] = options.copyBudget;
    }
    if (dumpIfAsked(stage))
      return Object{};
  }

  stageStart = std::chrono::steady_clock::now();
  if (options.outputDir.empty())
    return fail("no output directory (-o)");
  llvm::Expected<CodeGenStats> code =
      emitPimsimArtifacts(module, *arch, {options.outputDir, options.emitJson});
  if (!code)
    return fail(llvm::toString(code.takeError()) +
                (diagnostics.empty() ? "" : "\n" + diagnostics));
  recordStage("codegen");
  progress("codegen", stages.size() - 1);

  CoreCodeStats total = code->total();
  int64_t maxInstructions = 0, maxCore = 0, coreMemory = 0, activeCores = 0;
  Array cores;
  for (const CoreCodeStats &c : code->cores) {
    if (c.instructions > maxInstructions) {
      maxInstructions = c.instructions;
      maxCore = c.id;
    }
    coreMemory += c.memoryBytes;
    activeCores += c.instructions > 0;
    cores.push_back(coreStatsJson(c));
  }
  Object instructions = coreStatsJson(total);
  instructions.erase("id");
  instructions.erase("memory_bytes");
  instructions.erase("groups");
  instructions.erase("crossbars");
  instructions["max_per_core"] = maxInstructions;
  instructions["max_core"] = maxCore;
  report["instructions"] = std::move(instructions);
  report["cores"] = std::move(cores);
  report["memory"] = Object{
      {"weights", code->weightCount},
      {"weight_bytes_at_weight_bits", code->weightCount * arch->weightBits / 8},
      {"crossbars_used", total.crossbars},
      {"crossbars_available", arch->coreCount * arch->matrix.xbarArrayCount},
      {"array_groups", total.groups},
      {"global_memory_bytes", code->globalMemoryBytes},
      {"max_core_memory_bytes", total.memoryBytes},
      {"core_memory_bytes", coreMemory},
      {"logical_cores", (int64_t)code->cores.size()},
      {"active_cores", activeCores},
      {"physical_cores", arch->coreCount},
      {"local_memory_bytes_per_core", arch->localMemory.memorySize}};
  // When the chip finishes: the programs replayed with its timing model.
  std::vector<sim::NodeMarks> marks;
  for (CoreCodeStats &c : code->cores)
    marks.push_back(std::move(c.nodeMarks));
  llvm::Expected<sim::Timing> timing =
      sim::replayTiming(options.outputDir, *arch, &marks, code->nodes.size());
  if (!timing)
    return fail("the timing replay of the program failed: " +
                llvm::toString(timing.takeError()));
  report["timing"] = timingStats(*timing, code->nodes);
  Object &timingReport = *report.getObject("timing");
  timingReport["mode"] = options.throughput ? "throughput" : "latency";
  int64_t simTimeMs = 0;
  if (options.throughput) {
    // The programs looped as pimsim-nn's throughput mode loops them: the
    // first rounds fill the pipeline, the later ones give its period. A
    // pipeline of layer stages takes longer to settle (googlenet's round
    // over rounds 2-4 was 2.582 ms, over 5-8 2.68 ms; pimsim-nn counted
    // 2.69), and its programs are short.
    int64_t replayRounds = options.plan == CompileOptions::Plan::WholeChip ? 4 : 8;
    llvm::Expected<sim::Timing> looping = sim::replayTiming(
        options.outputDir, *arch, &marks, code->nodes.size(), replayRounds);
    if (!looping)
      return fail("the timing replay of the looping programs failed: " +
                  llvm::toString(looping.takeError()));
    double roundNs = std::max(looping->roundNs, 1.0);
    SimulatedTime simulated = throughputSimTime(timing->latencyNs, roundNs);
    simTimeMs = simulated.simTimeMs;
    int64_t expectedCount = simulated.rounds;
    timingReport["round_ns"] = roundNs;
    timingReport["round_cores"] = roundStats(*looping, code->nodes);
    timingReport["plan"] = describePlan(options);
    // pimsim-nn divides the energy of sim_time by the rounds it counts.
    timingReport["energy_per_sample_pj"] =
        timing->energy.dynamicPj() + timing->energy.staticMw * simTimeMs * 1e6 / expectedCount;
    timingReport["throughput_samples_per_s"] = 1e9 / roundNs;
    timingReport["sim_time_ms"] = simTimeMs;
    timingReport["expected_output_count"] = expectedCount;
    // pimsim-nn's throughput: the samples it counts in sim_time, the
    // pipeline's fill included.
    timingReport["counted_sample_ns"] = simTimeMs * 1e6 / expectedCount;
  }
  if (llvm::Error e = setSimulationMode(options.outputDir, options.throughput, simTimeMs))
    return std::move(e);
  report["pimc"] = "pimc 0.1";
  report["model"] = options.modelPath;
  report["arch"] = arch->path.empty() ? "built-in chip-144" : arch->path;
  report["compiler"] = Object{{"wall_seconds", secondsSince(started)},
                              {"peak_rss_bytes", peakRssBytes()},
                              {"stages", std::move(stages)}};
  report["validation"] = Object{{"status", "not run"}};

  if (llvm::Error e = writeJsonFile(options.outputDir, kReportFile, Object(report)))
    return std::move(e);
  if (options.keepIrAtExit) {
    // The process ends next: tearing down the IR would only cost time.
    (void)imported->release();
    (void)contextOwner.release();
  }
  return report;
}

SimulatedTime pimc::throughputSimTime(double latencyNs, double roundNs) {
  // pimsim-nn counts the rounds its slowest core completes in sim_time.
  int64_t after = std::max<int64_t>(20, std::ceil(9 * latencyNs / roundNs));
  int64_t simTimeMs = static_cast<int64_t>(std::ceil((latencyNs + after * roundNs) / 1e6));
  return {simTimeMs,
          1 + static_cast<int64_t>(std::floor((simTimeMs * 1e6 - latencyNs) / roundNs))};
}

/// compileOnce, with fewer weight copies while they do not fit the cores,
/// and with runs of consecutive rows on each copy when dealing the rows out
/// overflows a core's local memory.
static llvm::Expected<Object> compilePlan(const CompileOptions &options,
                                          const frontend::Model *preloaded) {
  auto started = std::chrono::steady_clock::now();
  CompileOptions fitting = options;
  // A share of the crossbars less each time, doubling from 1%: a budget
  // fails by fragmenting the cores' last few crossbars, so the first steps
  // are small (vgg16: 90% fails, 83% fits, 22.1 ms against 25.5 at 80%).
  // With no copies at all, the weights themselves do not fit, which is the
  // error to report.
  double step = 0.01;
  while (true) {
    Misfit misfit = Misfit::None;
    llvm::Expected<Object> report = compileOnce(fitting, preloaded, started, misfit);
    if (report)
      return report;
    if (misfit == Misfit::LocalMemory && fitting.interleaveRows) {
      llvm::consumeError(report.takeError());
      printProgress(options, "a core's local memory overflows with the rows of each layer "
                             "dealt out to its copies in turn: giving each copy "
                             "consecutive rows");
      fitting.interleaveRows = false;
      continue;
    }
    if (misfit != Misfit::Crossbars || fitting.copyBudget <= 0)
      return report;
    llvm::consumeError(report.takeError());
    double fewer = std::max(0.0, std::round(100 * (fitting.copyBudget - step)) / 100);
    printProgress(options, llvm::formatv("the weight copies for {0:f0}% of the crossbars do "
                                         "not fit the cores: planning for {1:f0}%",
                                         100 * fitting.copyBudget, 100 * fewer));
    fitting.copyBudget = fewer;
    step *= 2;
  }
}

/// compileModel, writing into options.outputDir as it is.
static llvm::Expected<Object> compileInto(const CompileOptions &options,
                                          const frontend::Model *preloaded) {
  using Plan = CompileOptions::Plan;
  if (!options.throughput || options.plan == Plan::WholeChip || !options.emitMlirAfter.empty())
    return compilePlan(options, preloaded);
  // Neither plan, nor one way of laying out the layer stages, is the fastest
  // on every model: each candidate compiles into a directory beside the
  // output, and the one with the higher throughput as pimsim-nn counts it
  // (samples done in sim_time, the fill included) moves in.
  auto started = std::chrono::steady_clock::now();
  std::vector<CompileOptions> candidates;
  if (options.plan == Plan::Best) {
    candidates.push_back(options);
    candidates.back().plan = Plan::WholeChip;
  }
  // Placing sums by earliest finish alone (without balanceWeightless) won
  // on none of the six benchmark models; splitting rows and row tiles evenly wins on four.
  for (auto [pack, balance, even] :
       {std::tuple{true, true, true}, {true, true, false}, {false, false, false}}) {
    candidates.push_back(options);
    candidates.back().plan = Plan::LayerStages;
    candidates.back().packPixels = pack;
    candidates.back().balanceWeightless = balance;
    candidates.back().evenSplits = even;
  }
  struct Result {
    std::optional<Object> report;
    std::string error;
  };
  std::vector<Result> results(candidates.size());
  // A model that is not there, or an architecture that does not load, fails
  // every candidate alike: say so once. (Each loads the model itself: held
  // across all of them, alexnet's weights raised the peak memory by 42%.)
  if (!preloaded && !llvm::sys::fs::exists(options.modelPath))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot open model '" + options.modelPath + "'");
  if (llvm::Expected<Arch> arch = Arch::loadOrDefault(options.archPath); !arch)
    return arch.takeError();
  auto countedNs = [](const Object &report) {
    return report.getObject("timing")->getNumber("counted_sample_ns").value_or(0);
  };
  // The candidates are independent compiles with contexts of their own: as
  // many run at once as asked, the whole chip (the longest) first.
  unsigned jobs =
      options.jobs ? options.jobs : llvm::hardware_concurrency().compute_thread_count();
  size_t workers = std::clamp<size_t>(jobs, 1, candidates.size());
  auto compileCandidate = [&](size_t i) {
    CompileOptions &candidate = candidates[i];
    candidate.outputDir = join(options.outputDir, "candidate" + std::to_string(i));
    candidate.progressLabel = describePlan(candidate);
    // Only the last compile's IR may stay allocated at exit, and only when
    // no other runs on after it.
    candidate.keepIrAtExit = options.keepIrAtExit && workers == 1 && i + 1 == candidates.size();
    llvm::Expected<Object> report = compilePlan(candidate, preloaded);
    if (!report) {
      // A candidate that does not compile (a core's local memory overflows,
      // say) leaves the others.
      results[i].error = llvm::toString(report.takeError());
      printProgress(candidate, "does not compile: " + oneLine(results[i].error));
      llvm::sys::fs::remove_directories(candidate.outputDir);
      return;
    }
    results[i].report = std::move(*report);
  };
  llvm::DefaultThreadPool pool(llvm::hardware_concurrency(workers));
  for (size_t i = 0; i < candidates.size(); ++i)
    pool.async([&, i] { compileCandidate(i); });
  pool.wait();
  int best = -1;
  for (size_t i = 0; i < candidates.size(); ++i)
    if (results[i].report &&
        (best < 0 || countedNs(*results[i].report) < countedNs(*results[best].report)))
      best = i;
  if (best < 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), results.front().error);
  Object report = std::move(*results[best].report);
  Object &timing = *report.getObject("timing");
  // Every candidate's figures, and the best of the other plan's.
  Array compiled;
  int other = -1;
  std::string otherError;
  for (size_t i = 0; i < candidates.size(); ++i) {
    Object entry{{"plan", describePlan(candidates[i])}};
    const Object *own = int(i) == best ? &report : results[i].report ? &*results[i].report : nullptr;
    if (own) {
      entry["round_ns"] = own->getObject("timing")->getNumber("round_ns").value_or(0);
      entry["counted_sample_ns"] = countedNs(*own);
    } else {
      entry["error"] = oneLine(results[i].error);
    }
    compiled.push_back(std::move(entry));
    if (candidates[i].plan == candidates[best].plan)
      continue;
    if (results[i].report && (other < 0 || countedNs(*results[i].report) <
                                               countedNs(*results[other].report)))
      other = i;
    else if (!results[i].report && otherError.empty())
      otherError = results[i].error;
  }
  timing["candidates"] = std::move(compiled);
  if (other >= 0) {
    timing["other_plan_round_ns"] =
        results[other].report->getObject("timing")->getNumber("round_ns").value_or(0);
    timing["other_plan_counted_sample_ns"] = countedNs(*results[other].report);
  } else if (!otherError.empty()) {
    timing["other_plan_error"] = oneLine(otherError);
  }
  (*report.getObject("compiler"))["wall_seconds"] = secondsSince(started);
  if (std::error_code ec = llvm::sys::fs::create_directories(options.outputDir))
    return llvm::createStringError(ec, "cannot create '" + options.outputDir + "'");
  if (llvm::Error e = moveArtifacts(candidates[best].outputDir, options.outputDir))
    return std::move(e);
  for (const CompileOptions &candidate : candidates)
    if (std::error_code ec = llvm::sys::fs::remove_directories(candidate.outputDir))
      return llvm::createStringError(ec, "cannot remove '" + candidate.outputDir + "'");
  if (llvm::Error e = writeJsonFile(options.outputDir, kReportFile, Object(report)))
    return std::move(e);
  return report;
}

llvm::Expected<Object> pimc::compileModel(const CompileOptions &options,
                                          const frontend::Model *preloaded) {
  if (!options.emitMlirAfter.empty() || options.outputDir.empty())
    return compileInto(options, preloaded);
  // Written into a directory of this run inside the output directory, and
  // moved in when complete.
  llvm::Expected<std::unique_ptr<OutputDirectory>> out = OutputDirectory::open(options.outputDir);
  if (!out)
    return out.takeError();
  CompileOptions staged = options;
  staged.outputDir = (*out)->staging().str();
  llvm::Expected<Object> report = compileInto(staged, preloaded);
  if (!report) {
    // The files that failed are told by the names they would have had.
    std::string message = llvm::toString(report.takeError());
    for (size_t at; (at = message.find(staged.outputDir)) != std::string::npos;)
      message.replace(at, staged.outputDir.size(), options.outputDir);
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  }
  if (llvm::Error e = (*out)->commit())
    return std::move(e);
  return report;
}
