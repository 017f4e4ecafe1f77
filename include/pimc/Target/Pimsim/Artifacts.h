//===- Artifacts.h - the files of a compiled program ------------*- C++ -*-===//
//
// A compiled program is a directory that pimsim-nn loads as it is
// (config.json and core_<id>.pim / .json) plus pimc's own files, which the
// functional simulator needs to compute values:
//
//   manifest.json  geometry, array groups and I/O locations (this struct)
//   weights.bin    f32 weights of the array groups, row-major rows x cols
//                  (groups holding the same block share it)
//   gmem.bin       f32 initial global memory, one value per element slot
//   arch.json      the architecture file, with its network file beside it
//   nodes.json     the model node of each core's instructions, by pc
//   report.json    what the compiler did and the runtime proxies
//
// Memories hold one value per element slot; an element of `elementBytes`
// bytes at byte address a is slot a / elementBytes of global memory and
// starts at byte a of local memory.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_TARGET_PIMSIM_ARTIFACTS_H
#define PIMC_TARGET_PIMSIM_ARTIFACTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pimc {

struct ArrayGroupInfo {
  int64_t crossbars = 0;
  int64_t rows = 0, cols = 0;  // the programmed weight window
  uint64_t weightsOffset = 0;  // byte offset of its rows*cols floats
};

struct CoreInfo {
  int64_t id = 0;
  std::vector<ArrayGroupInfo> groups;
};

struct TensorLocation {
  std::string name;
  int64_t index = 0;
  std::vector<int64_t> shape;
  int64_t address = 0; // bytes, in global memory
  int64_t numElements() const;
};

struct Manifest {
  static constexpr int64_t kVersion = 1;
  int64_t coreCount = 0;
  int64_t elementBytes = 1;
  int64_t inputBits = 8, outputBits = 8, weightBits = 8;
  int64_t xbarRows = 0, xbarCols = 0, outputsPerCrossbar = 0;
  int64_t crossbarsPerCore = 0;
  int64_t localMemoryBytes = 0;
  int64_t globalMemoryBytes = 0;
  int64_t globalImageElements = 0; // slots of gmem.bin, from address 0
  std::vector<CoreInfo> cores;     // one per core id, in order
  std::vector<TensorLocation> inputs, outputs;

  static llvm::Expected<Manifest> read(llvm::StringRef directory);
  llvm::Error write(llvm::StringRef directory) const;
};

/// `directory`/`file`.
std::string join(llvm::StringRef directory, llvm::StringRef file);

/// Writes `value` as indented JSON to `directory`/`file`.
llvm::Error writeJsonFile(llvm::StringRef directory, llvm::StringRef file,
                          const llvm::json::Value &value);

/// Writes `text` to `path` through a temporary file beside it, renamed when
/// complete: a full disk leaves the old file, and a symlink at `path` is
/// replaced, never written through.
llvm::Error writeOutputFile(llvm::StringRef path, llvm::StringRef text);

/// A file pimc writes as a stream. Write errors (a full disk) are returned
/// by close(), naming the file; never fatal, as raw_fd_ostream makes an
/// error left unchecked.
class OutputFile {
public:
  static llvm::Expected<std::unique_ptr<OutputFile>>
  create(llvm::StringRef path, llvm::sys::fs::OpenFlags flags = llvm::sys::fs::OF_None);
  ~OutputFile();
  llvm::raw_fd_ostream &os() { return *stream; }
  llvm::Error close();

private:
  OutputFile() = default;
  std::string path;
  std::unique_ptr<llvm::raw_fd_ostream> stream;
  bool closed = false;
};

/// Whether pimc writes a file of this name into an output directory (so
/// that no copied input may take it).
bool isArtifactName(llvm::StringRef name);

/// The output directory of one compile. It holds a lock file that refuses a
/// second compile into the same directory, and a directory of this run
/// inside it where every file is written; commit() moves them in when all
/// are complete (report.json last). Only files an earlier pimc compile
/// wrote (those its manifest lists) are replaced or removed.
class OutputDirectory {
public:
  static llvm::Expected<std::unique_ptr<OutputDirectory>> open(llvm::StringRef directory);
  ~OutputDirectory();
  /// Where this run writes its files.
  llvm::StringRef staging() const { return stagingPath; }
  /// Moves the files of staging() into the directory.
  llvm::Error commit();

private:
  OutputDirectory() = default;
  std::string path, stagingPath;
  int lockFd = -1;
};

/// Writes views of the program in `directory` (the files `names` there:
/// pimc report's --html, --trace and --csv) by calling `write`, and lists
/// them in its manifest, so that the next compile into the directory
/// removes or replaces them with the program they describe. A file of such
/// a name that pimc did not write is left alone (an error), and no compile
/// may be writing into the directory meanwhile.
llvm::Error writeProgramViews(llvm::StringRef directory, llvm::ArrayRef<std::string> names,
                              llvm::function_ref<llvm::Error()> write);

/// Removes the programs (core_<id>.pim and .json) in `directory`: those of
/// an earlier compile would be loaded beside new ones.
llvm::Error removePrograms(llvm::StringRef directory);

/// Moves every file of directory `from` into `to`, after removing the
/// programs `to` holds, and removes `from`.
llvm::Error moveArtifacts(llvm::StringRef from, llvm::StringRef to);

constexpr const char *kManifestFile = "manifest.json";
constexpr const char *kWeightsFile = "weights.bin";
constexpr const char *kGlobalImageFile = "gmem.bin";
constexpr const char *kInstructionConfigFile = "config.json";
constexpr const char *kArchFile = "arch.json";
constexpr const char *kNodesFile = "nodes.json";
/// The report's views (pimc report --trace, --html, --csv).
constexpr const char *kTraceFile = "trace.json";
constexpr const char *kHtmlFile = "report.html";
constexpr const char *kCsvFiles[] = {"layers.csv", "cores.csv", "stages.csv"};
constexpr const char *kReportFile = "report.json";
/// Held while a compile writes into the directory.
constexpr const char *kLockFile = ".pimc.lock";
/// The prefix of the directory each run writes its files in.
constexpr const char *kRunDirectoryPrefix = ".pimc-run-";

} // namespace pimc

#endif // PIMC_TARGET_PIMSIM_ARTIFACTS_H
