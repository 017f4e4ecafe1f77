//===- Recurrent.h - RNN, GRU and LSTM unrolled into onnx ops ---*- C++ -*-===//
//
// The importer's form of ONNX's recurrent operators: the time loop unrolled,
// built from operators pimc lowers already.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_LIB_FRONTEND_RECURRENT_H
#define PIMC_LIB_FRONTEND_RECURRENT_H

#include "mlir/IR/Builders.h"

#include <string>
#include <vector>

namespace pimc::frontend {

/// A recurrent node whose attributes the importer has checked.
struct RecurrentCell {
  enum Kind { Rnn, Gru, Lstm } kind = Rnn;
  int64_t hidden = 0;
  /// Whether the forward, the reverse or both directions (in that order) run.
  bool forward = true, reverse = false;
  /// The activations (RNN f; GRU f, g; LSTM f, g, h) of each direction:
  /// "Sigmoid", "Tanh" or "Relu".
  std::vector<std::string> activations;
  bool linearBeforeReset = false;
  /// 1: X, Y, Y_h and Y_c are batch-first.
  bool batchFirst = false;
  /// Whether the output sequence Y is used (Y_h and Y_c always are built).
  bool sequence = true;
  /// A name for the constants made from the weights.
  std::string name;

  int64_t directions() const { return forward + reverse; }
  int64_t gates() const { return kind == Rnn ? 1 : kind == Gru ? 3 : 4; }
  size_t activationsPerDirection() const { return kind == Rnn ? 1 : kind == Gru ? 2 : 3; }
};

/// The operands: X a computed tensor, the weights W, R, B and peepholes P as
/// their values in ONNX's layout (B and P empty when omitted), initial_h and
/// initial_c null when omitted or zero.
struct RecurrentOperands {
  mlir::Value x;
  llvm::ArrayRef<float> w, r, b, p;
  mlir::Value initialH, initialC;
};

/// The outputs Y (null unless `cell.sequence`), Y_h and Y_c (LSTM only) of
/// `cell`, unrolled over the time steps. The input projection X W^T of every
/// step is one Gemm of T x B rows per gate; the recurrent projection h R^T is a Gemm per step and gate that
/// multiplies by the same constant every step.
llvm::SmallVector<mlir::Value, 3> buildRecurrent(mlir::OpBuilder &builder, mlir::Location loc,
                                                 const RecurrentCell &cell,
                                                 const RecurrentOperands &operands);

} // namespace pimc::frontend

#endif // PIMC_LIB_FRONTEND_RECURRENT_H
