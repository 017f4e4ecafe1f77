//===- Constants.h - f32 constant data --------------------------*- C++ -*-===//
//
// Weights are DenseResourceElementsAttr blobs (one copy per tensor, never one
// per use); small constants are DenseElementsAttr. These helpers read either
// kind and make new blobs without copying.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_SUPPORT_CONSTANTS_H
#define PIMC_SUPPORT_CONSTANTS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <optional>
#include <vector>

namespace pimc {

/// The f32 values of a constant, viewed in place when possible.
class FloatData {
public:
  static std::optional<FloatData> get(mlir::Attribute attr);
  FloatData() = default;
  // A copy of a splat's data would view the original's.
  FloatData(const FloatData &) = delete;
  FloatData(FloatData &&) = default;
  FloatData &operator=(FloatData &&) = default;
  llvm::ArrayRef<float> values() const { return view; }
  float operator[](size_t i) const { return view[i]; }
  size_t size() const { return view.size(); }

private:
  llvm::ArrayRef<float> view;
  std::vector<float> owned;
};

/// The i64 values of an integer constant.
std::optional<llvm::SmallVector<int64_t>> getIntValues(mlir::Attribute attr);

/// An f32 constant of `type` holding `values` (moved into a resource blob
/// named after `name`, or a DenseElementsAttr when it is small).
mlir::ElementsAttr makeFloatConstant(mlir::RankedTensorType type,
                                     std::vector<float> values,
                                     llvm::StringRef name);

/// An f32 resource constant that views `values` without copying; `keepAlive`
/// is held by the blob for as long as the context uses it. With `irOwned`,
/// nothing outside the IR reads `values`, so a pass may rewrite them in
/// place (ownedFloatData).
mlir::ElementsAttr viewFloatConstant(mlir::RankedTensorType type,
                                     llvm::ArrayRef<float> values,
                                     llvm::StringRef name,
                                     std::shared_ptr<const void> keepAlive,
                                     bool irOwned = false);

/// The f32 data of the constant defining `value`, to rewrite in place: when
/// the IR owns it, `value` has no other use, and no other op under `root`
/// holds data that overlaps it. A rewrite in place saves a copy of the
/// weights while the original is alive.
std::optional<llvm::MutableArrayRef<float>> ownedFloatData(mlir::Operation *root,
                                                           mlir::Value value);

/// Frees the data of a resource constant when the last op under `root` that
/// holds it is erased: rewritten weights would otherwise stay in memory until
/// the context goes.
class ConstantDataReleaser : public mlir::RewriterBase::Listener {
public:
  explicit ConstantDataReleaser(mlir::Operation *root) : root(root) {}
  void notifyOperationErased(mlir::Operation *op) override;

private:
  mlir::Operation *root;
};

/// applyPatternsAndFoldGreedily with a ConstantDataReleaser on `root`.
mlir::LogicalResult applyPatternsReleasingConstants(mlir::Operation *root,
                                                    mlir::RewritePatternSet &&patterns,
                                                    mlir::GreedyRewriteConfig config = {});

/// Frees the data of every resource constant under `root`, whose ops keep
/// their attributes with no data behind them: for a module whose weights
/// have been written out.
void releaseConstantData(mlir::Operation *root);

/// A module kept to be cloned for runs that rewrite their clone. A run
/// frees the data of the constants it rewrites (ConstantDataReleaser), which
/// the kept module still holds: the data moves here, and the resource
/// entries only view it while the module is kept. Clones share the data;
/// nothing is copied.
class KeptModule {
public:
  explicit KeptModule(mlir::OwningOpRef<mlir::ModuleOp> module);
  KeptModule(const KeptModule &) = delete;
  KeptModule &operator=(const KeptModule &) = delete;
  ~KeptModule();

  /// A clone of the kept module, its constants' data viewed again.
  mlir::OwningOpRef<mlir::ModuleOp> clone();
  /// A run that failed: frees the data of the constants it made.
  void discard(mlir::ModuleOp run);
  /// No more clones: the kept module goes, and the data of its constants
  /// with it unless `run` still holds them.
  void release(mlir::ModuleOp run);
  bool kept() const { return bool(module); }

private:
  struct Entry {
    mlir::DialectResourceBlobManager::BlobEntry *entry;
    mlir::AsmResourceBlob data;
  };
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<Entry> entries;
};

} // namespace pimc

#endif // PIMC_SUPPORT_CONSTANTS_H
