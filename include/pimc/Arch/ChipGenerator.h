//===- ChipGenerator.h - architecture files from a few parameters -*- C++ -*-===//
//
// `pimc arch`: a pimsim-nn architecture file and its network file made from
// a reference chip with a few of its parameters changed. The network follows
// the mesh as the reference chips' files do (2 + 2 * hops ns per flit between
// cores, 15 ns to and from the global memory, 46 pJ per flit).
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_ARCH_CHIPGENERATOR_H
#define PIMC_ARCH_CHIPGENERATOR_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace pimc {

/// What `pimc arch` changes; an unset parameter keeps the reference's value.
struct ChipParameters {
  /// chip_config.core_cnt; without a mesh, the mesh is the squarest
  /// rows x cols (rows <= cols) with that many cores.
  std::optional<int64_t> cores;
  /// network_config.layout; without cores, the cores fill the mesh.
  std::optional<int64_t> meshRows, meshCols;
  std::optional<int64_t> crossbars;  // matrix_config.xbar_array_count
  /// matrix_config.xbar_size; the DACs and ADCs scale with it, keeping the
  /// reference's converters per row and per column.
  std::optional<int64_t> crossbarRows, crossbarCols;
  std::optional<int64_t> cellBits;          // matrix_config.cell_precision
  std::optional<int64_t> localMemoryBytes;  // local_memory_config.memory_size
  std::optional<int64_t> inputBits, outputBits, weightBits; // the "pimc" section
  std::optional<bool> throughput;           // sim_config.sim_mode 0 (else 1)
};

struct GeneratedChip {
  std::string archJson;    // the architecture file
  std::string networkName; // the network file's name, as the architecture names it
  std::string networkJson; // the network file
};

/// The reference architecture (JSON text; `referenceName` for errors) with
/// `parameters` applied, and its network file. Fails when the parameters
/// contradict each other or the result does not load as an architecture.
llvm::Expected<GeneratedChip> generateChip(llvm::StringRef referenceJson,
                                           llvm::StringRef referenceName,
                                           const ChipParameters &parameters);

/// Writes the architecture file at `archPath` and its network file beside it.
llvm::Error writeChip(const GeneratedChip &chip, llvm::StringRef archPath);

/// "128" or "128x64": rows and columns (a single number is square).
std::optional<std::pair<int64_t, int64_t>> parseShape(llvm::StringRef text);
/// A byte count: a positive number with an optional suffix K, KiB, M or MiB.
std::optional<int64_t> parseBytes(llvm::StringRef text);

} // namespace pimc

#endif // PIMC_ARCH_CHIPGENERATOR_H
