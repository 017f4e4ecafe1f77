//===- pimc.cpp - the pimc command line -----------------------------------===//
//
//   pimc compile [MODEL.onnx] [--arch ARCH.json] -o OUT/    artifacts + report
//   pimc simulate OUT/ --inputs DIR [--outputs DIR]         functional simulation
//   pimc validate CASE/ [--arch ARCH.json] [-o OUT/]        compile + simulate + compare
//   pimc report OUT/ [--html] [--csv] [--trace]             the report as text, a page, tables
//   pimc compare BEFORE.json AFTER.json [MORE.json ...]     the stop rule, or a table
//
//===----------------------------------------------------------------------===//

#include "pimc/Driver/Driver.h"
#include "pimc/Driver/Views.h"
#include "pimc/Simulator/Simulator.h"
#include "pimc/Simulator/Timing.h"
#include "pimc/Target/Pimsim/Artifacts.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

using namespace pimc;
namespace cl = llvm::cl;

// pimc's own options; --help hides LLVM's.
static cl::OptionCategory pimcOptions("pimc options");

static cl::SubCommand compileCommand("compile", "Compile an ONNX model for pimsim-nn");
static cl::SubCommand simulateCommand("simulate",
                                      "Run compiled artifacts on the functional simulator");
static cl::SubCommand validateCommand(
    "validate", "Compile, simulate and compare a test case (ONNX backend-test layout)");
static cl::SubCommand reportCommand("report", "Print the report of a compiled program");
static cl::SubCommand compareCommand(
    "compare", "Compare the runtime proxies of two reports (fails if any got worse), or "
               "tabulate those of several");

static cl::opt<std::string> modelPath(cl::Positional, cl::desc("[MODEL.onnx]"),
                                      cl::init(PIMC_DEFAULT_MODEL),
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
static cl::opt<unsigned> jobs(
    "jobs",
    cl::desc("throughput mode: how many candidate plans compile at once (default: as many as "
             "the machine has cores; each holds its own IR)"),
    cl::init(0), cl::sub(compileCommand), cl::sub(validateCommand), cl::cat(pimcOptions));
static cl::opt<bool> quiet("q", cl::desc("no progress lines"), cl::sub(compileCommand),
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

static int error(const llvm::Twine &message) {
  llvm::errs() << "pimc: error: " << message << "\n";
  return 1;
}

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

/// Checks the options compile and validate share; returns an error message.
static std::optional<std::string> checkCompileOptions() {
  if (!knownMode())
    return "--mode=" + mode + " is not supported (modes: latency, throughput)";
  if (!planOption())
    return "--plan=" + plan + " is not supported (plans: best, stages, whole-chip)";
  if (plan != "best" && mode != "throughput")
    return std::string("--plan applies to --mode=throughput only");
  if (copyBudget <= 0 || copyBudget > 1)
    return std::string("--copy-budget takes a share of the crossbars in (0, 1]");
  return std::nullopt;
}

/// The command line as typed, for the report.
static std::string commandLine;

/// Writes the trace of the program in `directory` as `directory`/trace.json.
static int writeTraceOf(llvm::StringRef directory) {
  llvm::Expected<ProgramTimeline> timeline = replayTimeline(directory);
  if (!timeline)
    return error(llvm::toString(timeline.takeError()));
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, "trace.json");
  if (llvm::Error e = writeTrace(*timeline, path))
    return error(llvm::toString(std::move(e)));
  llvm::outs() << "wrote " << path << "\n";
  return 0;
}

static int runCompile() {
  if (std::optional<std::string> message = checkCompileOptions())
    return error(*message);
  CompileOptions options;
  options.commandLine = commandLine;
  options.throughput = mode == "throughput";
  options.plan = *planOption();
  options.copyBudget = copyBudget;
  options.jobs = jobs;
  options.modelPath = modelPath;
  options.keepIrAtExit = true;
  options.archPath = archPath;
  options.outputDir = outputDir;
  options.emitJson = emit == "json";
  if (!emit.empty() && emit != "json")
    return error("--emit takes 'json'");
  options.emitMlirAfter = emitMlir;
  options.progress = !quiet && emitMlir.empty();
  if (options.outputDir.empty() && options.emitMlirAfter.empty())
    return error("give an output directory with -o");
  llvm::Expected<llvm::json::Object> report = compileModel(options);
  if (!report)
    return error(llvm::toString(report.takeError()));
  if (!options.emitMlirAfter.empty())
    return 0;
  printReport(*report, llvm::outs());
  llvm::outs() << "wrote " << options.outputDir << "\n";
  if (csv)
    if (llvm::Error e = writeCsvTables(*report, options.outputDir))
      return error(llvm::toString(std::move(e)));
  return trace ? writeTraceOf(options.outputDir) : 0;
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
    return error(*message);
  ValidateOptions options;
  options.throughput = mode == "throughput";
  options.plan = *planOption();
  options.copyBudget = copyBudget;
  options.jobs = jobs;
  options.casePath = casePath;
  options.commandLine = commandLine;
  options.archPath = archPath;
  options.outputDir = outputDir;
  options.rtol = relativeTolerance;
  options.atol = absoluteTolerance;
  options.progress = false;
  llvm::Expected<bool> ok = validateCase(options, llvm::outs());
  if (!ok)
    return error(llvm::toString(ok.takeError()));
  return *ok ? 0 : 1;
}

static int runReport() {
  llvm::Expected<llvm::json::Object> report =
      pimsimLog.empty() ? readReport(programDir) : recordPimsimLog(programDir, pimsimLog);
  if (!report)
    return error(llvm::toString(report.takeError()));
  printReport(*report, llvm::outs());
  if (csv) {
    if (llvm::Error e = writeCsvTables(*report, programDir))
      return error(llvm::toString(std::move(e)));
    llvm::outs() << "wrote " << programDir << "/layers.csv, cores.csv, stages.csv\n";
  }
  if (html.getNumOccurrences()) {
    llvm::SmallString<256> path(html);
    if (path.empty())
      llvm::sys::path::append(path, programDir, "report.html");
    llvm::Expected<ProgramTimeline> timeline = replayTimeline(programDir);
    if (!timeline)
      return error(llvm::toString(timeline.takeError()));
    if (llvm::Error e = writeHtmlReport(*report, *timeline, path))
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
    return error("compare takes two reports (or several with --table)");
  const llvm::json::Object &before = read[0].second, &after = read[1].second;
  if (std::optional<std::string> reason = incomparable(before, after); reason && !force)
    return error(*reason + ": they do not compare (--force compares them anyway)");
  int worse = compareReports(before, after, llvm::outs());
  if (worse)
    llvm::outs() << worse << " runtime proxies got worse: the change is rejected\n";
  return worse ? 1 : 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions(pimcOptions);
  for (int i = 0; i < argc; ++i)
    commandLine += (i ? " " : "") + std::string(argv[i]);
  cl::ParseCommandLineOptions(argc, argv,
                              "pimc: ONNX to ReRAM processing-in-memory (pimsim-nn)\n");
  if (compileCommand)
    return runCompile();
  if (simulateCommand)
    return runSimulate();
  if (validateCommand)
    return runValidate();
  if (reportCommand)
    return runReport();
  if (compareCommand)
    return runCompare();
  cl::PrintHelpMessage();
  return 1;
}
