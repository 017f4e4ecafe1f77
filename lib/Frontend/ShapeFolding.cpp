//===- ShapeFolding.cpp - constant shape computations at import -----------===//
//
// Values are int64 (shapes, indices) or f32; integer arithmetic is exact.
// Data movement reads through ref::pickedIndices, as the reference kernels do.
//
//===----------------------------------------------------------------------===//

#include "pimc/Frontend/ShapeFolding.h"
#include "pimc/Reference/Reference.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <numeric>

using namespace pimc;
using namespace pimc::frontend;
using llvm::formatv;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

bool frontend::isFoldedShapeOperator(llvm::StringRef opType) {
  return llvm::is_contained({"Shape", "Size", "Cast", "Gather", "Slice", "Concat",
                             "Unsqueeze", "Squeeze", "Reshape", "Flatten", "Mul", "Add", "Sub",
                             "Div", "ConstantOfShape", "Range"},
                            opType);
}

namespace {
/// A constant as numbers: exact int64 values, or f32 ones.
struct Values {
  std::vector<int64_t> shape;
  bool isFloat = false;
  std::vector<int64_t> ints;
  std::vector<float> floats;

  explicit Values(const TensorData &data)
      : shape(data.dims), isFloat(data.dataType == kFloat), ints(data.ints),
        floats(data.floats.begin(), data.floats.end()) {}
  Values() = default;

  int64_t size() const { return isFloat ? floats.size() : ints.size(); }
  /// The values at `indices`, in order.
  Values at(llvm::ArrayRef<int64_t> indices, std::vector<int64_t> resultShape) const {
    Values result;
    result.shape = std::move(resultShape);
    result.isFloat = isFloat;
    for (int64_t i : indices) {
      if (isFloat)
        result.floats.push_back(floats[i]);
      else
        result.ints.push_back(ints[i]);
    }
    return result;
  }
  TensorData data(llvm::ArrayRef<int64_t> resultShape) const {
    TensorData out;
    out.dims.assign(resultShape.begin(), resultShape.end());
    if (isFloat) {
      out.setFloats(floats);
    } else {
      out.dataType = kInt64;
      out.ints = ints;
    }
    return out;
  }
};

int64_t attrInt(const Node &node, llvm::StringRef name, int64_t fallback) {
  const Attribute *attr = node.attribute(name);
  return attr && attr->kind == Attribute::Int ? attr->i : fallback;
}

/// Integer input `i` as a vector, or the attribute `name` an earlier opset
/// held it in; empty if neither is given.
llvm::Expected<std::vector<int64_t>> intsOf(const Node &node,
                                            llvm::ArrayRef<const TensorData *> inputs,
                                            unsigned i, llvm::StringRef name) {
  if (i < inputs.size() && inputs[i]) {
    if (inputs[i]->dataType == kFloat)
      return fail(formatv("input {0} must hold integers", i));
    return inputs[i]->ints;
  }
  const Attribute *attr = node.attribute(name);
  return attr ? attr->ints : std::vector<int64_t>();
}

/// numpy broadcasting of a binary operator on integers or floats.
llvm::Expected<Values> arithmetic(llvm::StringRef op, const Values &a, const Values &b,
                                  llvm::ArrayRef<int64_t> resultShape) {
  if (a.isFloat != b.isFloat)
    return fail("the operands have different element types");
  std::vector<int64_t> shape(resultShape.begin(), resultShape.end());
  // Each operand read at the result's positions, its unit dimensions repeated.
  auto broadcast = [&](const Values &v) {
    ref::Positions positions;
    size_t missing = shape.size() - v.shape.size();
    for (size_t d = missing; d < shape.size(); ++d)
      positions.push_back(std::vector<int64_t>(shape[d], 0));
    for (size_t d = 0; d < v.shape.size(); ++d)
      if (v.shape[d] != 1)
        std::iota(positions[d].begin(), positions[d].end(), 0);
    std::vector<int64_t> indices = ref::pickedIndices(v.shape, positions);
    // The leading dimensions v lacks repeat the whole of it.
    std::vector<int64_t> all;
    int64_t outer = 1;
    for (size_t d = 0; d < missing; ++d)
      outer *= shape[d];
    for (int64_t o = 0; o < outer; ++o)
      all.insert(all.end(), indices.begin(), indices.end());
    return v.at(all, shape);
  };
  if (a.shape.size() > shape.size() || b.shape.size() > shape.size())
    return fail("the operands do not broadcast to the result");
  Values x = broadcast(a), y = broadcast(b), result;
  result.shape = shape;
  result.isFloat = a.isFloat;
  for (int64_t i = 0; i < x.size(); ++i) {
    if (a.isFloat) {
      float l = x.floats[i], r = y.floats[i];
      result.floats.push_back(op == "Mul" ? l * r : op == "Add" ? l + r : op == "Sub" ? l - r : l / r);
      continue;
    }
    int64_t l = x.ints[i], r = y.ints[i];
    if (op == "Div" && r == 0)
      return fail("an integer division by zero");
    // ONNX's integer division truncates, as C++'s does.
    result.ints.push_back(op == "Mul" ? l * r : op == "Add" ? l + r : op == "Sub" ? l - r : l / r);
  }
  return result;
}
} // namespace

llvm::Expected<TensorData> frontend::foldConstantNode(const Node &node,
                                                      llvm::ArrayRef<const TensorData *> inputs,
                                                      llvm::ArrayRef<int64_t> resultShape) {
  llvm::StringRef op = node.opType;
  std::vector<int64_t> shape(resultShape.begin(), resultShape.end());
  auto input = [&](unsigned i) -> llvm::Expected<Values> {
    if (i >= inputs.size() || !inputs[i])
      return fail(formatv("input {0} is required", i));
    return Values(*inputs[i]);
  };
  llvm::Expected<Values> x = op == "ConstantOfShape" && inputs.empty() ? Values() : input(0);
  if (!x)
    return x.takeError();
  int64_t elements = std::accumulate(shape.begin(), shape.end(), int64_t(1),
                                     std::multiplies<int64_t>());

  // Of the input's shape alone (its values need not be known).
  if (op == "Shape" || op == "Size") {
    Values result;
    result.shape = shape;
    if (op == "Size") {
      result.ints = {std::accumulate(x->shape.begin(), x->shape.end(), int64_t(1),
                                     std::multiplies<int64_t>())};
    } else {
      // Opset 15's start and end (negative from the end, clamped).
      int64_t rank = x->shape.size();
      auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t(0), rank); };
      int64_t start = clamp(attrInt(node, "start", 0)), end = clamp(attrInt(node, "end", rank));
      result.ints.assign(x->shape.begin() + start, x->shape.begin() + std::max(start, end));
    }
    if (result.size() != elements)
      return fail(formatv("{0} dimensions do not fill the result's {1}", result.size(),
                          elements));
    return result.data(shape);
  }
  // Operators that only reshape.
  if (op == "Unsqueeze" || op == "Squeeze" || op == "Reshape" || op == "Flatten") {
    if (x->size() != elements)
      return fail(formatv("{0} values do not fill the result's {1}", x->size(), elements));
    return x->data(shape);
  }
  if (op == "Cast") {
    int64_t to = attrInt(node, "to", 0);
    Values result = *x;
    if (to == kFloat && !x->isFloat) {
      result.floats.assign(x->ints.begin(), x->ints.end());
      result.isFloat = true;
    } else if ((to == kInt64 || to == kInt32) && x->isFloat) {
      for (float v : x->floats)
        result.ints.push_back(static_cast<int64_t>(std::trunc(v)));
      result.isFloat = false;
    } else if (to != kFloat && to != kInt64 && to != kInt32) {
      return fail(formatv("a Cast to {0} is not supported (pimc folds casts to float "
                          "and int64)",
                          dataTypeName(to)));
    }
    return result.data(shape);
  }
  if (op == "Gather") {
    llvm::Expected<Values> indices = input(1);
    if (!indices)
      return indices.takeError();
    if (indices->isFloat)
      return fail("the indices must be integers");
    int64_t rank = x->shape.size(), axis = attrInt(node, "axis", 0);
    if (axis < -rank || axis >= rank)
      return fail(formatv("axis {0} is out of range for rank {1}", axis, rank));
    if (axis < 0)
      axis += rank;
    // The data read as [outer, axis, inner]: positions along the axis.
    std::vector<int64_t> along;
    for (int64_t i : indices->ints) {
      int64_t size = x->shape[axis];
      if (i < -size || i >= size)
        return fail(formatv("index {0} is out of range for a dimension of {1}", i, size));
      along.push_back(i < 0 ? i + size : i);
    }
    ref::Positions positions = ref::allPositions(x->shape);
    positions[axis] = along;
    return x->at(ref::pickedIndices(x->shape, positions), shape).data(shape);
  }
  if (op == "Slice") {
    std::vector<int64_t> bounds[4];
    const char *names[] = {"starts", "ends", "axes", "steps"};
    for (unsigned i = 0; i < 4; ++i) {
      llvm::Expected<std::vector<int64_t>> values = intsOf(node, inputs, i + 1, names[i]);
      if (!values)
        return values.takeError();
      bounds[i] = std::move(*values);
    }
    llvm::Expected<ref::Positions> positions =
        ref::slicePositions(x->shape, bounds[0], bounds[1], bounds[2], bounds[3]);
    if (!positions)
      return positions.takeError();
    return x->at(ref::pickedIndices(x->shape, *positions), shape).data(shape);
  }
  if (op == "Concat") {
    int64_t rank = x->shape.size(), axis = attrInt(node, "axis", 0);
    if (axis < -rank || axis >= rank)
      return fail(formatv("axis {0} is out of range for rank {1}", axis, rank));
    if (axis < 0)
      axis += rank;
    // Each input adds one block per index of the dimensions before the axis.
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d)
      outer *= x->shape[d];
    std::vector<Values> parts;
    for (unsigned i = 0; i < inputs.size(); ++i) {
      llvm::Expected<Values> part = input(i);
      if (!part)
        return part.takeError();
      if (part->isFloat != x->isFloat)
        return fail("the inputs have different element types");
      parts.push_back(std::move(*part));
    }
    Values result;
    result.isFloat = x->isFloat;
    for (int64_t o = 0; o < outer; ++o)
      for (const Values &part : parts) {
        int64_t block = part.size() / outer;
        if (part.isFloat)
          result.floats.insert(result.floats.end(), part.floats.begin() + o * block,
                               part.floats.begin() + (o + 1) * block);
        else
          result.ints.insert(result.ints.end(), part.ints.begin() + o * block,
                             part.ints.begin() + (o + 1) * block);
      }
    if (result.size() != elements)
      return fail("the inputs do not fill the result");
    return result.data(shape);
  }
  if (op == "Mul" || op == "Add" || op == "Sub" || op == "Div") {
    llvm::Expected<Values> y = input(1);
    if (!y)
      return y.takeError();
    llvm::Expected<Values> result = arithmetic(op, *x, *y, shape);
    if (!result)
      return result.takeError();
    return result->data(shape);
  }
  if (op == "ConstantOfShape") {
    // The value: a one-element tensor, f32 0 by default.
    Values result;
    result.isFloat = true;
    float fill = 0;
    int64_t intFill = 0;
    if (const Attribute *attr = node.attribute("value"); attr && attr->tensor) {
      const TensorData &value = *attr->tensor;
      if (value.numElements() != 1)
        return fail("the value must have one element");
      result.isFloat = value.dataType == kFloat;
      if (value.dataType != kFloat && value.dataType != kInt64 && value.dataType != kInt32)
        return fail(formatv("a value of type {0} is not supported", dataTypeName(value.dataType)));
      if (result.isFloat)
        fill = value.floats[0];
      else
        intFill = value.ints[0];
    }
    if (result.isFloat)
      result.floats.assign(elements, fill);
    else
      result.ints.assign(elements, intFill);
    return result.data(shape);
  }
  assert(op == "Range" && "an operator isFoldedShapeOperator names is not folded");
  llvm::Expected<Values> limit = input(1), delta = input(2);
  if (!limit)
    return limit.takeError();
  if (!delta)
    return delta.takeError();
  if (x->size() != 1 || limit->size() != 1 || delta->size() != 1)
    return fail("start, limit and delta are scalars");
  Values result;
  result.isFloat = x->isFloat;
  // ONNX's count of elements: max(ceil((limit - start) / delta), 0).
  for (int64_t i = 0; i < elements; ++i) {
    if (x->isFloat)
      result.floats.push_back(x->floats[0] + i * delta->floats[0]);
    else
      result.ints.push_back(x->ints[0] + i * delta->ints[0]);
  }
  return result.data(shape);
}

llvm::Expected<TensorData> frontend::constantNodeValue(const Node &node) {
  TensorData tensor;
  if (const Attribute *attr = node.attribute("value"); attr && attr->tensor) {
    tensor = *attr->tensor;
  } else if (const Attribute *attr = node.attribute("value_float")) {
    tensor.setFloats({attr->f});
  } else if (const Attribute *attr = node.attribute("value_floats")) {
    tensor.dims = {(int64_t)attr->floats.size()};
    tensor.setFloats(attr->floats);
  } else if (const Attribute *attr = node.attribute("value_int")) {
    tensor.dataType = kInt64;
    tensor.ints = {attr->i};
  } else if (const Attribute *attr = node.attribute("value_ints")) {
    tensor.dataType = kInt64;
    tensor.dims = {(int64_t)attr->ints.size()};
    tensor.ints = attr->ints;
  } else {
    return fail("only tensor, float and int values of Constant are supported");
  }
  return tensor;
}

llvm::Expected<std::optional<TensorData>>
frontend::foldKnownNode(const Node &node, llvm::ArrayRef<const TensorData *> inputs,
                        llvm::ArrayRef<int64_t> resultShape) {
  if (node.opType == "Constant")
    return constantNodeValue(node);
  if (!isFoldedShapeOperator(node.opType))
    return std::nullopt;
  return foldConstantNode(node, inputs, resultShape);
}
