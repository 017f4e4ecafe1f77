//===- BandPlan.h - how many bands each window layer is cut into -*- C++ -*-===//
//
// The band planner on plain data (no IR): convolutions and pooling are cut
// into bands of output rows (or of parts of rows), every band with its own
// copy of the weights, so that bands run on different cores at once. The
// onnx-plan-windows pass collects the layers from the IR and writes the plan
// onto them; ONNX-to-Spatial only reads it.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_CONVERSION_BANDPLAN_H
#define PIMC_CONVERSION_BANDPLAN_H

#include <cstdint>
#include <vector>

namespace pimc::plan {

/// A convolution or pooling as the planner sees it.
struct WindowLayer {
  double work = 0;        ///< ns of all output pixels on one core
  int64_t crossbars = 0;  ///< of one copy of its weights; 0 for work without
  int64_t rows = 1;       ///< output rows
  int64_t cols = 1;       ///< output positions in a row
  int64_t maxParts = 1;   ///< the most parts a row is cut into

  /// What the lowering makes of `planned` bands: bands of whole rows, as
  /// many as a band's rows allow, or every row cut into the same number of
  /// parts.
  int64_t actual(int64_t planned) const;
  /// A band's time when the layer has `count` bands.
  double bandNs(int64_t count) const;
  /// The cores one copy spans.
  int64_t copyCores(int64_t perCore) const;
  /// The fewest bands beyond `bands` that make a band shorter, or 0.
  int64_t next(int64_t bands) const;
};

struct BandProblem {
  std::vector<WindowLayer> layers;
  /// The crossbars of the matrix products (never copied), and the cores
  /// they take a core's crossbars at a time.
  int64_t matrixCrossbars = 0, matrixCores = 0;
  int64_t cores = 0, crossbarsPerCore = 0;
  /// One inference as fast as it goes (latency mode), or programs that loop
  /// as a pipeline (throughput mode).
  bool oneInference = true;
  /// One inference: the share of the chip's crossbars weights and their
  /// copies may take.
  double copyBudget = 0.9;
};

struct BandPlan {
  /// The bands of each layer, at least one.
  std::vector<int64_t> bands;
  /// The time of the slowest band of a layer with weights (0: none).
  double bandNs = 0;
};

/// One inference, by marginal analysis: the next copy goes where it saves
/// the most time per crossbar, while the budget has crossbars for it (the
/// layers run one after another, so the sum of their band times is what is
/// minimized); work without weights is then cut into pieces of a sixteenth
/// of the slowest band. Looping programs: the round is the most work a core
/// has, so the slowest layer gets the next band while the chip has cores
/// for it.
BandPlan planBands(const BandProblem &problem);

} // namespace pimc::plan

#endif // PIMC_CONVERSION_BANDPLAN_H
