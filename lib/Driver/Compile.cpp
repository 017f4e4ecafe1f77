//===- Compile.cpp - the compile pipeline and its report ------------------===//

#include "pimc/Driver/Driver.h"
#include "pimc/Driver/Views.h"

#include "pimc/Arch/Arch.h"
#include "pimc/Dialect/Onnx/OnnxDialect.h"
#include "pimc/Dialect/Onnx/Transforms/Passes.h"
#include "pimc/Dialect/Pim/ModuleArch.h"
#include "pimc/Dialect/Spatial/CostAnalysis.h"
#include "pimc/Dialect/Spatial/SpatialUtils.h"
#include "pimc/Frontend/OnnxImporter.h"
#include "pimc/Frontend/ShapeFolding.h"
#include "pimc/InitAll.h"
#include "pimc/Pipeline.h"
#include "pimc/Support/Constants.h"
#include "pimc/Support/ExitCodes.h"
#include "pimc/Support/InputLimits.h"
#include "pimc/Support/Locations.h"
#include "pimc/Support/Version.h"
#include "pimc/Simulator/Timing.h"
#include "pimc/Target/Pimsim/Artifacts.h"
#include "pimc/Target/Pimsim/CodeGen.h"

#include <cmath>

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/Timer.h"

#include <openssl/evp.h>

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <set>
#include <sys/resource.h>

using namespace mlir;
using namespace pimc;
using llvm::json::Array;
using llvm::json::Object;

llvm::ArrayRef<llvm::StringRef> pimc::stageNames() {
  static const std::vector<llvm::StringRef> names = [] {
    std::vector<llvm::StringRef> all{"import"};
    llvm::append_range(all, pipelineStages());
    all.push_back("codegen");
    return all;
  }();
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
/// The computes of `module`, in order: the report's arrays of them are
/// reserved, as growing a json::Array copies its objects (json::Value's move
/// may throw).
SmallVector<spat::ComputeOpInterface> computesIn(ModuleOp module) {
  SmallVector<spat::ComputeOpInterface> computes;
  module.walk([&](spat::ComputeOpInterface compute) { computes.push_back(compute); });
  return computes;
}

/// Computes, lanes and tiles of the dataflow graph after merging.
Object graphStats(ModuleOp module, const Arch &arch) {
  int64_t batches = 0, lanes = 0, tiles = 0;
  int64_t crossbars = spat::crossbarsIn(module, arch);
  SmallVector<spat::ComputeOpInterface> computes = computesIn(module);
  Array batchList;
  batchList.reserve(computes.size());
  for (spat::ComputeOpInterface compute : computes) {
    lanes += compute.getLaneCount();
    tiles += compute.getTiles().size();
    if (compute.getLaneCount() > 1) {
      ++batches;
      batchList.push_back(Object{{"node", nodeName(compute.getLoc())},
                                 {"lanes", compute.getLaneCount()}});
    }
  }
  return Object{{"compute_instances", (int64_t)computes.size()}, {"compute_batches", batches},
                {"lanes", lanes},                {"weight_tiles", tiles},
                {"crossbars", crossbars},        {"batches", std::move(batchList)}};
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

/// What no run of the programs can beat, and its parts.
Object boundStats(const sim::LatencyBound &bound) {
  return Object{{"latency_ns", bound.latencyNs()},  {"round_ns", bound.roundNs()},
                {"chain_ns", bound.chainNs},        {"core_work_ns", bound.coreWorkNs},
                {"work_core", bound.workCore},      {"injection_ns", bound.injectionNs},
                {"injection_core", bound.injectionCore},
                {"global_memory_ns", bound.globalMemoryNs}};
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
                             {"cores", node.cores},
                             {"crossbars", node.crossbars},
                             {"crossbar_reads", node.crossbarReads},
                             {"energy_pj", node.dynamicPj()},
                             {"crossbar_pj", node.crossbarPj},
                             {"vector_pj", node.vectorPj},
                             {"memory_pj", node.memoryPj},
                             {"noc_pj", node.nocPj}});
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
                {"bound", boundStats(timing.bound)},
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
  SmallVector<spat::ComputeOpInterface> all = computesIn(module);
  Array assignment;
  assignment.reserve(all.size());
  std::set<int64_t> cores;
  std::map<int64_t, int64_t> lanesPerCore;
  for (spat::ComputeOpInterface compute : all) {
    IntegerAttr core = spat::dialectOf(compute).getCoreAttrHelper().getAttr(compute);
    if (!core)
      continue;
    cores.insert(core.getInt());
    lanesPerCore[core.getInt()] += compute.getLaneCount();
    assignment.push_back(Object{
        {"node", nodeName(compute.getLoc())},
        {"lanes", compute.getLaneCount()},
        {"core", core.getInt()},
        {"start_ns", spat::startOf(compute)},
        {"finish_ns", spat::finishOf(compute)}});
  }
  int64_t maxLanes = 0;
  for (auto [core, count] : lanesPerCore)
    maxLanes = std::max(maxLanes, count);
  double makespan = 0;
  if (FloatAttr attr = spat::dialectOf(module).getMakespanAttrHelper().getAttr(module))
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

/// The pipeline's options for a compile's plan (its chip is the module's).
void setPipelineOptions(PipelineOptions &pipeline, const CompileOptions &options) {
  pipeline.looping = options.throughput;
  // The passes plan a pipeline of layer stages, or one inference.
  pipeline.layerStages = options.throughput && options.plan != CompileOptions::Plan::WholeChip;
  pipeline.evenSplits = options.evenSplits;
  pipeline.balanceWeightless = options.balanceWeightless;
  pipeline.packPixels = options.packPixels;
  pipeline.copyBudget = options.copyBudget;
  pipeline.interleaveRows = options.interleaveRows;
  pipeline.assembleInPlace = options.assembleInPlace;
}
} // namespace

/// `text` with its line breaks as spaces, for a report line.
static std::string oneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

/// How a candidate of throughput mode lays out the programs.
static std::string describePlan(const CompileOptions &options) {
  std::string copied = options.assembleInPlace ? "" : ", pieces copied into place";
  if (options.plan == CompileOptions::Plan::WholeChip)
    return "whole chip" + copied;
  std::string variant = options.packPixels ? "pixels packed" : "pixels one by one";
  if (options.balanceWeightless)
    variant += ", sums on the least loaded cores";
  if (options.evenSplits)
    variant += ", rows and row tiles split evenly";
  return "layer stages, " + variant + copied;
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
/// LocalMemory: with rows dealt out to copies in turn; AssembledInPlace:
/// with looping programs' buffers assembled where the pieces arrive.
enum class Misfit { None, Crossbars, LocalMemory, AssembledInPlace };

namespace {
/// One compile's context and the model imported and canonicalized in it,
/// once: each attempt of the later stages (a copy budget, a way of dealing
/// the rows) runs on a clone, until scheduling has placed the weights.
class Compilation {
public:
  Compilation(const CompileOptions &options, const Arch &arch);
  /// Goes on from `earlier`, whose canonicalized model is gone: its stages
  /// and attempts count.
  void continueFrom(Compilation &earlier) {
    for (llvm::json::Value &stage : earlier.stages)
      stages.push_back(std::move(stage));
    attempts = earlier.attempts;
    samples = earlier.samples;
  }
  /// Imports and canonicalizes; false when the IR asked for was printed.
  llvm::Expected<bool> prepare(const frontend::Model *preloaded);
  /// Whether another attempt can start from the canonicalized model.
  bool canRetry() const { return canonical && canonical->kept(); }
  /// The stages after canonicalization, with the plan options of `fitting`;
  /// sets `misfit` when scheduling found no core with room for some
  /// weights, or a core's buffers overflowed its local memory with rows
  /// dealt out to copies or assembled in place. The report counts the
  /// compile time from `started`.
  llvm::Expected<Object> attempt(const CompileOptions &fitting,
                                 std::chrono::steady_clock::time_point started,
                                 Misfit &misfit);

private:
  /// Runs a stage's passes on `module`.
  llvm::Error runStage(StringRef stage, const CompileOptions &fitting, ModuleOp module,
                       Misfit &misfit);
  /// Records the stage that just ran, and says so.
  void finishStage(StringRef stage, ModuleOp module, StringRef note = "");
  /// Prints `module` if it is the IR asked for.
  bool dumpIfAsked(StringRef stage, ModuleOp module);

  const CompileOptions &options;
  const Arch &arch;
  std::unique_ptr<MLIRContext> context;
  // Diagnostics name the model node (the importer's locations) they are about.
  std::string diagnostics;
  bool reportedError = false;
  std::optional<ScopedDiagnosticHandler> handler;
  // MLIR's --mlir-timing, one timer per stage, reported when the compile ends.
  DefaultTimingManager stageTimers;
  TimingScope timingRoot;
  Array stages;
  std::chrono::steady_clock::time_point stageStart;
  Array packed; // the convolutions onnx-pack-pixels made
  int64_t samples = 1; // of one inference: the model's batch
  // The batch's samples run one by one through the program of one sample,
  // or (for `togetherWhy`) together in the program of the batch.
  bool oneByOne = false;
  std::string togetherWhy;
  std::optional<KeptModule> canonical;
  int attempts = 0;
};
} // namespace

Compilation::Compilation(const CompileOptions &options, const Arch &arch)
    : options(options), arch(arch) {
  DialectRegistry registry;
  registerAllDialects(registry);
  context = std::make_unique<MLIRContext>(registry);
  context->loadAllAvailableDialects();
  context->disableMultithreading();
  handler.emplace(context.get(), [this](Diagnostic &diag) {
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
  applyDefaultTimingManagerCLOptions(stageTimers);
  timingRoot = stageTimers.getRootScope();
}

void Compilation::finishStage(StringRef stage, ModuleOp module, StringRef note) {
  IrSize counts = irSizeOf(module);
  double seconds = secondsSince(stageStart);
  stages.push_back(Object{{"name", note.empty() ? stage.str() : (stage + " (" + note + ")").str()},
                          {"seconds", seconds},
                          {"ops", counts.ops},
                          {"values", counts.values},
                          {"peak_rss_bytes", peakRssBytes()}});
  // Candidates compiling at once say when they are done, unless verbose.
  if (!options.progressLabel.empty() && !options.verbose)
    return;
  size_t number = llvm::find(stageNames(), stage) - stageNames().begin();
  printProgress(options, llvm::formatv("[{0,2}/{1}] {2,-16} {3:f3} s{4}", number,
                                       stageNames().size() - 1, stage, seconds,
                                       note.empty() ? "" : ("  (" + note + ")").str()));
}

bool Compilation::dumpIfAsked(StringRef stage, ModuleOp module) {
  if (options.emitMlirAfter != stage)
    return false;
  OpPrintingFlags flags; // MLIR's --mlir-elide-* and friends, if given
  if (options.elideLargeConstants)
    flags.elideLargeElementsAttrs().elideLargeResourceString();
  module.print(llvm::outs(), flags);
  llvm::outs() << "\n";
  return true;
}

llvm::Error Compilation::runStage(StringRef stage, const CompileOptions &fitting,
                                  ModuleOp module, Misfit &misfit) {
  stageStart = std::chrono::steady_clock::now();
  // Once the IR is per-core programs, bufferization and the verifier run
  // core by core in parallel (and the communication order's simulations);
  // before, the context's locks cost more than threads gain.
  bool perCore = stage == "communication" || stage == "spatial-to-pim" ||
                 stage == "bufferize" || stage == "plan-memory";
  context->disableMultithreading(!perCore);
  PassManager pm(context.get());
  pm.enableVerifier(fitting.verifyEachPass || stage == pipelineStages().back());
  // MLIR's pass manager flags (--mlir-print-ir-after-all, ...), if given.
  (void)applyPassManagerCLOptions(pm);
  TimingScope stageTiming = timingRoot.nest(stage);
  if (stageTimers.isEnabled())
    pm.enableTiming(stageTiming);
  PipelineOptions pipeline;
  setPipelineOptions(pipeline, fitting);
  buildStage(pm, stage, pipeline);
  if (succeeded(pm.run(module)))
    return llvm::Error::success();
  if (module->hasAttr(spat::kOutOfCrossbarsAttr))
    misfit = Misfit::Crossbars;
  else if (stage == "plan-memory" && module->hasAttr(spat::kInterleavedRowsAttr))
    misfit = Misfit::LocalMemory;
  else if (stage == "plan-memory" && fitting.throughput && fitting.assembleInPlace)
    misfit = Misfit::AssembledInPlace;
  // Scheduling and memory planning fail only when the chip is too small;
  // the stages before them, on what they cannot lower.
  ErrorKind kind = ErrorKind::Internal;
  if (stage == "peft" || stage == "plan-memory" ||
      module->hasAttr(spat::kWeightsDoNotFitAttr))
    kind = ErrorKind::DoesNotFit;
  else if (stage == "canonicalize" || stage == "plan-windows" || stage == "onnx-to-spatial")
    kind = ErrorKind::UnsupportedModel;
  return makeError(kind, "stage '" + stage + "' failed:\n" + diagnostics);
}

llvm::Expected<bool> Compilation::prepare(const frontend::Model *preloaded) {
  stageStart = std::chrono::steady_clock::now();
  frontend::Model loadedModel;
  const frontend::Model *model = preloaded;
  if (!model) {
    llvm::Expected<frontend::Model> loaded = frontend::loadModel(options.modelPath, frontend::foldKnownNode);
    if (!loaded)
      return withKind(loaded.takeError(), ErrorKind::InvalidInput);
    loadedModel = std::move(*loaded);
    model = &loadedModel;
  }
  samples = frontend::samplesPerInference(*model);
  // A batch whose samples the model computes apart compiles as one sample.
  frontend::Model sampleModel;
  oneByOne = false;
  togetherWhy.clear();
  if (samples > 1 && options.batch == CompileOptions::Batch::Together)
    togetherWhy = "as --batch=together asks";
  else if (samples > 1) {
    llvm::Expected<frontend::Model> one = frontend::loadModel(
        options.modelPath, frontend::foldKnownNode, options.constantInputs, /*oneSample=*/true);
    llvm::Error apart = one ? frontend::checkSamplesApart(*model, *one)
                            : llvm::make_error<llvm::StringError>(
                                  "with one sample, " + llvm::toString(one.takeError()),
                                  llvm::inconvertibleErrorCode());
    if (apart) {
      togetherWhy = llvm::toString(std::move(apart));
    } else {
      sampleModel = std::move(*one);
      model = &sampleModel;
      oneByOne = true;
    }
  }
  // A model loaded here is dropped once imported: the IR owns its weights.
  llvm::Expected<OwningOpRef<ModuleOp>> imported =
      importOnnxModel(*context, *model, options.modelPath, /*irOwnsWeights=*/model != preloaded);
  if (!imported)
    return makeError(ErrorKind::UnsupportedModel,
                     llvm::toString(imported.takeError()) +
                         (diagnostics.empty() ? "" : "\n" + diagnostics));
  ModuleOp module = **imported;
  // Every stage compiles for the chip the module carries.
  setArch(module, arch);
  // The IR shares the weights now: each is freed when the passes drop it.
  loadedModel = frontend::Model();
  sampleModel = frontend::Model();
  // Imported again after an attempt: for the next one.
  std::string again = attempts ? llvm::formatv("again for try {0}", attempts + 1).str() : "";
  finishStage("import", module, again);
  if (dumpIfAsked("import", module))
    return false;
  Misfit misfit = Misfit::None;
  if (llvm::Error e = runStage("canonicalize", options, module, misfit))
    return std::move(e);
  finishStage("canonicalize", module, again);
  module.walk([&](onnx::ConvOp conv) {
    if (auto pixels = conv->getAttrOfType<IntegerAttr>(onnx::kPackedPixelsAttr))
      packed.push_back(Object{{"node", nodeName(conv.getLoc())}, {"pixels", pixels.getInt()}});
  });
  if (dumpIfAsked("canonicalize", module))
    return false;
  canonical.emplace(std::move(*imported));
  return true;
}

llvm::Expected<Object> Compilation::attempt(const CompileOptions &fitting,
                                            std::chrono::steady_clock::time_point started,
                                            Misfit &misfit) {
  ++attempts;
  diagnostics.clear();
  reportedError = false;
  OwningOpRef<ModuleOp> owned = canonical->clone();
  ModuleOp module = *owned;
  // Each attempt's stages say which attempt they belong to, and what it
  // tried, once there is more than one: "try 2, 89%" (of the crossbars for
  // the weights and their copies).
  std::string tried = llvm::formatv(
      "try {0}, {1:f0}%{2}{3}", attempts, 100 * fitting.copyBudget,
      fitting.interleaveRows == options.interleaveRows ? "" : ", consecutive rows",
      fitting.assembleInPlace == options.assembleInPlace ? "" : ", pieces copied into place");
  std::string note = attempts > 1 ? tried : "";
  size_t firstOfAttempt = stages.size();
  Object report;
  for (StringRef stage : stageNames().drop_front(2).drop_back()) {
    if (llvm::Error e = runStage(stage, fitting, module, misfit)) {
      // What the failed attempt took counts: a retry's time is the compile's.
      finishStage(stage, module, tried + ", failed");
      for (size_t i = firstOfAttempt; note.empty() && i + 1 < stages.size(); ++i) {
        Object &entry = *stages[i].getAsObject();
        entry["name"] = (*entry.getString("name") + " (" + tried + ")").str();
      }
      if (canonical->kept())
        canonical->discard(module);
      return std::move(e);
    }
    // The weights are placed: no copy budget is tried again. (A local
    // memory overflow later starts over from the model.)
    if (stage == "peft")
      canonical->release(module);
    finishStage(stage, module, note);
    if (stage == "merge") {
      report["graph"] = graphStats(module, arch);
      (*report.getObject("graph"))["packed_convolutions"] = Array(packed);
    }
    if (stage == "peft") {
      report["schedule"] = scheduleStats(module, arch);
      (*report.getObject("schedule"))["copy_budget"] = fitting.copyBudget;
    }
    if (dumpIfAsked(stage, module))
      return Object{};
  }

  stageStart = std::chrono::steady_clock::now();
  if (options.outputDir.empty())
    return fail("no output directory (-o)");
  llvm::Expected<CodeGenStats> code =
      emitPimsimArtifacts(module, arch, {options.outputDir, options.emitJson,
                                         oneByOne ? samples : 1});
  if (!code) {
    auto [kind, message] = describeError(code.takeError(), ErrorKind::Internal);
    return makeError(kind, message + (diagnostics.empty() ? "" : "\n" + diagnostics));
  }
  finishStage("codegen", module, note);
  // The weights are in the artifacts: the replay need not share memory with them.
  releaseConstantData(module);

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
      {"weight_bytes_at_weight_bits", code->weightCount * arch.weightBits / 8},
      {"crossbars_used", total.crossbars},
      {"crossbars_available", arch.coreCount * arch.matrix.xbarArrayCount},
      {"array_groups", total.groups},
      {"global_memory_bytes", code->globalMemoryBytes},
      {"max_core_memory_bytes", total.memoryBytes},
      {"core_memory_bytes", coreMemory},
      {"logical_cores", (int64_t)code->cores.size()},
      {"active_cores", activeCores},
      {"physical_cores", arch.coreCount},
      {"local_memory_bytes_per_core", arch.localMemory.memorySize}};
  // When the chip finishes: the programs replayed with its timing model.
  std::vector<sim::NodeMarks> marks;
  for (CoreCodeStats &c : code->cores)
    marks.push_back(std::move(c.nodeMarks));
  if (llvm::Error e = writeNodeMarks(options.outputDir, code->nodes, marks))
    return std::move(e);
  llvm::Expected<sim::Timing> timing =
      sim::replayTiming(options.outputDir, arch, &marks, code->nodes.size());
  if (!timing)
    return fail("the timing replay of the program failed: " +
                llvm::toString(timing.takeError()));
  report["timing"] = timingStats(*timing, code->nodes);
  Object &timingReport = *report.getObject("timing");
  timingReport["mode"] = options.throughput ? "throughput" : "latency";
  timingReport["samples_per_inference"] = samples;
  if (samples > 1)
    timingReport["batch"] = oneByOne ? Object{{"schedule", "one by one"}}
                                     : Object{{"schedule", "together"}, {"why", togetherWhy}};
  int64_t simTimeMs = 0;
  if (options.throughput) {
    // The programs looped as pimsim-nn's throughput mode loops them: the
    // first rounds fill the pipeline, the later ones give its period. A
    // pipeline of layer stages takes longer to settle (googlenet's round
    // over rounds 2-4 was 2.582 ms, over 5-8 2.68 ms; pimsim-nn counted
    // 2.69), and its programs are short.
    int64_t replayRounds = options.plan == CompileOptions::Plan::WholeChip ? 4 : 8;
    llvm::Expected<sim::Timing> looping = sim::replayTiming(
        options.outputDir, arch, &marks, code->nodes.size(), replayRounds);
    if (!looping)
      return fail("the timing replay of the looping programs failed: " +
                  llvm::toString(looping.takeError()));
    double roundNs = std::max(looping->roundNs, 1.0);
    SimulatedTime simulated = throughputSimTime(timing->latencyNs, roundNs);
    simTimeMs = simulated.simTimeMs;
    int64_t expectedCount = simulated.rounds;
    timingReport["round_ns"] = roundNs;
    timingReport["round_cores"] = roundStats(*looping, code->nodes);
    timingReport["plan"] = describePlan(fitting);
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
  report["pimc"] = pimcVersion();
  report["model"] = options.modelPath;
  report["arch"] = arch.path.empty() ? "built-in chip-144" : arch.path;
  report["compiler"] = Object{{"wall_seconds", secondsSince(started)},
                              {"peak_rss_bytes", peakRssBytes()},
                              {"stages", std::move(stages)}};
  report["validation"] = Object{{"status", "not run"}};

  if (llvm::Error e = writeJsonFile(options.outputDir, kReportFile, Object(report)))
    return std::move(e);
  // A batch compiled one by one for --batch=best is compiled together next.
  bool anotherFollows = oneByOne && options.batch == CompileOptions::Batch::Best;
  if (options.keepIrAtExit && !anotherFollows) {
    // The process ends next: tearing down the IR would only cost time.
    (void)owned.release();
    (void)context.release();
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

/// The model imported and canonicalized, then the later stages with fewer
/// weight copies while they do not fit the cores, with runs of
/// consecutive rows on each copy when dealing the rows out overflows a
/// core's local memory, and with looping programs' pieces copied into place
/// when assembling them where they arrive does.
static llvm::Expected<Object> compilePlan(const CompileOptions &options, const Arch &arch,
                                          const frontend::Model *preloaded) {
  auto started = std::chrono::steady_clock::now();
  auto compilation = std::make_unique<Compilation>(options, arch);
  llvm::Expected<bool> prepared = compilation->prepare(preloaded);
  if (!prepared || !*prepared)
    return prepared ? llvm::Expected<Object>(Object{}) : prepared.takeError();
  CompileOptions fitting = options;
  // A share of the crossbars less each time, doubling from 1%: a budget
  // fails by fragmenting the cores' last few crossbars, so the first steps
  // are small (vgg16: 90% fails, 83% fits, 22.1 ms against 25.5 at 80%).
  // With no copies at all, the weights themselves do not fit, which is the
  // error to report.
  double step = 0.01;
  while (true) {
    // Past scheduling the canonicalized model is gone: import it again.
    if (!compilation->canRetry()) {
      auto again = std::make_unique<Compilation>(options, arch);
      again->continueFrom(*compilation);
      compilation.reset(); // its IR and weights go first
      if (llvm::Expected<bool> prepared = again->prepare(preloaded); !prepared)
        return prepared.takeError();
      compilation = std::move(again);
    }
    Misfit misfit = Misfit::None;
    llvm::Expected<Object> report = compilation->attempt(fitting, started, misfit);
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
    if (misfit == Misfit::AssembledInPlace) {
      llvm::consumeError(report.takeError());
      printProgress(options, "a core's local memory overflows with its buffers assembled "
                             "where the pieces arrive: copying them into place");
      fitting.assembleInPlace = false;
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

static llvm::Expected<Object> compileCandidates(const CompileOptions &options,
                                                const Arch &arch,
                                                const frontend::Model *preloaded);
static llvm::Expected<Object> compileBatchWays(const CompileOptions &options,
                                               const Arch &arch,
                                               const frontend::Model *preloaded);

/// The SHA-256 of `text`, in hex. OpenSSL's uses the CPU's SHA extensions
/// where it has them: several times faster than LLVM's on a model's weights.
static std::string sha256Text(llvm::StringRef text) {
  uint8_t digest[EVP_MAX_MD_SIZE];
  unsigned size = 0;
  if (!EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr))
    return "";
  return llvm::toHex(llvm::ArrayRef<uint8_t>(digest, size), /*LowerCase=*/true);
}

/// The SHA-256 of a file's bytes, in hex; empty when it is not a regular
/// file, cannot be read, or `cancelled` is set meanwhile (a FIFO is never
/// opened). Read a chunk at a time: a compile that failed at once (on a
/// file of 1 GB that is no model) does not wait for the whole file.
static std::string sha256File(const std::string &path,
                              const std::atomic<bool> *cancelled = nullptr) {
  if (llvm::Error e = checkRegularFile(path)) {
    llvm::consumeError(std::move(e));
    return "";
  }
  llvm::Expected<llvm::sys::fs::file_t> file = llvm::sys::fs::openNativeFileForRead(path);
  if (!file) {
    llvm::consumeError(file.takeError());
    return "";
  }
  auto close = llvm::make_scope_exit([&] { llvm::sys::fs::closeFile(*file); });
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                 EVP_MD_CTX_free);
  if (!context || !EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr))
    return "";
  std::vector<char> chunk(size_t(1) << 22);
  while (!(cancelled && *cancelled)) {
    llvm::Expected<size_t> read = llvm::sys::fs::readNativeFile(*file, chunk);
    if (!read) {
      llvm::consumeError(read.takeError());
      return "";
    }
    if (*read == 0) {
      uint8_t digest[EVP_MAX_MD_SIZE];
      unsigned size = 0;
      if (!EVP_DigestFinal_ex(context.get(), digest, &size))
        return "";
      return llvm::toHex(llvm::ArrayRef<uint8_t>(digest, size), /*LowerCase=*/true);
    }
    if (!EVP_DigestUpdate(context.get(), chunk.data(), *read))
      return "";
  }
  return "";
}

/// What a report was made from and by: enough to cite it and to make it
/// again.
static Object provenance(const CompileOptions &options, const Arch &arch,
                         std::string modelSha256) {
  Object model{{"path", options.modelPath}};
  if (!modelSha256.empty())
    model["sha256"] = std::move(modelSha256);
  Object archFile{{"path", arch.path.empty() ? "built-in chip-144" : arch.path}};
  archFile["sha256"] =
      arch.path.empty() ? sha256Text(Arch::builtinDefaultJson()) : sha256File(arch.path);
  if (!arch.path.empty()) {
    llvm::SmallString<256> network(llvm::sys::path::parent_path(arch.path));
    llvm::sys::path::append(network, arch.networkFile);
    archFile["network_file"] = arch.networkFile;
    archFile["network_sha256"] = sha256File(network.str().str());
  }
  return Object{
      {"pimc_version", pimcVersion()},
      {"pimc_commit", pimcCommit()},
      {"command_line", options.commandLine},
      {"model", std::move(model)},
      {"arch", std::move(archFile)},
      {"chip", Object{{"cores", arch.coreCount},
                      {"mesh_rows", arch.layoutRows},
                      {"mesh_cols", arch.layoutCols},
                      {"crossbars_per_core", arch.matrix.xbarArrayCount},
                      {"xbar_rows", arch.matrix.xbarRows},
                      {"xbar_cols", arch.matrix.xbarCols},
                      {"cell_bits", arch.matrix.cellPrecision},
                      {"weight_bits", arch.weightBits},
                      {"input_bits", arch.inputBits},
                      {"output_bits", arch.outputBits},
                      {"local_memory_bytes", arch.localMemory.memorySize},
                      {"core_period_ns", arch.corePeriod}}}};
}

/// compileModel, writing into options.outputDir as it is: the programs, then
/// the report with its provenance.
static llvm::Expected<Object> compileInto(const CompileOptions &options,
                                          const frontend::Model *preloaded) {
  if (!options.emitMlirAfter.empty() &&
      !llvm::is_contained(stageNames(), options.emitMlirAfter))
    return makeError(ErrorKind::Usage, "unknown stage '" + options.emitMlirAfter +
                                           "' (stages: " + llvm::join(stageNames(), ", ") +
                                           ")");
  // Read once: every candidate, and the report's provenance, use it.
  llvm::Expected<Arch> arch = Arch::loadOrDefault(options.archPath);
  if (!arch)
    return withKind(arch.takeError(), ErrorKind::InvalidInput);
  // The model's hash is taken while it compiles: it reads the file again.
  std::atomic<bool> hashNotNeeded = false;
  std::future<std::string> modelSha256;
  if (options.emitMlirAfter.empty() && !options.modelPath.empty())
    modelSha256 = std::async(std::launch::async,
                             [&] { return sha256File(options.modelPath, &hashNotNeeded); });
  llvm::Expected<Object> report = compileBatchWays(options, *arch, preloaded);
  if (!report || !options.emitMlirAfter.empty()) {
    hashNotNeeded = true;
    return report;
  }
  (*report)["schema_version"] = kReportSchemaVersion;
  (*report)["provenance"] =
      provenance(options, *arch, modelSha256.valid() ? modelSha256.get() : "");
  if (llvm::Error e = writeJsonFile(options.outputDir, kReportFile, Object(*report)))
    return std::move(e);
  // The views asked for go with the program, so that a later compile into
  // the directory replaces them too.
  if (options.csv)
    if (llvm::Error e = writeCsvTables(*report, options.outputDir))
      return withKind(std::move(e), ErrorKind::InvalidInput);
  if (options.trace) {
    llvm::Expected<ProgramTimeline> timeline = replayTimeline(options.outputDir);
    if (!timeline)
      return withKind(timeline.takeError(), ErrorKind::Internal);
    if (llvm::Error e = writeTrace(*timeline, join(options.outputDir, kTraceFile)))
      return withKind(std::move(e), ErrorKind::InvalidInput);
  }
  return report;
}

/// A throughput-mode report's time a round as pimsim-nn counts it (sim_time
/// over the rounds done in it, the fill included).
static double countedSampleNs(const Object &report) {
  return report.getObject("timing")->getNumber("counted_sample_ns").value_or(0);
}

/// compileCandidates with the batch's samples one by one, and for a batch
/// whose samples the model computes apart also together, keeping the
/// faster: the batch done first in latency mode, the most samples pimsim-nn
/// counts in throughput mode.
static llvm::Expected<Object> compileBatchWays(const CompileOptions &options,
                                               const Arch &arch,
                                               const frontend::Model *preloaded) {
  using Batch = CompileOptions::Batch;
  if (options.batch != Batch::Best || !options.emitMlirAfter.empty())
    return compileCandidates(options, arch, preloaded);
  // One by one first (Best compiles as OneByOne does), then together if
  // the samples are apart.
  auto started = std::chrono::steady_clock::now();
  llvm::Expected<Object> first = compileCandidates(options, arch, preloaded);
  if (!first)
    return first;
  const Object *way = first->getObject("timing")->getObject("batch");
  if (!way || way->getString("schedule") != "one by one")
    return first;
  auto cost = [&](const Object &report) {
    return options.throughput
               ? countedSampleNs(report)
               : report.getObject("timing")->getNumber("latency_ns").value_or(0);
  };
  printProgress(options, "the model computes the batch's samples apart: compiling the "
                         "batch as one program too, to keep the faster");
  CompileOptions together = options;
  together.batch = Batch::Together;
  together.outputDir = join(options.outputDir, "together");
  together.progressLabel = "batch together";
  llvm::Expected<Object> second = compileCandidates(together, arch, preloaded);
  // What was tried, in the report of the one kept.
  Array tried{Object{{"schedule", "one by one"}, {"cost_ns", cost(*first)}}};
  if (second)
    tried.push_back(Object{{"schedule", "together"}, {"cost_ns", cost(*second)}});
  else
    tried.push_back(Object{{"schedule", "together"},
                           {"error", oneLine(describeError(second.takeError(),
                                                           ErrorKind::Internal)
                                                 .second)}});
  bool keepTogether = second && cost(*second) < cost(*first);
  printProgress(options, llvm::formatv("the batch as one program {0} after {1:f1} s: keeping "
                                       "the samples {2}",
                                       second ? "compiled" : "does not compile",
                                       secondsSince(started),
                                       keepTogether ? "together" : "one by one"));
  Object report = keepTogether ? std::move(*second) : std::move(*first);
  Object &batch = *report.getObject("timing")->getObject("batch");
  if (keepTogether)
    batch["why"] = options.throughput ? "pimsim-nn counts more samples of it"
                                      : "it finishes the batch first";
  batch["tried"] = std::move(tried);
  (*report.getObject("compiler"))["wall_seconds"] = secondsSince(started);
  if (keepTogether) {
    if (llvm::Error e = moveArtifacts(together.outputDir, options.outputDir))
      return std::move(e);
  } else if (std::error_code ec = llvm::sys::fs::remove_directories(together.outputDir)) {
    return llvm::createStringError(ec, "cannot remove '" + together.outputDir + "'");
  }
  if (llvm::Error e = writeJsonFile(options.outputDir, kReportFile, Object(report)))
    return std::move(e);
  return report;
}

/// compilePlan, or in throughput mode (for the best plan) every candidate,
/// keeping the fastest.
static llvm::Expected<Object> compileCandidates(const CompileOptions &options,
                                                const Arch &arch,
                                                const frontend::Model *preloaded) {
  using Plan = CompileOptions::Plan;
  if (!options.throughput || options.plan == Plan::WholeChip || !options.emitMlirAfter.empty())
    return compilePlan(options, arch, preloaded);
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
    ErrorKind kind = ErrorKind::Internal;
  };
  std::vector<Result> results(candidates.size());
  // A model that is not there fails every candidate alike: say so once.
  // (Each loads the model itself: held across all of them, alexnet's
  // weights raised the peak memory by 42%.)
  if (!preloaded && !llvm::sys::fs::exists(options.modelPath))
    return makeError(ErrorKind::InvalidInput, "cannot open model '" + options.modelPath + "'");
  // The candidates are independent compiles with contexts of their own: as
  // many run at once as asked, the whole chip (the longest) first.
  unsigned jobs =
      options.jobs ? options.jobs : llvm::hardware_concurrency().compute_thread_count();
  size_t workers = std::clamp<size_t>(jobs, 1, candidates.size());
  printProgress(options, llvm::formatv("compiling {0} candidates, {1} at a time",
                                       candidates.size(), workers));
  std::atomic<size_t> finished = 0;
  auto compileCandidate = [&](size_t i) {
    CompileOptions &candidate = candidates[i];
    candidate.outputDir = join(options.outputDir, "candidate" + std::to_string(i));
    candidate.progressLabel = describePlan(candidate);
    // Only the last compile's IR may stay allocated at exit, and only when
    // no other runs on after it.
    candidate.keepIrAtExit = options.keepIrAtExit && workers == 1 && i + 1 == candidates.size();
    llvm::Expected<Object> report = compilePlan(candidate, arch, preloaded);
    if (!report) {
      // A candidate that does not compile (a core's local memory overflows,
      // say) leaves the others.
      std::tie(results[i].kind, results[i].error) =
          describeError(report.takeError(), ErrorKind::Internal);
      printProgress(candidate, llvm::formatv("[{0}/{1}] does not compile: {2}", ++finished,
                                             candidates.size(), oneLine(results[i].error)));
      llvm::sys::fs::remove_directories(candidate.outputDir);
      return;
    }
    printProgress(candidate,
                  llvm::formatv("[{0}/{1}] compiled after {2:f1} s: {3:f1} samples/s with the fill",
                                ++finished, candidates.size(), secondsSince(started),
                                1e9 / countedSampleNs(*report)));
    results[i].report = std::move(*report);
  };
  llvm::DefaultThreadPool pool(llvm::hardware_concurrency(workers));
  for (size_t i = 0; i < candidates.size(); ++i)
    pool.async([&, i] { compileCandidate(i); });
  pool.wait();
  int best = -1;
  for (size_t i = 0; i < candidates.size(); ++i)
    if (results[i].report &&
        (best < 0 ||
         countedSampleNs(*results[i].report) < countedSampleNs(*results[best].report)))
      best = i;
  if (best < 0)
    return makeError(results.front().kind, results.front().error);
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
      entry["counted_sample_ns"] = countedSampleNs(*own);
    } else {
      entry["error"] = oneLine(results[i].error);
    }
    compiled.push_back(std::move(entry));
    if (candidates[i].plan == candidates[best].plan)
      continue;
    if (results[i].report && (other < 0 || countedSampleNs(*results[i].report) <
                                               countedSampleNs(*results[other].report)))
      other = i;
    else if (!results[i].report && otherError.empty())
      otherError = results[i].error;
  }
  timing["candidates"] = std::move(compiled);
  if (other >= 0) {
    timing["other_plan_round_ns"] =
        results[other].report->getObject("timing")->getNumber("round_ns").value_or(0);
    timing["other_plan_counted_sample_ns"] = countedSampleNs(*results[other].report);
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
  // moved in when complete. A directory pimc cannot use is the user's to
  // fix, not pimc's bug.
  llvm::Expected<std::unique_ptr<OutputDirectory>> out = OutputDirectory::open(options.outputDir);
  if (!out)
    return withKind(out.takeError(), ErrorKind::InvalidInput);
  CompileOptions staged = options;
  staged.outputDir = (*out)->staging().str();
  llvm::Expected<Object> report = compileInto(staged, preloaded);
  if (!report) {
    // The files that failed are told by the names they would have had.
    auto [kind, message] = describeError(report.takeError(), ErrorKind::Internal);
    for (size_t at; (at = message.find(staged.outputDir)) != std::string::npos;)
      message.replace(at, staged.outputDir.size(), options.outputDir);
    return makeError(kind, message);
  }
  if (llvm::Error e = (*out)->commit())
    return withKind(std::move(e), ErrorKind::InvalidInput);
  return report;
}
