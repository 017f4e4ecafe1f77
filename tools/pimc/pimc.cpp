//===- pimc.cpp - the pimc command line -----------------------------------===//
//
//   pimc compile [MODEL.onnx] [--arch ARCH.json] -o OUT/    artifacts + report
//   pimc simulate OUT/ --inputs DIR [--outputs DIR]         functional simulation
//   pimc validate CASE/ [--arch ARCH.json] [-o OUT/]        compile + simulate + compare
//   pimc report OUT/                                        the report as text
//   pimc compare BEFORE.json AFTER.json                     the stop rule
//
//===----------------------------------------------------------------------===//

#include "pimc/Driver/Driver.h"
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

#include <cmath>
#include <csignal>

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
    "compare", "Compare the runtime proxies of two reports (fails if any got worse)");

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

static cl::list<std::string> reports(cl::Positional, cl::desc("BEFORE.json AFTER.json"),
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
  // Written so that NaN fails too.
  if (!(copyBudget > 0 && copyBudget <= 1))
    return std::string("--copy-budget takes a share of the crossbars in (0, 1]");
  if (jobs.getNumOccurrences() && jobs == 0)
    return std::string("--jobs takes at least 1");
  return std::nullopt;
}

static int runCompile() {
  if (std::optional<std::string> message = checkCompileOptions())
    return error(*message);
  CompileOptions options;
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
  if (options.emitMlirAfter.empty()) {
    printReport(*report, llvm::outs());
    llvm::outs() << "wrote " << options.outputDir << "\n";
  }
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
  llvm::outs() << llvm::formatv("latency {0:f3} ms on the chip (timing replay)\n",
                                timing->latencyNs / 1e6);
  return 0;
}

static int runValidate() {
  if (std::optional<std::string> message = checkCompileOptions())
    return error(*message);
  for (const cl::opt<double> *tolerance : {&relativeTolerance, &absoluteTolerance})
    if (!(*tolerance >= 0 && std::isfinite(*tolerance)))
      return error("--" + tolerance->ArgStr + " takes a finite number of at least 0");
  ValidateOptions options;
  options.throughput = mode == "throughput";
  options.plan = *planOption();
  options.copyBudget = copyBudget;
  options.jobs = jobs;
  options.casePath = casePath;
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
  llvm::Expected<llvm::json::Object> report = readReport(programDir);
  if (!report)
    return error(llvm::toString(report.takeError()));
  printReport(*report, llvm::outs());
  return 0;
}

static int runCompare() {
  if (reports.size() != 2)
    return error("compare takes two reports");
  llvm::Expected<llvm::json::Object> before = readReport(reports[0]);
  if (!before)
    return error(llvm::toString(before.takeError()));
  llvm::Expected<llvm::json::Object> after = readReport(reports[1]);
  if (!after)
    return error(llvm::toString(after.takeError()));
  int worse = compareReports(*before, *after, llvm::outs());
  if (worse)
    llvm::outs() << worse << " runtime proxies got worse: the change is rejected\n";
  return worse ? 1 : 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // Past a file size limit, a write fails (and is reported) instead of
  // killing pimc.
  std::signal(SIGXFSZ, SIG_IGN);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions(pimcOptions);
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
