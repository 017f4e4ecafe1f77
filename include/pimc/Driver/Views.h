//===- Views.h - the report as a trace, a web page and tables ---*- C++ -*-===//
//
// What the timing replay sees of a compiled program, shown three ways: a
// Chrome trace-event file (Perfetto, chrome://tracing), a self-contained HTML
// page of pictures, and CSV tables. All of them come from the program
// directory as written: its architecture file, its programs and the model
// nodes their instructions come from (nodes.json).
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_DRIVER_VIEWS_H
#define PIMC_DRIVER_VIEWS_H

#include "pimc/Arch/Arch.h"
#include "pimc/Simulator/Timing.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace pimc {

/// The name of model node `node` (an index into `nodeNames`, -1 for none),
/// or "(no model node)".
std::string nodeLabel(llvm::ArrayRef<std::string> nodeNames, int32_t node);

/// Writes the model node of every core's instructions beside a program, so
/// that the views can label its timeline.
llvm::Error writeNodeMarks(llvm::StringRef directory, llvm::ArrayRef<std::string> nodeNames,
                           const std::vector<sim::NodeMarks> &marks);

/// A program's timeline: one inference, or the first rounds of looping
/// programs (an architecture file with pimsim-nn's throughput mode).
struct ProgramTimeline {
  Arch arch;
  bool looping = false;
  int64_t rounds = 1;
  std::vector<std::string> nodeNames;
  sim::Timing timing;
  std::string nodeLabel(int32_t node) const { return pimc::nodeLabel(nodeNames, node); }
};

/// Replays the program in `directory` with its timeline kept.
llvm::Expected<ProgramTimeline> replayTimeline(llvm::StringRef directory);

/// Writes the timeline as Chrome trace-event JSON: a track per core with
/// its slices, flows from each send to its recv, and a counter of the NoC's
/// traffic.
llvm::Error writeTrace(const ProgramTimeline &timeline, llvm::StringRef path);

/// Writes one self-contained HTML page (inline SVG and script, nothing
/// fetched) of the report and the timeline.
llvm::Error writeHtmlReport(const llvm::json::Object &report, const ProgramTimeline &timeline,
                            llvm::StringRef path);

/// Writes layers.csv, cores.csv and stages.csv of a report into `directory`.
llvm::Error writeCsvTables(const llvm::json::Object &report, llvm::StringRef directory);

} // namespace pimc

#endif // PIMC_DRIVER_VIEWS_H
