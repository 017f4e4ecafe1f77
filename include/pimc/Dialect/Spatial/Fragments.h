//===- Fragments.h - where the elements of a dataflow value come from -*- C++ -*-===//
//
// Before materialization a value between computes is an SSA tensor that may
// be a view (reshape, slice, concat) of the results of several computes, of
// model inputs or of constants. This analysis breaks a value, in row-major
// order, into strided blocks of elements that each come from one source, so
// that materialization can move exactly those elements and scheduling can
// price the transfers.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_DIALECT_SPATIAL_FRAGMENTS_H
#define PIMC_DIALECT_SPATIAL_FRAGMENTS_H

#include "pimc/Dialect/Spatial/SpatialDialect.h"

#include "llvm/ADT/DenseMap.h"

namespace pimc::spat {

/// A value that holds data of its own: a compute result, a model input (a
/// function argument) or a global constant (spat.get_global); or, with no
/// value, padding of the constant `fill`. Padding before, after and around
/// rows of data are told apart (`side`), so that each forms its own boxes.
struct Source {
  mlir::Value value;
  float fill = 0;
  int side = 0;
  bool operator==(const Source &other) const {
    return value == other.value && (value || (fill == other.fill && side == other.side));
  }
  bool isFill() const { return !value; }
  bool isCompute() const;
  ComputeOpInterface getCompute() const;
};

/// `planes` planes of `count` rows of `length` consecutive elements: row r of
/// plane p holds the value's elements [start + p * planeStride + r * stride,
/// + length), which are the source's row-major elements [sourceStart + p *
/// sourcePlaneStride + r * sourceStride, + length).
struct Fragment {
  int64_t start = 0, length = 0, count = 1, stride = 0;
  int64_t planes = 1, planeStride = 0;
  Source source;
  int64_t sourceStart = 0, sourceStride = 0, sourcePlaneStride = 0;
  int64_t numElements() const { return length * count * planes; }
  /// The rows of plane `p` as a fragment of one plane.
  Fragment plane(int64_t p) const;
  /// Row r of a one-plane fragment.
  Fragment row(int64_t r) const;
};

/// Memoized fragments of the values of one function.
class FragmentAnalysis {
public:
  /// The fragments covering all of `value`, in row-major order; fails (with
  /// a diagnostic) on a value it cannot see through.
  mlir::FailureOr<llvm::ArrayRef<Fragment>> getFragments(mlir::Value value);

private:
  struct Run {
    int64_t start, length;
    Source source;
    int64_t sourceStart;
  };
  mlir::FailureOr<llvm::ArrayRef<Run>> getRuns(mlir::Value value);
  /// Runs of `source`'s elements [start, start + length), placed at `at`.
  void mapRange(llvm::ArrayRef<Run> source, int64_t start, int64_t length,
                int64_t at, llvm::SmallVectorImpl<Run> &out);
  /// Appends `run`, extending the last run when it continues it.
  static void append(llvm::SmallVectorImpl<Run> &out, const Run &run);

  llvm::DenseMap<mlir::Value, llvm::SmallVector<Run, 1>> runs;
  llvm::DenseMap<mlir::Value, llvm::SmallVector<Fragment, 1>> fragments;
};

} // namespace pimc::spat

#endif // PIMC_DIALECT_SPATIAL_FRAGMENTS_H
