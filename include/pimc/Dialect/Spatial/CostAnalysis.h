//===- CostAnalysis.h - time of spat work on the chip -----------*- C++ -*-===//
//
// The run time of a compute on one core and the bytes of the data it reads
// from each source, from the architecture's timing model. Scheduling and the
// report use the same numbers.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_DIALECT_SPATIAL_COSTANALYSIS_H
#define PIMC_DIALECT_SPATIAL_COSTANALYSIS_H

#include "pimc/Arch/CostModel.h"
#include "pimc/Dialect/Spatial/SpatialDialect.h"

namespace pimc::spat {

/// Time (ns) of all lanes of `compute`, from its first to its last
/// instruction, without the transfers of its inputs and outputs.
double computeNs(ComputeOpInterface compute, const CostModel &cost);

/// Counts of the instructions one lane of a compute's body becomes.
struct BodyCounts {
  int64_t mvm = 0, vector = 0;
};
BodyCounts countBody(ComputeOpInterface compute);

} // namespace pimc::spat

#endif // PIMC_DIALECT_SPATIAL_COSTANALYSIS_H
