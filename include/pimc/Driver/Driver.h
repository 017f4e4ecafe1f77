//===- Driver.h - pimc's subcommands as a library ---------------*- C++ -*-===//
//
// The compile pipeline (the nine stages after import, as the performance
// invariant names them), the report of what it produced, and validation of a
// test case by compiling, simulating and comparing.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_DRIVER_DRIVER_H
#define PIMC_DRIVER_DRIVER_H

#include "pimc/Frontend/OnnxModel.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace pimc {

/// The stages of the pipeline, in order; `--emit-mlir=NAME` stops after one.
llvm::ArrayRef<llvm::StringRef> stageNames();

struct CompileOptions {
  std::string modelPath;
  std::string archPath;    // empty: the built-in chip-144
  std::string outputDir;
  /// The command line that asked for the compile, for the report.
  std::string commandLine;
  bool emitJson = false;   // core_<id>.json beside core_<id>.pim
  bool trace = false;      // trace.json, the replay as Chrome trace events
  bool csv = false;        // layers.csv, cores.csv, stages.csv
  std::string emitMlirAfter; // print the IR after this stage and stop
  /// emitMlirAfter elides constants of more than 16 elements and resources
  /// (the weights) of more than 64 bytes; otherwise MLIR's printing flags hold.
  bool elideLargeConstants = false;
  bool progress = true;    // stage lines on stderr
  /// The IR verified after every pass; otherwise once, after the last stage
  /// (verifying a program of a million ops after each pass costs more than
  /// a stage).
  bool verifyEachPass = false;
  /// Throughput mode's candidates print their stage lines too, not only a
  /// line when each is done.
  bool verbose = false;
  /// Starts each stage line: names the candidate when several compile at once.
  std::string progressLabel;
  /// Throughput mode: the programs loop in pimsim-nn's throughput mode and
  /// the report tells samples per second; otherwise one inference (latency).
  bool throughput = false;
  /// How the looping programs share the chip: a pipeline of layer stages,
  /// each on cores of its own; or every core on every layer, each round one
  /// inference as latency mode compiles it (rounds overlap as cores finish
  /// their part); or (Best) both, keeping the one with the higher throughput as
  /// pimsim-nn counts it (samples done in sim_time, the fill included).
  enum class Plan { Best, LayerStages, WholeChip };
  Plan plan = Plan::Best;
  /// Convolutions compute neighbouring pixels with one matrix where that
  /// reads fewer crossbars (onnx-pack-pixels).
  bool packPixels = true;
  /// Layer stages: work without weights goes to the least loaded core of
  /// its stage. The layer-stage plan compiles with it, and without it and
  /// packPixels, and keeps the fastest, as it does the plans.
  bool balanceWeightless = false;
  /// Layer stages: bands of whole rows share a layer's rows out evenly
  /// rather than leaving a short last band (which may then share a core
  /// with another band), and the computes of a copy larger than a core its
  /// row tiles. The layer-stage plan compiles with and without it.
  bool evenSplits = false;
  /// The share of the chip's crossbars weights and their copies may take;
  /// when the copies do not fit the cores, the compile plans for 1 % less,
  /// then 2 %, 4 %, ...
  double copyBudget = 0.9;
  /// One inference: a layer's rows go to its copies of the weights in turn
  /// (row r to copy r mod copies); the compile falls back to runs of
  /// consecutive rows when that overflows a core's local memory.
  bool interleaveRows = true;
  /// Throughput mode: a core assembles its buffers where the pieces arrive;
  /// the compile falls back to copying them into place when that overflows
  /// a core's local memory.
  bool assembleInPlace = true;
  /// Throughput mode: how many candidates compile at once (0: as many as
  /// the machine has cores). Each holds its own IR, so more take more memory.
  unsigned jobs = 0;
  /// How a batch of samples runs. OneByOne: the program of one sample, once
  /// a sample, each core going on to the next sample when it is done with
  /// the last (when the model computes the samples apart; otherwise as
  /// Together). Together: the samples are lanes of one program. Best: both,
  /// keeping the faster (the one-by-one program leaves cores idle on a
  /// small model; the program of the batch waits more on a large one).
  enum class Batch { Best, OneByOne, Together };
  Batch batch = Batch::Best;
  /// Binds graph inputs that feed weights, when the compile loads the
  /// model again (with one sample): as `pimc validate` binds them.
  frontend::ConstantInputBinder constantInputs = nullptr;
  /// Leave the IR and its context allocated when done: for a process that
  /// exits right after (as clang's -disable-free).
  bool keepIrAtExit = false;
};

/// The sim_time (ms) of a throughput run in pimsim-nn, for programs whose
/// first round ends at `latencyNs` and which then loop every `roundNs`: 20
/// rounds after the first or more, so that the pipeline's fill is at most a
/// tenth of it; and the rounds pimsim-nn counts in it.
struct SimulatedTime {
  int64_t simTimeMs;
  int64_t rounds;
};
SimulatedTime throughputSimTime(double latencyNs, double roundNs);

/// Compiles the model at options.modelPath (or `model`, already loaded) and
/// writes the artifacts and report.json into options.outputDir. Returns the
/// report.
llvm::Expected<llvm::json::Object> compileModel(const CompileOptions &options,
                                                const frontend::Model *model = nullptr);

/// Prints a report (report.json) as text.
void printReport(const llvm::json::Object &report, llvm::raw_ostream &os);
llvm::Expected<llvm::json::Object> readReport(llvm::StringRef outputDir);

/// The version of report.json's layout (docs/report.schema.json).
constexpr int64_t kReportSchemaVersion = 1;

/// A time (ns) or an energy (pJ) with the unit that keeps it in [1, 1000).
std::string formatTime(double ns);
std::string formatEnergy(double pj);

/// Reads pimsim-nn's own output (ChipTest's report) into report.json's
/// "pimsim" section, and returns the report.
llvm::Expected<llvm::json::Object> recordPimsimLog(llvm::StringRef outputDir,
                                                   llvm::StringRef logPath);

/// Why two reports do not compare (other modes, models or chips), if so.
std::optional<std::string> incomparable(const llvm::json::Object &before,
                                        const llvm::json::Object &after);

/// The stop rule: prints every runtime proxy of two reports side by side
/// with its change, and returns how many proxies got worse.
int compareReports(const llvm::json::Object &before, const llvm::json::Object &after,
                   llvm::raw_ostream &os);

/// One Markdown table of the runtime proxies of several (name, report)
/// pairs, a row each.
void printProxyTable(llvm::ArrayRef<std::pair<std::string, llvm::json::Object>> reports,
                     llvm::raw_ostream &os);

/// Reads input_K.pb files of a directory, one per name in `names` order.
llvm::Expected<std::vector<frontend::TensorData>>
readInputs(llvm::StringRef directory, size_t count);

struct ValidateOptions {
  std::string casePath;
  std::string archPath;
  std::string outputDir; // empty: a temporary directory, removed at the end
  bool keepOutput = false; // keep the temporary directory (and say where it is)
  double rtol = 1e-3, atol = 1e-4;
  bool progress = false;
  bool verbose = false;    // as CompileOptions::verbose
  bool verifyEachPass = false; // as CompileOptions::verifyEachPass
  bool throughput = false; // compile in throughput mode
  CompileOptions::Plan plan = CompileOptions::Plan::Best;
  double copyBudget = 0.9;  // as CompileOptions::copyBudget
  CompileOptions::Batch batch = CompileOptions::Batch::Best;
  unsigned jobs = 0;        // as CompileOptions::jobs
  std::string commandLine;  // as CompileOptions::commandLine
};

/// Compiles the case's model, runs it on the functional simulator and on the
/// reference interpreter for every test_data_set_N, and compares both with
/// the expected outputs. Prints what it does; returns whether all matched.
llvm::Expected<bool> validateCase(const ValidateOptions &options, llvm::raw_ostream &os);

} // namespace pimc

#endif // PIMC_DRIVER_DRIVER_H
