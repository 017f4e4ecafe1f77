//===- Peft.h - PEFT list scheduling on plain data --------------*- C++ -*-===//
//
// The problem spat-peft-schedule solves, as plain data: the computes of a
// dataflow graph (in topological order) with their costs, crossbars and the
// bytes they pass on, to be placed on the chip's cores. The pass builds it
// from the IR and writes the schedule back; the algorithm is here, so that
// its unit tests state schedules worked out by hand.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_DIALECT_SPATIAL_TRANSFORMS_PEFT_H
#define PIMC_DIALECT_SPATIAL_TRANSFORMS_PEFT_H

#include "pimc/Arch/Arch.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <variant>
#include <vector>

namespace pimc::peft {

struct Edge {
  unsigned task;
  int64_t bytes;
};

struct Task {
  double cost = 0;         // ns on any core
  int64_t crossbars = 0;   // of its weight tiles
  int64_t copy = -1;       // shares its weights' copy with the tasks of this copy
  int64_t globalBytes = 0; // read from global memory (model inputs, constants)
  int64_t inputBytes = 0, outputBytes = 0;
  /// The model node (layer) it computes part of: tasks of one node with
  /// weights are one pipeline stage when the programs loop.
  int64_t layer = 0;
  /// Its producers (earlier tasks), with the bytes each passes on.
  llvm::SmallVector<Edge> preds;
};

struct Options {
  /// Programs that loop: each layer with weights is a pipeline stage with
  /// cores of its own.
  bool looping = false;
  /// Looping: work without weights goes beside its largest input, or to the
  /// least loaded core of its stage.
  bool balanceWeightless = false;
};

struct Placement {
  int64_t core = -1;
  double start = 0, finish = 0;
};

struct Schedule {
  std::vector<Placement> placements; // by task
  double makespan = 0;
};

/// Why a task could not be placed.
struct Misfit {
  unsigned task;
  /// No core has the crossbars its weights need (else: no core has the
  /// local memory for its inputs and results).
  bool outOfCrossbars;
  int64_t crossbars;                        // its weights need
  int64_t freeCrossbars, mostFreeOnOneCore; // on the chip, then
  int64_t bytes, memoryLimit;               // its inputs and results; a core's room
};

/// Places every task, highest rank (cost plus the longest chain of costs
/// after it) first, on the core where it finishes earliest among those with
/// room for its weights and data.
std::variant<Schedule, Misfit> schedule(const std::vector<Task> &tasks, const Arch &arch,
                                        const Options &options);

} // namespace pimc::peft

#endif // PIMC_DIALECT_SPATIAL_TRANSFORMS_PEFT_H
