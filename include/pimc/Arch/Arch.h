//===- Arch.h - the architecture description --------------------*- C++ -*-===//
//
// The chip as described by a pimsim-nn architecture file: the same file the
// simulator takes, so one file drives both. Compiler-only knobs live in a
// top-level "pimc" section that pimsim-nn ignores.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_ARCH_ARCH_H
#define PIMC_ARCH_ARCH_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pimc {

struct MemoryConfig {
  int64_t dataWidth = 16;      // bytes per beat
  double period = 1;           // ns
  int64_t readLatencyCycle = 8;
  int64_t writeLatencyCycle = 10;
  double readDynamicEnergy = 0; // pJ per beat
  double writeDynamicEnergy = 0;
  double staticPower = 1;       // mW
  int64_t memorySize = 1048576; // bytes (pimsim-nn does not check it)
};

struct MatrixConfig {
  int64_t xbarArrayCount = 1; // crossbars per core
  int64_t xbarRows = 128, xbarCols = 128;
  int64_t cellPrecision = 2;
  double period = 0.78125;
  bool pipelineMode = true;
  int64_t dacResolution = 1, dacCount = 128, dacLatencyCycle = 1;
  double dacDynamicPower = 0;
  double xbarLatency = 30, xbarReadPower = 0;
  int64_t sampleHoldLatencyCycle = 1;
  double sampleHoldDynamicPower = 0;
  int64_t adcCount = 1, adcLatencyCycle = 1;
  double adcDynamicPower = 0;
  int64_t shiftAdderLatencyCycle = 1;
  double shiftAdderDynamicPower = 0;
  int64_t outputBufferLatencyCycle = 1;
  double outputBufferDynamicPower = 0;
};

struct Arch {
  /// The file this came from; empty for the built-in default.
  std::string path;
  /// The network file, as named in the architecture file.
  std::string networkFile;
  /// The architecture and network texts this was parsed from: enough to
  /// parse it again without reading a file (a module carries them).
  std::string json, networkJson;

  int64_t coreCount = 1;
  double corePeriod = 1;
  int64_t robSize = 1;
  int64_t globalMemorySwitchId = -10;
  MatrixConfig matrix;
  int64_t vectorWidth = 16;
  double vectorLatencyCycle = 8;
  double vectorDynamicEnergy = 0; // pJ per vector step, all parts together
  double coreStaticPower = 0;     // mW per core, all units together
  MemoryConfig localMemory, globalMemory;
  int64_t busWidth = 16;
  int64_t layoutRows = 0, layoutCols = 0;

  /// NoC per-flit latency (ns) and energy (pJ), (coreCount+1)^2 entries;
  /// node coreCount is the global memory.
  std::vector<double> nocLatency, nocEnergy;

  int64_t simMode = 0;

  // Compiler knobs (the "pimc" section).
  int64_t inputBits = 8, outputBits = 8, weightBits = 8;
  /// The most crossbars one array group may have; 0 means a whole core.
  int64_t maxGroupCrossbars = 0;

  /// Loads and checks an architecture file (and the network file it names).
  static llvm::Expected<Arch> load(llvm::StringRef path);
  /// Parses an architecture from JSON text. The network comes from
  /// `networkJson` when given, otherwise from the file the architecture
  /// names, relative to `directory`.
  static llvm::Expected<Arch>
  parse(llvm::StringRef json, llvm::StringRef directory, llvm::StringRef name,
        std::optional<llvm::StringRef> networkJson = std::nullopt);
  /// An architecture file is a few kilobytes: a larger one is refused
  /// before it is read.
  static constexpr uint64_t kMaxFileBytes = uint64_t(1) << 24;
  /// The network file `networkFile` of an architecture file in `directory`
  /// of a chip of `coreCount` cores: a regular file there, not a link out
  /// of it (it is copied beside the program), of at most a few hundred
  /// bytes an entry.
  static llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
  readNetworkFile(llvm::StringRef directory, llvm::StringRef networkFile, int64_t coreCount);
  /// The file at `path`, or the built-in default when `path` is empty.
  static llvm::Expected<Arch> loadOrDefault(llvm::StringRef path);
  /// The built-in default: the 144-core reference chip on a 12x12 mesh.
  static const Arch &builtinDefault();
  /// The architecture file text of the built-in default (network not included).
  static llvm::StringRef builtinDefaultJson();

  int64_t inputBytes() const { return (inputBits + 7) / 8; }
  int64_t outputBytes() const { return (outputBits + 7) / 8; }
  /// Output elements of one crossbar: floor(cols * cell bits / weight bits).
  int64_t outputsPerCrossbar() const {
    return matrix.xbarCols * matrix.cellPrecision / weightBits;
  }
  /// The most crossbars one array group may have.
  int64_t groupCrossbarLimit() const {
    return maxGroupCrossbars > 0 ? std::min(maxGroupCrossbars, matrix.xbarArrayCount)
                                 : matrix.xbarArrayCount;
  }
  int64_t globalNode() const { return coreCount; }
  double nocLatencyNs(int64_t from, int64_t to) const {
    return nocLatency[from * (coreCount + 1) + to];
  }
  double nocEnergyPj(int64_t from, int64_t to) const {
    return nocEnergy[from * (coreCount + 1) + to];
  }
  /// Number of mesh hops between two cores (row-major placement on the layout).
  int64_t hops(int64_t a, int64_t b) const;
};

/// How a [patch, og] weight matrix is cut into crossbar tiles: row tiles of
/// a crossbar's rows, and column blocks of `width` outputs (a whole number
/// of crossbars, balanced) that each fit one array group.
struct DenseTiling {
  int64_t rowTiles, blocks, width, perCrossbar;
  int64_t columns(int64_t block, int64_t og) const {
    return std::min(width, og - block * width);
  }
  /// The crossbars of a tile of column block `block`.
  int64_t crossbars(int64_t block, int64_t og) const {
    return (columns(block, og) + perCrossbar - 1) / perCrossbar;
  }
};
DenseTiling denseTiling(const Arch &arch, int64_t patch, int64_t og);

/// Writes a network file for a layoutRows x layoutCols mesh: 2 + 2*hops ns
/// per flit between cores, 15 ns to and from global memory, 46 pJ per flit.
std::string meshNetworkJson(int64_t rows, int64_t cols, int64_t globalId);

} // namespace pimc

#endif // PIMC_ARCH_ARCH_H
