//===- Recurrent.cpp - RNN, GRU and LSTM unrolled into onnx ops -----------===//
//
// Each direction runs its steps in order; a step's state is [B, H] and every
// gate is computed on its own [B, H] tensor, so that no step needs to cut a
// computed tensor by columns. The weights of gate g are the rows
// [g H, (g + 1) H) of W and R: their transposes are the Gemms' constants.
// Biases that are added outside the recurrence (Wb and, except GRU's
// linear_before_reset candidate, Rb) join the input projection's Gemm.
//
//===----------------------------------------------------------------------===//

#include "Recurrent.h"

#include "pimc/Dialect/Onnx/OnnxDialect.h"
#include "pimc/Support/Constants.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace pimc;
using namespace pimc::frontend;

namespace {
class RecurrentBuilder {
public:
  RecurrentBuilder(OpBuilder &builder, Location loc, const RecurrentCell &cell,
                   const RecurrentOperands &operands)
      : b(builder), loc(loc), cell(cell), operands(operands) {}

  SmallVector<Value, 3> build();

private:
  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, b.getF32Type());
  }
  Value constant(ArrayRef<int64_t> shape, std::vector<float> values, const Twine &name) {
    RankedTensorType type = f32(shape);
    return b.create<onnx::ConstantOp>(loc, type,
                                      makeFloatConstant(type, std::move(values), name.str()));
  }
  Value i64s(ArrayRef<int64_t> values) {
    auto type = RankedTensorType::get({(int64_t)values.size()}, b.getI64Type());
    return b.create<onnx::ConstantOp>(loc, type, DenseElementsAttr::get(type, values));
  }
  Value reshape(Value x, ArrayRef<int64_t> shape) {
    if (cast<RankedTensorType>(x.getType()).getShape() == shape)
      return x;
    return b.create<onnx::ReshapeOp>(loc, f32(shape), x, i64s(shape), b.getI64IntegerAttr(0));
  }
  Value transpose(Value x, ArrayRef<int64_t> perm) {
    auto type = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape;
    for (int64_t d : perm)
      shape.push_back(type.getDimSize(d));
    return b.create<onnx::TransposeOp>(loc, f32(shape), x, b.getDenseI64ArrayAttr(perm));
  }
  /// Index `index` of dimension 0 of `x`, without that dimension.
  Value row(Value x, int64_t index) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getDimSize(0) == 1)
      return reshape(x, type.getShape().drop_front());
    SmallVector<int64_t> shape(type.getShape());
    shape[0] = 1;
    Value slice = b.create<onnx::SliceOp>(loc, f32(shape), x, i64s({index}), i64s({index + 1}),
                                          i64s({0}), Value());
    return reshape(slice, type.getShape().drop_front());
  }
  Value concat(ArrayRef<Value> parts, int64_t axis) {
    if (parts.size() == 1)
      return parts.front();
    SmallVector<int64_t> shape(cast<RankedTensorType>(parts.front().getType()).getShape());
    shape[axis] *= parts.size();
    return b.create<onnx::ConcatOp>(loc, f32(shape), parts, b.getI64IntegerAttr(axis));
  }
  template <typename OpT> Value binary(Value lhs, Value rhs) {
    return b.create<OpT>(loc, lhs.getType(), lhs, rhs);
  }
  Value activation(StringRef name, Value x) {
    if (name == "Sigmoid")
      return b.create<onnx::SigmoidOp>(loc, x.getType(), x);
    if (name == "Tanh")
      return b.create<onnx::TanhOp>(loc, x.getType(), x);
    assert(name == "Relu" && "the importer checks the activations");
    return b.create<onnx::ReluOp>(loc, x.getType(), x);
  }

  /// Rows [first, first + count) of the [rows, cols] weights `w` of
  /// direction d, transposed to [cols, count].
  Value transposedRows(ArrayRef<float> w, int64_t d, int64_t first, int64_t count,
                       int64_t cols, const Twine &name) {
    int64_t rows = w.size() / cell.directions() / cols;
    const float *base = w.data() + (d * rows + first) * cols;
    std::vector<float> values(cols * count);
    for (int64_t i = 0; i < count; ++i)
      for (int64_t j = 0; j < cols; ++j)
        values[j * count + i] = base[i * cols + j];
    return constant({cols, count}, std::move(values), name);
  }
  /// Gate g's part of bias `which` (0: Wb, 1: Rb) of direction d; empty
  /// without B.
  std::vector<float> bias(int64_t d, int which, int64_t g) {
    if (operands.b.empty())
      return {};
    int64_t hidden = cell.hidden, gates = cell.gates();
    const float *base = operands.b.data() + (d * 2 + which) * gates * hidden + g * hidden;
    return std::vector<float>(base, base + hidden);
  }
  /// Whether gate g's recurrent bias is added inside the recurrence: GRU's
  /// candidate with linear_before_reset is r (.) (h R^T + Rb).
  bool recurrentBiasInside(int64_t g) {
    return cell.kind == RecurrentCell::Gru && g == 2 && cell.linearBeforeReset;
  }
  Value gemm(Value a, Value weights, Value bias) {
    auto aType = cast<RankedTensorType>(a.getType());
    auto wType = cast<RankedTensorType>(weights.getType());
    return b.create<onnx::GemmOp>(loc, f32({aType.getDimSize(0), wType.getDimSize(1)}), a,
                                  weights, bias, b.getF32FloatAttr(1), b.getF32FloatAttr(1),
                                  b.getI64IntegerAttr(0), b.getI64IntegerAttr(0));
  }

  /// Direction d's hidden state (and LSTM cell state) at every step; the
  /// final ones are `finalH` and `finalC`.
  SmallVector<Value> direction(Value xRows, int64_t d, Value &finalH, Value &finalC);

  OpBuilder &b;
  Location loc;
  const RecurrentCell &cell;
  const RecurrentOperands &operands;
  int64_t steps = 0, batch = 0;
  /// The initial states as [D, B, H] (null when zero).
  Value initialH, initialC;
};
} // namespace

SmallVector<Value> RecurrentBuilder::direction(Value xRows, int64_t d, Value &finalH,
                                               Value &finalC) {
  int64_t hidden = cell.hidden, gates = cell.gates();
  int64_t inputSize = cast<RankedTensorType>(xRows.getType()).getDimSize(1);
  bool backward = d == 1 || !cell.forward;
  std::string name = llvm::formatv("{0}_d{1}", cell.name, d).str();
  // Per gate: X W^T + biases for all steps, as [T, B, H]; R^T; the bias
  // added inside the recurrence.
  SmallVector<Value> projections, recurrentWeights, insideBiases;
  for (int64_t g = 0; g < gates; ++g) {
    Value weights = transposedRows(operands.w, d, g * hidden, hidden, inputSize,
                                   name + "_W" + Twine(g));
    std::vector<float> outside = bias(d, 0, g), inside;
    if (!outside.empty()) {
      std::vector<float> recurrent = bias(d, 1, g);
      if (recurrentBiasInside(g))
        inside = std::move(recurrent);
      else
        for (int64_t j = 0; j < hidden; ++j)
          outside[j] += recurrent[j];
    }
    Value outsideBias =
        outside.empty() ? Value() : constant({hidden}, std::move(outside), name + "_B" + Twine(g));
    projections.push_back(
        reshape(gemm(xRows, weights, outsideBias), {steps, batch, hidden}));
    recurrentWeights.push_back(
        transposedRows(operands.r, d, g * hidden, hidden, hidden, name + "_R" + Twine(g)));
    insideBiases.push_back(inside.empty() ? Value()
                                          : constant({hidden}, std::move(inside),
                                                     name + "_Rb" + Twine(g)));
  }
  auto peephole = [&](int64_t k) -> Value { // k: 0 input, 1 output, 2 forget
    if (operands.p.empty())
      return {};
    const float *base = operands.p.data() + (d * 3 + k) * hidden;
    return constant({hidden}, std::vector<float>(base, base + hidden),
                    name + "_P" + Twine(k));
  };
  Value peepholeInput = peephole(0), peepholeOutput = peephole(1), peepholeForget = peephole(2);
  Value h = initialH ? row(initialH, d) : Value();
  Value c = initialC ? row(initialC, d) : Value();
  ArrayRef<std::string> act =
      ArrayRef(cell.activations).slice(d * cell.activationsPerDirection(),
                                       cell.activationsPerDirection());
  SmallVector<Value> states(steps);
  for (int64_t s = 0; s < steps; ++s) {
    int64_t t = backward ? steps - 1 - s : s;
    // Gate g before its activation, from the state `from` (null: zero).
    auto preActivation = [&](int64_t g, Value from) {
      Value x = row(projections[g], t);
      if (!from)
        return x;
      return binary<onnx::AddOp>(x, gemm(from, recurrentWeights[g], insideBiases[g]));
    };
    auto plusPeephole = [&](Value pre, Value weights, Value state) {
      return weights && state ? binary<onnx::AddOp>(pre, binary<onnx::MulOp>(state, weights))
                              : pre;
    };
    if (cell.kind == RecurrentCell::Rnn) {
      h = activation(act[0], preActivation(0, h));
    } else if (cell.kind == RecurrentCell::Gru) {
      Value z = activation(act[0], preActivation(0, h));
      Value r = activation(act[0], preActivation(1, h));
      Value candidate;
      if (cell.linearBeforeReset) {
        Value x = row(projections[2], t);
        Value recurrent = h ? gemm(h, recurrentWeights[2], insideBiases[2]) : insideBiases[2];
        candidate = recurrent ? binary<onnx::AddOp>(x, binary<onnx::MulOp>(r, recurrent)) : x;
      } else {
        candidate = preActivation(2, h ? binary<onnx::MulOp>(r, h) : Value());
      }
      Value n = activation(act[1], candidate);
      // (1 - z) (.) n + z (.) h = n + z (.) (h - n)
      h = h ? binary<onnx::AddOp>(n, binary<onnx::MulOp>(z, binary<onnx::SubOp>(h, n)))
            : binary<onnx::SubOp>(n, binary<onnx::MulOp>(z, n));
    } else {
      Value i = activation(act[0], plusPeephole(preActivation(0, h), peepholeInput, c));
      Value f = activation(act[0], plusPeephole(preActivation(2, h), peepholeForget, c));
      Value candidate = activation(act[1], preActivation(3, h));
      Value kept = binary<onnx::MulOp>(i, candidate);
      c = c ? binary<onnx::AddOp>(binary<onnx::MulOp>(f, c), kept) : kept;
      Value o = activation(act[0], plusPeephole(preActivation(1, h), peepholeOutput, c));
      h = binary<onnx::MulOp>(o, activation(act[2], c));
    }
    states[t] = h;
  }
  finalH = h;
  finalC = c;
  return states;
}

SmallVector<Value, 3> RecurrentBuilder::build() {
  Value x = operands.x;
  initialH = operands.initialH;
  initialC = operands.initialC;
  if (cell.batchFirst) {
    x = transpose(x, {1, 0, 2});
    for (Value *state : {&initialH, &initialC})
      if (*state)
        *state = transpose(*state, {1, 0, 2});
  }
  auto xType = cast<RankedTensorType>(x.getType());
  steps = xType.getDimSize(0);
  batch = xType.getDimSize(1);
  int64_t hidden = cell.hidden;
  Value xRows = reshape(x, {steps * batch, xType.getDimSize(2)});
  SmallVector<SmallVector<Value>> states;
  SmallVector<Value> finalH, finalC;
  for (int64_t d = 0; d < cell.directions(); ++d) {
    Value h, c;
    states.push_back(direction(xRows, d, h, c));
    finalH.push_back(reshape(h, {1, batch, hidden}));
    if (c)
      finalC.push_back(reshape(c, {1, batch, hidden}));
  }
  // Y: [T, D, B, H], one [1, D, B, H] piece per step.
  Value sequence;
  if (cell.sequence) {
    SmallVector<Value> pieces;
    for (int64_t t = 0; t < steps; ++t) {
      SmallVector<Value> directions;
      for (SmallVector<Value> &direction : states)
        directions.push_back(reshape(direction[t], {1, 1, batch, hidden}));
      pieces.push_back(concat(directions, 1));
    }
    sequence = concat(pieces, 0);
    if (cell.batchFirst)
      sequence = transpose(sequence, {2, 0, 1, 3});
  }
  SmallVector<Value, 3> results = {sequence, concat(finalH, 0)};
  if (cell.kind == RecurrentCell::Lstm)
    results.push_back(concat(finalC, 0));
  if (cell.batchFirst)
    for (Value &state : llvm::drop_begin(results))
      state = transpose(state, {1, 0, 2});
  return results;
}

SmallVector<Value, 3> frontend::buildRecurrent(OpBuilder &builder, Location loc,
                                               const RecurrentCell &cell,
                                               const RecurrentOperands &operands) {
  return RecurrentBuilder(builder, loc, cell, operands).build();
}
