//===- SpatialUtils.h - helpers shared by the spat passes -------*- C++ -*-===//
#ifndef PIMC_DIALECT_SPATIAL_SPATIALUTILS_H
#define PIMC_DIALECT_SPATIAL_SPATIALUTILS_H

#include "pimc/Arch/Arch.h"
#include "pimc/Dialect/Spatial/SpatialDialect.h"

#include "mlir/IR/Builders.h"

namespace pimc::spat {

/// Crossbars an array group needs to hold `tile`.
int64_t crossbarsOf(TileAttr tile, const Arch &arch);
/// Crossbars all tiles of a compute need.
int64_t crossbarsOf(ComputeOpInterface compute, const Arch &arch);
/// Crossbars the computes in `root` need, a copy of weights they share
/// (spat.copy) counted once.
int64_t crossbarsIn(mlir::Operation *root, const Arch &arch);

/// Builds a spat.compute (lanes == 1) or spat.compute_batch (lanes > 1) with
/// the given per-lane result types; `body` receives the block arguments (lane
/// slices of the lane inputs, then the shared inputs) and returns the values
/// to yield.
ComputeOpInterface
buildCompute(mlir::OpBuilder &builder, mlir::Location loc, int64_t lanes,
             mlir::ValueRange laneInputs, mlir::ValueRange sharedInputs,
             llvm::ArrayRef<TileAttr> tiles, mlir::TypeRange laneResultTypes,
             llvm::function_ref<llvm::SmallVector<mlir::Value>(
                 mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>
                 body);

/// The dialect, for its discardable attributes' helpers (spat.copy,
/// spat.core, spat.start, spat.finish, spat.makespan).
SpatDialect &dialectOf(mlir::Operation *op);
/// When the schedule starts and finishes `op` (ns), or `fallback`.
double startOf(mlir::Operation *op, double fallback = 0);
double finishOf(mlir::Operation *op, double fallback = 0);
/// Set on the module when scheduling found no core with the crossbars a
/// compute's weights need.
constexpr llvm::StringLiteral kOutOfCrossbarsAttr = "spat.out_of_crossbars";
/// Set on the module when the model's weights need more crossbars than the
/// chip has (convert-onnx-to-spatial), so that the driver says so.
constexpr llvm::StringLiteral kWeightsDoNotFitAttr = "spat.weights_do_not_fit";
/// Set on the module when some layer's rows went to its copies of the
/// weights in turn (convert-onnx-to-spatial's interleave-rows).
constexpr llvm::StringLiteral kInterleavedRowsAttr = "spat.interleaved_rows";
/// The band plan (onnx-plan-windows): a BandsAttr on each convolution and
/// pooling, a BandPlanAttr on the module.
constexpr llvm::StringLiteral kBandsAttr = "spat.bands";
constexpr llvm::StringLiteral kBandPlanAttr = "spat.band_plan";

} // namespace pimc::spat

#endif // PIMC_DIALECT_SPATIAL_SPATIALUTILS_H
