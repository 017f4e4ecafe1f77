//===- Elementwise.h - moving views through element-wise work --*- C++ -*-===//
//
// Stage-1 rewrites move views (Transposes, Reshapes) through element-wise
// operations of one operand: op(V(x)) -> V(op(x)).
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_DIALECT_ONNX_TRANSFORMS_ELEMENTWISE_H
#define PIMC_DIALECT_ONNX_TRANSFORMS_ELEMENTWISE_H

#include "pimc/Dialect/Onnx/OnnxDialect.h"

#include "mlir/IR/PatternMatch.h"

namespace pimc::onnx {

/// A rewrite of element-wise operations of one operand (isElementwiseUnary).
struct ElementwiseUnaryPattern : public mlir::RewritePattern {
  explicit ElementwiseUnaryPattern(mlir::MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), 1, context) {}
  mlir::LogicalResult matchAndRewrite(mlir::Operation *op,
                                      mlir::PatternRewriter &rewriter) const final {
    return isElementwiseUnary(op) ? rewriteUnary(op, rewriter) : mlir::failure();
  }
  virtual mlir::LogicalResult rewriteUnary(mlir::Operation *op,
                                           mlir::PatternRewriter &rewriter) const = 0;
};

/// The element-wise `op` applied to `source` instead of its operand; the
/// result has `source`'s type.
inline mlir::Value applyElementwise(mlir::PatternRewriter &rewriter, mlir::Operation *op,
                                    mlir::Value source) {
  mlir::Operation *clone = rewriter.clone(*op);
  clone->setOperand(0, source);
  clone->getResult(0).setType(source.getType());
  return clone->getResult(0);
}

} // namespace pimc::onnx

#endif // PIMC_DIALECT_ONNX_TRANSFORMS_ELEMENTWISE_H
