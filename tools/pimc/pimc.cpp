//===- pimc.cpp - the pimc command line -----------------------------------===//
//
//   pimc compile [MODEL.onnx] [--arch ARCH.json] -o OUT/    artifacts + report
//   pimc simulate OUT/ --inputs DIR [--outputs DIR]         functional simulation
//   pimc validate CASE/ [--arch ARCH.json] [-o OUT/]        compile + simulate + compare
//   pimc report OUT/ [--html] [--csv] [--trace]             the report as text, a page, tables
//   pimc compare BEFORE.json AFTER.json [MORE.json ...]     the stop rule, or a table
//   pimc arch [--cores N] [--mesh RxC] ... -o ARCH.json     an architecture file
//
// The exit status says what failed (pimc/Support/ExitCodes.h).
//
//===----------------------------------------------------------------------===//

#include "pimc/Arch/Arch.h"
#include "pimc/Arch/ChipGenerator.h"
#include "pimc/Driver/Driver.h"
#include "pimc/Driver/Views.h"
#include "pimc/Support/ExitCodes.h"
#include "pimc/Support/Version.h"
#include "pimc/Simulator/Simulator.h"
#include "pimc/Simulator/Timing.h"
#include "pimc/Support/InputLimits.h"
#include "pimc/Target/Pimsim/Artifacts.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <csignal>

using namespace pimc;
namespace cl = llvm::cl;

// pimc's own options and MLIR's of compile; --help hides LLVM's.
static cl::OptionCategory pimcOptions("pimc options");
static cl::OptionCategory mlirOptions("MLIR options (compile, validate)");

static cl::SubCommand compileCommand("compile", "Compile an ONNX model for pimsim-nn");
static cl::SubCommand simulateCommand("simulate",
                                      "Run compiled artifacts on the functional simulator");
static cl::SubCommand validateCommand(
    "validate", "Compile, simulate and compare a test case (ONNX backend-test layout)");
static cl::SubCommand reportCommand("report", "Print the report of a compiled program");
static cl::SubCommand compareCommand(
    "compare", "Compare the runtime proxies of two reports (fails if any got worse), or "
               "tabulate those of several");
static cl::SubCommand archCommand(
    "arch", "Write an architecture file and its network file: a reference chip with a few "
            "parameters changed");

static cl::opt<std::string> modelPath(cl::Positional,
                                      cl::desc("[MODEL.onnx] (default: the bundled MLP)"),
                                      cl::sub(compileCommand), cl::cat(pimcOptions));
static cl::opt<std::string> archPath("arch",
                                     cl::desc("pimsim-nn architecture file (default: "
                                              "the built-in 144-core chip)"),
                                     cl::sub(compileCommand), cl::sub(validateCommand), cl::cat(pimcOptions));
static cl::opt<std::string> outputDir("o", cl::desc("output directory"),
                                      cl::value_desc("OUT"), cl::sub(compileCommand),
                                      cl::sub(validateCommand), cl::cat(pimcOptions));
static cl::opt<std::string> emit("emit", cl::desc("json: also write core_<id>.json"),
                                 cl::sub(compileCommand), cl::cat(pimcOptions));
static cl::opt<std::string> emitMlir("emit-mlir",
                                     cl::desc("print the IR after a stage and stop"),
                                     cl::value_desc("STAGE"), cl::sub(compileCommand), cl::cat(pimcOptions));
static cl::opt<std::string> mode("mode",
                                 cl::desc("latency (the default: one inference) or throughput "
                                          "(the programs loop in pimsim-nn's throughput mode)"),
                                 cl::init("latency"), cl::sub(compileCommand),
                                 cl::sub(validateCommand), cl::cat(pimcOptions));
static cl::opt<std::string> plan(
    "plan",
    cl::desc("throughput mode: stages (a pipeline of layer stages), whole-chip (every core on "
             "every layer) or best (the default: compile both, keep the one pimsim-nn counts more "
             "samples of)"),
    cl::init("best"), cl::sub(compileCommand), cl::sub(validateCommand), cl::cat(pimcOptions));
static cl::opt<double> copyBudget(
    "copy-budget",
    cl::desc("the share of the crossbars weights and their copies may take (default 0.9; "
             "less each time the copies do not fit the cores: 1%, then 2%, 4%, ...)"),
    cl::init(0.9), cl::sub(compileCommand), cl::sub(validateCommand), cl::cat(pimcOptions));
static cl::opt<std::string> batch(
    "batch",
    cl::desc("a model's batch of samples: one-by-one (the program of one sample, run once a "
             "sample, when the model computes the samples apart), together (one program for the "
             "whole batch) or best (the default: compile both, keep the faster)"),
    cl::init("best"), cl::sub(compileCommand), cl::sub(validateCommand),
    cl::cat(pimcOptions));
static cl::opt<unsigned> jobs(
    "jobs",
    cl::desc("throughput mode: how many candidate plans compile at once (default: as many as "
             "the machine has cores; each holds its own IR)"),
    cl::init(0), cl::sub(compileCommand), cl::sub(validateCommand), cl::cat(pimcOptions));
static cl::opt<bool> quiet("q", cl::desc("no progress lines on stderr"),
                           cl::sub(compileCommand), cl::cat(pimcOptions));
static cl::opt<bool> verbose(
    "verbose",
    cl::desc("every stage's progress line: of each candidate of throughput mode (which "
             "otherwise print one line each when done), and of validate's compile"),
    cl::sub(compileCommand), cl::sub(validateCommand), cl::cat(pimcOptions));
static cl::opt<bool> verifyEach(
    "verify-each",
    cl::desc("verify the IR after every pass, not only after the last stage (slower: for "
             "developing pimc)"),
    cl::sub(compileCommand), cl::sub(validateCommand), cl::cat(pimcOptions));
static cl::opt<bool> keep("keep",
                          cl::desc("without -o: keep the temporary directory (and say where)"),
                          cl::sub(validateCommand), cl::cat(pimcOptions));
static cl::opt<bool> trace("trace",
                           cl::desc("write OUT/trace.json, the timing replay as a Chrome "
                                    "trace-event file (Perfetto UI, chrome://tracing)"),
                           cl::sub(compileCommand), cl::sub(simulateCommand),
                           cl::sub(reportCommand), cl::cat(pimcOptions));
static cl::opt<bool> csv("csv", cl::desc("write OUT/layers.csv, cores.csv and stages.csv"),
                         cl::sub(compileCommand), cl::sub(reportCommand), cl::cat(pimcOptions));
static cl::opt<std::string> html("html",
                                 cl::desc("write the report as one self-contained HTML page "
                                          "(default OUT/report.html)"),
                                 cl::ValueOptional, cl::value_desc("FILE"),
                                 cl::sub(reportCommand), cl::cat(pimcOptions));
static cl::opt<std::string> pimsimLog(
    "pimsim-log",
    cl::desc("pimsim-nn's output for this directory (ChipTest OUT OUT/arch.json): its "
             "figures go into report.json, as the ones to cite"),
    cl::value_desc("LOG"), cl::sub(reportCommand), cl::cat(pimcOptions));
static cl::opt<bool> force("force",
                           cl::desc("compare reports of different modes, models or chips"),
                           cl::sub(compareCommand), cl::cat(pimcOptions));
static cl::opt<bool> table("table",
                           cl::desc("print one Markdown table of the reports' runtime proxies "
                                    "(the default for more than two reports)"),
                           cl::sub(compareCommand), cl::cat(pimcOptions));

static cl::opt<std::string> programDir(cl::Positional, cl::desc("OUT/"), cl::Required,
                                       cl::sub(simulateCommand), cl::sub(reportCommand), cl::cat(pimcOptions));
static cl::opt<std::string> inputsDir("inputs", cl::desc("directory of input_K.pb"),
                                      cl::Required, cl::sub(simulateCommand), cl::cat(pimcOptions));
static cl::opt<std::string> outputsDir("outputs",
                                       cl::desc("directory for output_K.pb (default: "
                                                "the inputs directory's sibling "
                                                "OUT/outputs)"),
                                       cl::sub(simulateCommand), cl::cat(pimcOptions));

static cl::opt<std::string> casePath(cl::Positional, cl::desc("CASE/"), cl::Required,
                                     cl::sub(validateCommand), cl::cat(pimcOptions));
static cl::opt<double> relativeTolerance("rtol", cl::desc("relative tolerance"), cl::init(1e-3),
                            cl::sub(validateCommand), cl::cat(pimcOptions));
static cl::opt<double> absoluteTolerance("atol", cl::desc("absolute tolerance"), cl::init(1e-4),
                            cl::sub(validateCommand), cl::cat(pimcOptions));

static cl::list<std::string> reports(cl::Positional,
                                     cl::desc("BEFORE.json AFTER.json, or REPORT ... with --table"),
                                     cl::OneOrMore, cl::sub(compareCommand), cl::cat(pimcOptions));

static cl::opt<std::string> archOutput("o",
                                       cl::desc("the architecture file to write (its network "
                                                "file goes beside it)"),
                                       cl::value_desc("ARCH.json"), cl::Required,
                                       cl::sub(archCommand), cl::cat(pimcOptions));
static cl::opt<std::string> archReference(
    "from", cl::desc("the reference architecture file (default: the built-in 144-core chip)"),
    cl::value_desc("ARCH.json"), cl::sub(archCommand), cl::cat(pimcOptions));
static cl::opt<int64_t> archCores("cores",
                                  cl::desc("cores (on the squarest mesh, unless --mesh)"),
                                  cl::sub(archCommand), cl::cat(pimcOptions));
static cl::opt<std::string> archMesh("mesh", cl::desc("the mesh, rows x columns"),
                                     cl::value_desc("RxC"), cl::sub(archCommand),
                                     cl::cat(pimcOptions));
static cl::opt<int64_t> archCrossbars("crossbars", cl::desc("crossbars per core"),
                                      cl::sub(archCommand), cl::cat(pimcOptions));
static cl::opt<std::string> archCrossbarSize(
    "crossbar-size",
    cl::desc("rows x columns of a crossbar (N for square); DACs and ADCs scale with it"),
    cl::value_desc("RxC"), cl::sub(archCommand), cl::cat(pimcOptions));
static cl::opt<int64_t> archCellBits("cell-bits", cl::desc("bits per crossbar cell"),
                                     cl::sub(archCommand), cl::cat(pimcOptions));
static cl::opt<std::string> archLocalMemory(
    "local-memory", cl::desc("bytes of local memory per core (suffix K, KiB, M or MiB)"),
    cl::value_desc("BYTES"), cl::sub(archCommand), cl::cat(pimcOptions));
static cl::opt<int64_t> archInputBits("input-bits", cl::desc("input element bits"),
                                      cl::sub(archCommand), cl::cat(pimcOptions));
static cl::opt<int64_t> archOutputBits("output-bits", cl::desc("output element bits"),
                                       cl::sub(archCommand), cl::cat(pimcOptions));
static cl::opt<int64_t> archWeightBits("weight-bits", cl::desc("weight bits"),
                                       cl::sub(archCommand), cl::cat(pimcOptions));
static cl::opt<std::string> archMode("mode",
                                     cl::desc("latency (sim_mode 1) or throughput (0); "
                                              "pimc compile sets it anyway"),
                                     cl::sub(archCommand), cl::cat(pimcOptions));

static int error(ErrorKind kind, const llvm::Twine &message) {
  llvm::errs() << "pimc: error: " << message << "\n";
  return static_cast<int>(kind);
}

/// Reports `e`; its kind is the exit status, `fallback` if it has none.
static int error(llvm::Error e, ErrorKind fallback) {
  auto [kind, message] = describeError(std::move(e), fallback);
  return error(kind, message);
}

/// An input that cannot be read.
static int error(const llvm::Twine &message) { return error(ErrorKind::InvalidInput, message); }

static int usageError(const llvm::Twine &message) { return error(ErrorKind::Usage, message); }

static bool knownMode() { return mode == "latency" || mode == "throughput"; }

/// The --plan option's value, or nothing when it names no plan.
static std::optional<CompileOptions::Plan> planOption() {
  using Plan = CompileOptions::Plan;
  return llvm::StringSwitch<std::optional<Plan>>(plan)
      .Case("best", Plan::Best)
      .Case("stages", Plan::LayerStages)
      .Case("whole-chip", Plan::WholeChip)
      .Default(std::nullopt);
}

/// The --batch option's value, or nothing when it names no way.
static std::optional<CompileOptions::Batch> batchOption() {
  using Batch = CompileOptions::Batch;
  return llvm::StringSwitch<std::optional<Batch>>(batch)
      .Case("best", Batch::Best)
      .Case("one-by-one", Batch::OneByOne)
      .Case("together", Batch::Together)
      .Default(std::nullopt);
}

/// Checks the options compile and validate share; returns an error message.
static std::optional<std::string> checkCompileOptions() {
  if (!knownMode())
    return "--mode=" + mode + " is not supported (modes: latency, throughput)";
  if (!planOption())
    return "--plan=" + plan + " is not supported (plans: best, stages, whole-chip)";
  if (!batchOption())
    return "--batch=" + batch + " is not supported (ways: best, one-by-one, together)";
  if (plan != "best" && mode != "throughput")
    return std::string("--plan applies to --mode=throughput only");
  // Written so that NaN fails too.
  if (!(copyBudget > 0 && copyBudget <= 1))
    return std::string("--copy-budget takes a share of the crossbars in (0, 1]");
  if (jobs.getNumOccurrences() && jobs == 0)
    return std::string("--jobs takes at least 1");
  return std::nullopt;
}

/// The command line as typed, for the report.
static std::string commandLine;

/// Writes the trace of the program in `directory` as `directory`/trace.json.
static int writeTraceOf(llvm::StringRef directory) {
  llvm::Expected<ProgramTimeline> timeline = replayTimeline(directory);
  if (!timeline)
    return error(llvm::toString(timeline.takeError()));
  std::string path = join(directory, kTraceFile);
  if (llvm::Error e = writeProgramViews(directory, {kTraceFile},
                                        [&] { return writeTrace(*timeline, path); }))
    return error(llvm::toString(std::move(e)));
  llvm::outs() << "wrote " << path << "\n";
  return 0;
}

/// The bundled MLP, where it is relative to this binary: the build tree
/// and the installed tree both have it in ../share/pimc.
static std::string defaultModelPath(const char *argv0) {
  std::string binary = llvm::sys::fs::getMainExecutable(argv0, (void *)&defaultModelPath);
  llvm::SmallString<256> path(llvm::sys::path::parent_path(llvm::sys::path::parent_path(binary)));
  llvm::sys::path::append(path, PIMC_DATA_DIR, PIMC_DEFAULT_MODEL);
  return path.str().str();
}

/// Whether the user gave MLIR's option `name` (of the compile subcommand).
static bool givenMlirOption(llvm::StringRef name) {
  auto &options = cl::getRegisteredOptions(compileCommand);
  auto it = options.find(name);
  return it != options.end() && it->second->getNumOccurrences() > 0;
}

static int runCompile(const char *argv0) {
  if (std::optional<std::string> message = checkCompileOptions())
    return usageError(*message);
  CompileOptions options;
  options.commandLine = commandLine;
  options.throughput = mode == "throughput";
  options.plan = *planOption();
  options.copyBudget = copyBudget;
  options.batch = *batchOption();
  options.jobs = jobs;
  options.modelPath = modelPath.empty() ? defaultModelPath(argv0) : modelPath.getValue();
  options.keepIrAtExit = true;
  options.archPath = archPath;
  options.outputDir = outputDir;
  options.emitJson = emit == "json";
  options.trace = trace;
  options.csv = csv;
  if (!emit.empty() && emit != "json")
    return usageError("--emit takes 'json'");
  options.emitMlirAfter = emitMlir;
  options.elideLargeConstants = !givenMlirOption("mlir-elide-elementsattrs-if-larger") &&
                                !givenMlirOption("mlir-elide-resource-strings-if-larger");
  options.progress = !quiet && emitMlir.empty();
  options.verbose = verbose;
  options.verifyEachPass = verifyEach;
  if (options.outputDir.empty() && options.emitMlirAfter.empty())
    return usageError("give an output directory with -o");
  llvm::Expected<llvm::json::Object> report = compileModel(options);
  if (!report)
    return error(report.takeError(), ErrorKind::Internal);
  if (!options.emitMlirAfter.empty())
    return 0;
  printReport(*report, llvm::outs());
  llvm::outs() << "wrote " << options.outputDir << "\n";
  return 0;
}

static int runSimulate() {
  llvm::Expected<Manifest> manifest = Manifest::read(programDir);
  if (!manifest)
    return error(llvm::toString(manifest.takeError()));
  llvm::Expected<std::vector<frontend::TensorData>> inputs =
      readInputs(inputsDir, manifest->inputs.size());
  if (!inputs)
    return error(llvm::toString(inputs.takeError()));
  llvm::Expected<sim::Result> result = sim::simulate(programDir, *inputs);
  if (!result)
    return error(llvm::toString(result.takeError()));
  std::string out = outputsDir;
  if (out.empty()) {
    llvm::SmallString<256> path(programDir);
    llvm::sys::path::append(path, "outputs");
    out = path.str().str();
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(out))
    return error("cannot create '" + out + "': " + ec.message());
  for (auto [k, tensor] : llvm::enumerate(result->outputs)) {
    llvm::SmallString<256> path(out);
    llvm::sys::path::append(path, llvm::formatv("output_{0}.pb", k).str());
    if (llvm::Error e = frontend::writeTensorFile(path, tensor))
      return error(llvm::toString(std::move(e)));
    llvm::outs() << "wrote " << path << "\n";
  }
  llvm::outs() << result->executed << " instructions executed\n";
  // The chip's time for it, from the architecture file written beside it.
  llvm::SmallString<256> archPath(programDir);
  llvm::sys::path::append(archPath, "arch.json");
  llvm::Expected<Arch> arch = Arch::load(archPath);
  if (!arch)
    return error(llvm::toString(arch.takeError()));
  llvm::Expected<sim::Timing> timing = sim::replayTiming(programDir, *arch);
  if (!timing)
    return error(llvm::toString(timing.takeError()));
  llvm::outs() << llvm::formatv("latency {0} on the chip (timing replay)\n",
                                formatTime(timing->latencyNs));
  return trace ? writeTraceOf(programDir) : 0;
}

static int runValidate() {
  if (std::optional<std::string> message = checkCompileOptions())
    return usageError(*message);
  for (const cl::opt<double> *tolerance : {&relativeTolerance, &absoluteTolerance})
    if (!(*tolerance >= 0 && std::isfinite(*tolerance)))
      return usageError("--" + tolerance->ArgStr + " takes a finite number of at least 0");
  ValidateOptions options;
  options.throughput = mode == "throughput";
  options.plan = *planOption();
  options.copyBudget = copyBudget;
  options.batch = *batchOption();
  options.jobs = jobs;
  options.casePath = casePath;
  options.commandLine = commandLine;
  options.archPath = archPath;
  options.outputDir = outputDir;
  options.rtol = relativeTolerance;
  options.atol = absoluteTolerance;
  options.keepOutput = keep;
  options.progress = verbose;
  options.verbose = verbose;
  options.verifyEachPass = verifyEach;
  llvm::Expected<bool> ok = validateCase(options, llvm::outs());
  if (!ok)
    return error(ok.takeError(), ErrorKind::InvalidInput);
  return *ok ? 0 : static_cast<int>(ErrorKind::CheckFailed);
}

static int runReport() {
  llvm::Expected<llvm::json::Object> report =
      pimsimLog.empty() ? readReport(programDir) : recordPimsimLog(programDir, pimsimLog);
  if (!report)
    return error(llvm::toString(report.takeError()));
  printReport(*report, llvm::outs());
  if (csv) {
    std::vector<std::string> tables(std::begin(kCsvFiles), std::end(kCsvFiles));
    if (llvm::Error e = writeProgramViews(programDir, tables, [&] {
          return writeCsvTables(*report, programDir);
        }))
      return error(llvm::toString(std::move(e)));
    llvm::outs() << "wrote " << programDir << "/layers.csv, cores.csv, stages.csv\n";
  }
  if (html.getNumOccurrences()) {
    std::string path = html.empty() ? join(programDir, kHtmlFile) : html.getValue();
    // A page in the program's directory goes with the program.
    llvm::StringRef parent = llvm::sys::path::parent_path(path);
    bool inProgram = false;
    if (llvm::sys::fs::equivalent(parent.empty() ? "." : parent, programDir, inProgram))
      inProgram = false;
    std::string name = llvm::sys::path::filename(path).str();
    if (inProgram && name != kHtmlFile && isArtifactName(name))
      return usageError("--html=" + path + " would replace a file of the program");
    llvm::Expected<ProgramTimeline> timeline = replayTimeline(programDir);
    if (!timeline)
      return error(llvm::toString(timeline.takeError()));
    auto writePage = [&] { return writeHtmlReport(*report, *timeline, path); };
    if (llvm::Error e = inProgram ? writeProgramViews(programDir, {name}, writePage)
                                  : writePage())
      return error(llvm::toString(std::move(e)));
    llvm::outs() << "wrote " << path << "\n";
  }
  return trace ? writeTraceOf(programDir) : 0;
}

static int runCompare() {
  std::vector<std::pair<std::string, llvm::json::Object>> read;
  for (const std::string &path : reports) {
    llvm::Expected<llvm::json::Object> report = readReport(path);
    if (!report)
      return error(llvm::toString(report.takeError()));
    read.push_back({path, std::move(*report)});
  }
  if (table || read.size() > 2) {
    printProxyTable(read, llvm::outs());
    return 0;
  }
  if (read.size() != 2)
    return usageError("compare takes two reports (or several with --table)");
  const llvm::json::Object &before = read[0].second, &after = read[1].second;
  if (std::optional<std::string> reason = incomparable(before, after); reason && !force)
    return usageError(*reason + ": they do not compare (--force compares them anyway)");
  int worse = compareReports(before, after, llvm::outs());
  if (worse)
    llvm::outs() << worse << " runtime proxies got worse: the change is rejected\n";
  return worse ? 1 : 0;
}

/// The value of an integer option of `pimc arch`, if given.
static std::optional<int64_t> given(const cl::opt<int64_t> &option) {
  return option.getNumOccurrences() ? std::optional<int64_t>(option) : std::nullopt;
}

static int runArch() {
  ChipParameters parameters;
  parameters.cores = given(archCores);
  parameters.crossbars = given(archCrossbars);
  parameters.cellBits = given(archCellBits);
  parameters.inputBits = given(archInputBits);
  parameters.outputBits = given(archOutputBits);
  parameters.weightBits = given(archWeightBits);
  if (!archMesh.empty()) {
    std::optional<std::pair<int64_t, int64_t>> mesh = parseShape(archMesh);
    if (!mesh || !llvm::StringRef(archMesh).contains('x'))
      return usageError("--mesh takes rows x columns, as 12x12");
    std::tie(parameters.meshRows, parameters.meshCols) = *mesh;
  }
  if (!archCrossbarSize.empty()) {
    std::optional<std::pair<int64_t, int64_t>> size = parseShape(archCrossbarSize);
    if (!size)
      return usageError("--crossbar-size takes rows x columns, as 128x128, or 128");
    std::tie(parameters.crossbarRows, parameters.crossbarCols) = *size;
  }
  if (!archLocalMemory.empty()) {
    parameters.localMemoryBytes = parseBytes(archLocalMemory);
    if (!parameters.localMemoryBytes)
      return usageError("--local-memory takes a byte count, as 1048576, 64KiB or 1MiB");
  }
  if (!archMode.empty()) {
    if (archMode != "latency" && archMode != "throughput")
      return usageError("--mode=" + archMode + " is not supported (modes: latency, throughput)");
    parameters.throughput = archMode == "throughput";
  }
  std::string referenceJson = Arch::builtinDefaultJson().str();
  std::string referenceName = "built-in chip-144";
  if (!archReference.empty()) {
    auto buffer =
        readRegularFile(archReference, /*requiresNullTerminator=*/true, Arch::kMaxFileBytes);
    if (!buffer)
      return error("cannot read architecture file '" + archReference +
                   "': " + llvm::toString(buffer.takeError()));
    referenceJson = (*buffer)->getBuffer().str();
    referenceName = archReference;
  }
  llvm::Expected<GeneratedChip> chip = generateChip(referenceJson, referenceName, parameters);
  if (!chip)
    return error(chip.takeError(), ErrorKind::Usage);
  if (llvm::Error e = writeChip(*chip, archOutput))
    return error(std::move(e), ErrorKind::InvalidInput);
  llvm::outs() << "wrote " << archOutput << " and " << chip->networkName << " beside it\n";
  return 0;
}

/// MLIR's options apply to the compile and validate subcommands (LLVM's
/// command line otherwise keeps them out of every subcommand).
static void offerMlirOptions() {
  std::vector<cl::Option *> mlir;
  for (auto &[name, option] : cl::getRegisteredOptions(cl::SubCommand::getTopLevel()))
    if (name.starts_with("mlir-"))
      mlir.push_back(option);
  for (cl::Option *option : mlir) {
    option->removeArgument();
    option->addSubCommand(compileCommand);
    option->addSubCommand(validateCommand);
    option->addCategory(mlirOptions);
    option->addArgument();
  }
}

static void printVersion(llvm::raw_ostream &os) {
  os << pimcVersion() << " (git " << pimcCommit() << ")\n"
     << "  LLVM and MLIR " << LLVM_VERSION_STRING << "\n";
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // A fatal error in LLVM or MLIR is pimc's bug: say so with the status.
  llvm::install_fatal_error_handler([](void *, const char *reason, bool) {
    llvm::errs() << "pimc: internal error: " << reason << "\n";
    std::exit(static_cast<int>(ErrorKind::Internal));
  });
  // Past a file size limit, a write fails (and is reported) instead of
  // killing pimc.
  std::signal(SIGXFSZ, SIG_IGN);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  offerMlirOptions();
  for (int i = 0; i < argc; ++i)
    commandLine += (i ? " " : "") + std::string(argv[i]);
  cl::HideUnrelatedOptions({&pimcOptions, &mlirOptions});
  cl::SetVersionPrinter(printVersion);
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "pimc: ONNX to ReRAM processing-in-memory (pimsim-nn)\n\n"
                                   "Exit status: 0 success, 1 a check failed (validate's "
                                   "outputs differ, compare's proxies got worse), 2 usage "
                                   "error, 3 unreadable or invalid input, 4 unsupported model, "
                                   "5 does not fit the chip, 6 internal error.\n",
                                   &llvm::errs()))
    return static_cast<int>(ErrorKind::Usage);
  if (compileCommand)
    return runCompile(argv[0]);
  if (simulateCommand)
    return runSimulate();
  if (validateCommand)
    return runValidate();
  if (reportCommand)
    return runReport();
  if (compareCommand)
    return runCompare();
  if (archCommand)
    return runArch();
  cl::PrintHelpMessage();
  return static_cast<int>(ErrorKind::Usage);
}
