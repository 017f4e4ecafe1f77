//===- Reference.h - reference ONNX interpreter -----------------*- C++ -*-===//
//
// Plain, obviously-correct f32 kernels of every operator pimc supports, and
// an interpreter that runs an ONNX graph with them. It reads the model as
// plain data (frontend::Model), independently of pimc's importer and
// dialects, so that it can check them. Graph canonicalization also folds
// constants with these kernels.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_REFERENCE_REFERENCE_H
#define PIMC_REFERENCE_REFERENCE_H

#include "pimc/Frontend/OnnxModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace pimc::ref {

/// A dense row-major f32 tensor.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> data;

  Tensor() = default;
  Tensor(std::vector<int64_t> shape, std::vector<float> data);
  /// A tensor of `shape` filled with `value`.
  static Tensor filled(std::vector<int64_t> shape, float value);
  static Tensor fromData(const frontend::TensorData &tensor);
  frontend::TensorData toData(const std::string &name) const;
  int64_t numElements() const;
};

/// The numpy broadcast of two shapes; fails when they do not broadcast.
llvm::Expected<std::vector<int64_t>> broadcastShape(llvm::ArrayRef<int64_t> a,
                                                    llvm::ArrayRef<int64_t> b);
/// `x` broadcast (numpy rules) to `shape`.
llvm::Expected<Tensor> broadcastTo(const Tensor &x, llvm::ArrayRef<int64_t> shape);

/// Y = alpha * op(A) * op(B) + beta * C, C broadcast to Y (ONNX Gemm).
llvm::Expected<Tensor> gemm(const Tensor &a, const Tensor &b, const Tensor *c,
                            float alpha, float beta, bool transA, bool transB);
/// numpy.matmul, including 1-D operands and broadcast batch dimensions.
llvm::Expected<Tensor> matmul(const Tensor &a, const Tensor &b);
llvm::Expected<Tensor> add(const Tensor &a, const Tensor &b);
Tensor relu(const Tensor &x);
Tensor sigmoid(const Tensor &x);
Tensor tanh(const Tensor &x);
Tensor scale(const Tensor &x, float factor);
/// ONNX Transpose; `perm` is a permutation of the dimensions.
Tensor transpose(const Tensor &x, llvm::ArrayRef<int64_t> perm);
/// The same elements under a new shape of the same element count.
Tensor reshape(const Tensor &x, std::vector<int64_t> shape);
/// ONNX Reshape's target shape: 0 copies the input dimension (unless
/// allowzero) and one -1 is inferred.
llvm::Expected<std::vector<int64_t>> reshapeTarget(llvm::ArrayRef<int64_t> input,
                                                   llvm::ArrayRef<int64_t> shape,
                                                   bool allowZero);
/// ONNX Flatten at `axis` (negative counts from the end).
llvm::Expected<Tensor> flatten(const Tensor &x, int64_t axis);

/// Runs `model` on `inputs` (one per graph input, in order) and returns one
/// tensor per graph output. Errors name the node.
llvm::Expected<std::vector<Tensor>> run(const frontend::Model &model,
                                        const std::vector<Tensor> &inputs);

/// Compares `actual` with `expected` elementwise: |a - e| <= atol + rtol*|e|.
struct Comparison {
  bool match = true;
  double maxAbsError = 0, maxRelError = 0;
  int64_t worstIndex = -1;
  std::string message; // empty when they match
};
Comparison compare(const Tensor &actual, const Tensor &expected, double rtol,
                   double atol);

} // namespace pimc::ref

#endif // PIMC_REFERENCE_REFERENCE_H
