//===- OnnxImporter.cpp - ONNX model to the onnx dialect ------------------===//
//
// Each ONNX node becomes one onnx dialect op whose result types come from
// ONNX shape inference. Initializers become constants that view the parsed
// protobuf's memory.
//
//===----------------------------------------------------------------------===//

#include "pimc/Frontend/OnnxImporter.h"
#include "Recurrent.h"
#include "pimc/Frontend/ShapeFolding.h"
#include "pimc/Reference/Reference.h"
#include "pimc/Dialect/Onnx/OnnxDialect.h"
#include "pimc/Support/Constants.h"
#include "pimc/Support/InputLimits.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FormatVariadic.h"

#include <functional>

using namespace mlir;
using namespace pimc;
using namespace pimc::frontend;
using llvm::formatv;

namespace {
class Importer {
public:
  Importer(MLIRContext &context, const Model &model, StringRef path, bool irOwnsWeights)
      : context(context), model(model), path(path), irOwnsWeights(irOwnsWeights),
        builder(&context) {}

  llvm::Expected<OwningOpRef<ModuleOp>> run();

private:
  llvm::Error fail(const Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  }
  llvm::Error failAt(const Node &node, const Twine &message) {
    return fail("node " + node.describe() + ": " + message);
  }

  llvm::Expected<RankedTensorType> tensorType(const ValueInfo &info,
                                              StringRef what);
  llvm::Expected<RankedTensorType> resultType(const Node &node, unsigned index);
  /// A constant of `tensor`, whose f32 data it shares.
  llvm::Expected<Value> constant(const TensorData &tensor, Location loc);
  /// A 1-D i64 constant: a shape, starts, ends, axes, steps, lengths.
  Value intConstant(ArrayRef<int64_t> values, Location loc) {
    auto type = RankedTensorType::get({(int64_t)values.size()}, builder.getI64Type());
    return builder.create<onnx::ConstantOp>(loc, type, DenseElementsAttr::get(type, values));
  }
  llvm::Expected<Value> input(const Node &node, unsigned index);
  /// The operand if it is given, a null Value if it is omitted.
  llvm::Expected<Value> optionalInput(const Node &node, unsigned index);
  llvm::Error importNode(const Node &node);
  /// Folds `node` if it computes a constant from shapes or constants (see
  /// ShapeFolding.h); returns whether it did.
  llvm::Expected<bool> foldShapeNode(const Node &node);
  /// The value of a constant operand as plain data, if it is one.
  std::optional<TensorData> constantData(Value value);
  /// Input `i` of `node` as plain data, if it is given and a constant.
  std::optional<TensorData> constantInput(const Node &node, unsigned i) {
    if (i >= node.inputs.size() || node.inputs[i].empty())
      return std::nullopt;
    if (const TensorData *init = initializers.lookup(node.inputs[i]))
      return *init;
    return constantData(values.lookup(node.inputs[i]));
  }
  /// RNN, GRU and LSTM, unrolled (Recurrent.h).
  llvm::Error importRecurrent(const Node &node, Location loc);
  /// The cell a recurrent node's attributes describe, when pimc builds it.
  llvm::Expected<RecurrentCell> recurrentCell(const Node &node);
  Location locationOf(const Node &node);

  int64_t intAttr(const Node &node, StringRef name, int64_t fallback) {
    const frontend::Attribute *attr = node.attribute(name);
    return attr && attr->kind == frontend::Attribute::Int ? attr->i : fallback;
  }
  float floatAttr(const Node &node, StringRef name, float fallback) {
    const frontend::Attribute *attr = node.attribute(name);
    return attr && attr->kind == frontend::Attribute::Float ? attr->f : fallback;
  }

  MLIRContext &context;
  const Model &model;
  StringRef path;
  bool irOwnsWeights;
  OpBuilder builder;
  llvm::StringMap<Value> values;
  llvm::StringMap<const TensorData *> initializers;
};
} // namespace

llvm::Expected<RankedTensorType> Importer::tensorType(const ValueInfo &info,
                                                      StringRef what) {
  if (!info.isTensor)
    return fail(formatv("{0} '{1}' is not a tensor (sequences, maps and "
                        "optionals are not supported)",
                        what, info.name));
  if (!info.hasShape)
    return fail(formatv("{0} '{1}' has no known shape; pimc needs static shapes",
                        what, info.name));
  for (size_t d = 0; d < info.dims.size(); ++d)
    if (info.dims[d] < 0) {
      std::string symbol = info.dimParams[d].empty()
                               ? std::string("unknown")
                               : "'" + info.dimParams[d] + "'";
      return fail(formatv("{0} '{1}' has a dynamic dimension {2} ({3}); pimc "
                          "needs static shapes (export the model with fixed "
                          "input sizes)",
                          what, info.name, d, symbol));
    }
  // An empty tensor has nothing to compute; a huge one would be allocated.
  if (llvm::is_contained(info.dims, 0))
    return fail(formatv("{0} '{1}' has a dimension of size 0; pimc needs non-empty "
                        "tensors",
                        what, info.name));
  if (!boundedProduct(info.dims))
    return fail(formatv("{0} '{1}' has more than {2} elements", what, info.name,
                        kMaxTensorElements));
  Type element;
  if (info.elementType == kFloat)
    element = builder.getF32Type();
  else if (info.elementType == kInt64)
    element = builder.getI64Type();
  else
    return fail(formatv("{0} '{1}' has element type {2}; pimc supports float "
                        "tensors (and int64 shapes)",
                        what, info.name, dataTypeName(info.elementType)));
  return RankedTensorType::get(info.dims, element);
}

llvm::Expected<RankedTensorType> Importer::resultType(const Node &node,
                                                      unsigned index) {
  const std::string &name = node.outputs[index];
  auto it = model.graph.valueInfo.find(name);
  if (it == model.graph.valueInfo.end())
    return failAt(node, formatv("ONNX shape inference found no type for output "
                                "'{0}'",
                                name));
  llvm::Expected<RankedTensorType> type = tensorType(it->second, "value");
  if (!type)
    return failAt(node, llvm::toString(type.takeError()));
  return type;
}

Location Importer::locationOf(const Node &node) {
  return NameLoc::get(builder.getStringAttr(node.describe()),
                      FileLineColLoc::get(&context, path, 0, 0));
}

llvm::Expected<Value> Importer::constant(const TensorData &tensor, Location loc) {
  Type element;
  if (tensor.dataType == kFloat)
    element = builder.getF32Type();
  else if (tensor.dataType == kInt64 || tensor.dataType == kInt32)
    element = builder.getI64Type();
  else
    return fail(formatv("constant '{0}' has element type {1}; pimc supports "
                        "float tensors (and int64 shapes)",
                        tensor.name, dataTypeName(tensor.dataType)));
  auto type = RankedTensorType::get(tensor.dims, element);
  ElementsAttr value;
  if (element.isF32())
    value = viewFloatConstant(type, tensor.floats, tensor.name, tensor.owner, irOwnsWeights);
  else
    value = DenseElementsAttr::get(type, ArrayRef<int64_t>(tensor.ints));
  return builder.create<onnx::ConstantOp>(loc, type, value).getResult();
}

llvm::Expected<Value> Importer::optionalInput(const Node &node, unsigned index) {
  if (index >= node.inputs.size() || node.inputs[index].empty())
    return Value();
  const std::string &name = node.inputs[index];
  if (Value value = values.lookup(name))
    return value;
  if (const TensorData *init = initializers.lookup(name)) {
    llvm::Expected<Value> value =
        constant(*init, NameLoc::get(builder.getStringAttr(name)));
    if (!value)
      return value.takeError();
    values[name] = *value;
    return *value;
  }
  return failAt(node, formatv("input '{0}' is not produced by any earlier node "
                              "(the graph is not topologically sorted)",
                              name));
}

llvm::Expected<Value> Importer::input(const Node &node, unsigned index) {
  llvm::Expected<Value> value = optionalInput(node, index);
  if (value && !*value)
    return failAt(node, formatv("input {0} is required", index));
  return value;
}

std::optional<TensorData> Importer::constantData(Value value) {
  auto op = value ? value.getDefiningOp<onnx::ConstantOp>() : onnx::ConstantOp();
  if (!op)
    return std::nullopt;
  TensorData data;
  auto type = cast<RankedTensorType>(op.getType());
  data.dims.assign(type.getShape().begin(), type.getShape().end());
  if (std::optional<SmallVector<int64_t>> ints = getIntValues(op.getValue())) {
    data.dataType = kInt64;
    data.ints.assign(ints->begin(), ints->end());
    return data;
  }
  std::optional<FloatData> floats = FloatData::get(op.getValue());
  if (!floats)
    return std::nullopt;
  data.setFloats(std::vector<float>(floats->values().begin(), floats->values().end()));
  return data;
}

llvm::Expected<bool> Importer::foldShapeNode(const Node &node) {
  const std::string &op = node.opType;
  if (!isFoldedShapeOperator(op) || node.outputs.size() != 1)
    return false;
  // Shape and Size read their input's type alone.
  bool shapeOf = op == "Shape" || op == "Size";
  SmallVector<std::optional<TensorData>> data;
  bool integers = shapeOf;
  for (unsigned i = 0; i < node.inputs.size(); ++i) {
    llvm::Expected<Value> value = optionalInput(node, i);
    if (!value)
      return value.takeError();
    if (!*value) {
      data.push_back(std::nullopt);
      continue;
    }
    if (shapeOf) {
      TensorData dims;
      llvm::append_range(dims.dims, cast<RankedTensorType>(value->getType()).getShape());
      data.push_back(std::move(dims));
      continue;
    }
    std::optional<TensorData> constant = constantData(*value);
    if (!constant)
      return false;
    integers |= constant->dataType != kFloat;
    data.push_back(std::move(constant));
  }
  // Float data alone is folded by canonicalization, where the graph's
  // operators run on the reference kernels.
  if (!integers && op != "Cast" && op != "ConstantOfShape" && op != "Range")
    return false;
  llvm::Expected<RankedTensorType> type = resultType(node, 0);
  if (!type)
    return type.takeError();
  SmallVector<const TensorData *> inputs;
  for (const std::optional<TensorData> &d : data)
    inputs.push_back(d ? &*d : nullptr);
  llvm::Expected<TensorData> folded = foldConstantNode(node, inputs, type->getShape());
  if (!folded)
    return failAt(node, llvm::toString(folded.takeError()));
  folded->name = node.outputs[0];
  llvm::Expected<Value> constant = this->constant(*folded, locationOf(node));
  if (!constant)
    return failAt(node, llvm::toString(constant.takeError()));
  values[node.outputs[0]] = *constant;
  return true;
}

llvm::Error Importer::importNode(const Node &node) {
  Location loc = locationOf(node);
  if (!node.domain.empty() && node.domain != "ai.onnx")
    return failAt(node, formatv("operators of domain '{0}' are not supported",
                                node.domain));
  llvm::Expected<bool> folded = foldShapeNode(node);
  if (!folded)
    return folded.takeError();
  if (*folded)
    return llvm::Error::success();
  // Operands pimc programs into crossbars or folds must be constants.
  for (unsigned operand : constantOperandIndices(node.opType)) {
    if (operand >= node.inputs.size() || node.inputs[operand].empty())
      continue;
    const std::string &name = node.inputs[operand];
    Value value = values.lookup(name);
    if (!initializers.count(name) &&
        !(value && value.getDefiningOp<onnx::ConstantOp>()))
      return failAt(node, formatv("input {0} ('{1}') must be a constant (an "
                                  "initializer or a Constant node): pimc programs "
                                  "weights into crossbars before inference",
                                  operand, name));
  }

  auto results = [&](unsigned count) -> llvm::Expected<SmallVector<Type>> {
    SmallVector<Type> types;
    for (unsigned i = 0; i < count; ++i) {
      llvm::Expected<RankedTensorType> type = resultType(node, i);
      if (!type)
        return type.takeError();
      types.push_back(*type);
    }
    return types;
  };
  auto define = [&](Operation *op) {
    for (auto [name, result] : llvm::zip(node.outputs, op->getResults()))
      values[name] = result;
  };
  auto operands = [&](unsigned count) -> llvm::Expected<SmallVector<Value>> {
    SmallVector<Value> list;
    for (unsigned i = 0; i < count; ++i) {
      llvm::Expected<Value> value = input(node, i);
      if (!value)
        return value.takeError();
      list.push_back(*value);
    }
    return list;
  };
  auto checkFloat = [&](ValueRange list) -> llvm::Error {
    for (Value v : list)
      if (!cast<RankedTensorType>(v.getType()).getElementType().isF32())
        return failAt(node, "expects float tensors");
    return llvm::Error::success();
  };
  // A node that moves or resamples the float tensor of its first input into
  // its one result: the input and the two types.
  struct Reshaping {
    Value data;
    RankedTensorType type, resultType;
  };
  auto reshaping = [&]() -> llvm::Expected<Reshaping> {
    llvm::Expected<Value> data = input(node, 0);
    if (!data)
      return data.takeError();
    llvm::Expected<SmallVector<Type>> types = results(1);
    if (!types)
      return types.takeError();
    if (llvm::Error e = checkFloat({*data}))
      return std::move(e);
    return Reshaping{*data, cast<RankedTensorType>(data->getType()),
                     cast<RankedTensorType>((*types)[0])};
  };

  const std::string &op = node.opType;
  // Operators whose semantics pimc implements from some opset on (earlier
  // versions broadcast or take their operands differently).
  static const std::map<std::string, int64_t, std::less<>> since = {
      {"Add", 7}, {"Sub", 7}, {"Mul", 7}, {"Div", 7}, {"Gemm", 7},
      {"BatchNormalization", 7}, {"Reshape", 5}, {"Concat", 4}, {"Dropout", 7},
      {"MatMul", 1}, {"RNN", 7}, {"GRU", 7}, {"LSTM", 7}};
  if (auto it = since.find(op); it != since.end() && model.opsetVersion < it->second)
    return failAt(node, formatv("{0} of opset {1} is not supported (pimc implements "
                                "{0} from opset {2})",
                                op, model.opsetVersion, it->second));
  if (op == "RNN" || op == "GRU" || op == "LSTM")
    return importRecurrent(node, loc);
  if (op == "Constant") {
    llvm::Expected<TensorData> tensor = constantNodeValue(node);
    if (!tensor)
      return failAt(node, llvm::toString(tensor.takeError()));
    tensor->name = node.outputs[0];
    llvm::Expected<Value> value = constant(*tensor, loc);
    if (!value)
      return failAt(node, llvm::toString(value.takeError()));
    values[node.outputs[0]] = *value;
    return llvm::Error::success();
  }

  // Every other operator produces float tensors typed by shape inference.
  if (op == "Gemm") {
    llvm::Expected<SmallVector<Value>> ab = operands(2);
    if (!ab)
      return ab.takeError();
    llvm::Expected<Value> c = optionalInput(node, 2);
    if (!c)
      return c.takeError();
    llvm::Expected<SmallVector<Type>> types = results(1);
    if (!types)
      return types.takeError();
    SmallVector<Value> all = *ab;
    if (*c)
      all.push_back(*c);
    if (llvm::Error e = checkFloat(all))
      return e;
    auto gemm = builder.create<onnx::GemmOp>(
        loc, (*types)[0], (*ab)[0], (*ab)[1], *c,
        builder.getF32FloatAttr(floatAttr(node, "alpha", 1.0f)),
        builder.getF32FloatAttr(floatAttr(node, "beta", 1.0f)),
        builder.getI64IntegerAttr(intAttr(node, "transA", 0)),
        builder.getI64IntegerAttr(intAttr(node, "transB", 0)));
    define(gemm);
    return llvm::Error::success();
  }

  // Split has one result per part; before opset 13 the lengths are an
  // attribute.
  if (op == "Split") {
    llvm::Expected<SmallVector<Value>> data = operands(1);
    if (!data)
      return data.takeError();
    llvm::Expected<Value> split = optionalInput(node, 1);
    if (!split)
      return split.takeError();
    llvm::Expected<SmallVector<Type>> types = results(node.outputs.size());
    if (!types)
      return types.takeError();
    if (llvm::Error e = checkFloat(*data))
      return e;
    Value lengths = *split;
    if (const frontend::Attribute *attr = node.attribute("split"); attr && !lengths)
      lengths = intConstant(attr->ints, loc);
    define(builder.create<onnx::SplitOp>(loc, *types, (*data)[0], lengths,
                                         builder.getI64IntegerAttr(intAttr(node, "axis", 0))));
    return llvm::Error::success();
  }

  // Every other operator has one float result typed by shape inference and
  // takes inputs [0, minInputs) and optionally up to maxInputs (null when
  // omitted).
  using Build = std::function<Operation *(Type, ArrayRef<Value>)>;
  struct Simple {
    unsigned minInputs, maxInputs;
    Build build;
  };
  auto ints = [&](StringRef name) -> DenseI64ArrayAttr {
    const frontend::Attribute *attr = node.attribute(name);
    if (!attr || attr->kind != frontend::Attribute::Ints)
      return {};
    return builder.getDenseI64ArrayAttr(attr->ints);
  };
  auto string = [&](StringRef name, StringRef fallback) {
    const frontend::Attribute *attr = node.attribute(name);
    return builder.getStringAttr(attr && attr->kind == frontend::Attribute::String
                                     ? StringRef(attr->s)
                                     : fallback);
  };
  auto i64 = [&](StringRef name, int64_t fallback) {
    return builder.getI64IntegerAttr(intAttr(node, name, fallback));
  };
  auto f32 = [&](StringRef name, float fallback) {
    return builder.getF32FloatAttr(floatAttr(node, name, fallback));
  };
  auto binary = [&](auto tag) {
    using OpT = decltype(tag);
    return Simple{2, 2, [&](Type t, ArrayRef<Value> v) -> Operation * {
                    return builder.create<OpT>(loc, t, v[0], v[1]);
                  }};
  };
  auto unary = [&](auto tag) {
    using OpT = decltype(tag);
    return Simple{1, 1, [&](Type t, ArrayRef<Value> v) -> Operation * {
                    return builder.create<OpT>(loc, t, v[0]);
                  }};
  };
  // Squeeze and Unsqueeze only reshape: shape inference knows the result.
  auto reshapeToResult = Simple{1, 2, [&](Type t, ArrayRef<Value> v) -> Operation * {
    Value shape = intConstant(cast<RankedTensorType>(t).getShape(), loc);
    return builder.create<onnx::ReshapeOp>(loc, t, v[0], shape,
                                           builder.getI64IntegerAttr(0));
  }};
  // Operators the vector unit computes exactly, built from the operators
  // above: -x is x * -1, min(a, b) = -max(-a, -b), PRelu is
  // relu(x) - slope * relu(-x), HardSigmoid a clamped affine map.
  auto scalar = [&](float value) -> Value {
    auto type = RankedTensorType::get({}, builder.getF32Type());
    return builder.create<onnx::ConstantOp>(loc, type, DenseElementsAttr::get(type, value));
  };
  auto scaled = [&](Value x, float factor) -> Value {
    return builder.create<onnx::MulOp>(loc, x.getType(), x, scalar(factor));
  };
  // Folds the inputs from the first with a broadcasting binary operator.
  auto fold = [&](auto tag, ArrayRef<Value> v) -> Value {
    using OpT = decltype(tag);
    Value result = v[0];
    for (Value next : v.drop_front()) {
      SmallVector<int64_t> shape;
      OpTrait::util::getBroadcastedShape(
          cast<RankedTensorType>(result.getType()).getShape(),
          cast<RankedTensorType>(next.getType()).getShape(), shape);
      result = builder.create<OpT>(loc, RankedTensorType::get(shape, builder.getF32Type()),
                                   result, next);
    }
    return result;
  };
  // The variadic operators' one-input form is the identity.
  auto variadic = [&](llvm::function_ref<Value(ArrayRef<Value>)> combine) {
    return Simple{1, ~0u, [&, combine](Type t, ArrayRef<Value> v) -> Operation * {
                    Value result = v.size() == 1 ? builder.create<onnx::IdentityOp>(loc, t, v[0])
                                                 : combine(v);
                    return result.getDefiningOp();
                  }};
  };
  auto hardSigmoid = [&](Type t, Value x, float alpha, float beta) -> Operation * {
    Value affine = builder.create<onnx::AddOp>(loc, t, scaled(x, alpha), scalar(beta));
    return builder.create<onnx::ClipOp>(loc, t, affine, scalar(0), scalar(1));
  };
  auto maxOf = [&](ArrayRef<Value> v) { return fold(onnx::MaxOp(), v); };
  auto minOf = [&](ArrayRef<Value> v) {
    SmallVector<Value> negated;
    for (Value x : v)
      negated.push_back(scaled(x, -1));
    return scaled(fold(onnx::MaxOp(), negated), -1);
  };
  auto sumOf = [&](ArrayRef<Value> v) { return fold(onnx::AddOp(), v); };
  auto meanOf = [&](ArrayRef<Value> v) {
    return scaled(fold(onnx::AddOp(), v), 1.0f / v.size());
  };
  auto reshaped = [&](Value x, ArrayRef<int64_t> shape) -> Value {
    return builder.create<onnx::ReshapeOp>(
        loc, RankedTensorType::get(shape, builder.getF32Type()), x, intConstant(shape, loc),
        builder.getI64IntegerAttr(0));
  };
  // Data movement is made of views: the positions `along` (repeats and any
  // order) of dimension `axis` of `x` are a Concat of the Slices of their
  // runs of consecutive positions.
  auto pickAlong = [&](Value x, int64_t axis, ArrayRef<int64_t> along) -> Value {
    auto type = cast<RankedTensorType>(x.getType());
    if (llvm::equal(along, llvm::seq<int64_t>(0, type.getDimSize(axis))))
      return x;
    std::map<std::pair<int64_t, int64_t>, Value> runs;
    SmallVector<Value> parts;
    for (size_t i = 0; i < along.size();) {
      size_t j = i + 1;
      while (j < along.size() && along[j] == along[j - 1] + 1)
        ++j;
      Value &part = runs[{along[i], j - i}];
      if (!part) {
        SmallVector<int64_t> shape(type.getShape());
        shape[axis] = j - i;
        part = builder.create<onnx::SliceOp>(loc, type.clone(shape), x,
                                             intConstant({along[i]}, loc),
                                             intConstant({along[j - 1] + 1}, loc),
                                             intConstant({axis}, loc), Value());
      }
      parts.push_back(part);
      i = j;
    }
    if (parts.size() == 1)
      return parts.front();
    SmallVector<int64_t> shape(type.getShape());
    shape[axis] = along.size();
    return builder.create<onnx::ConcatOp>(loc, type.clone(shape), parts,
                                          builder.getI64IntegerAttr(axis));
  };
  auto transposed = [&](Value x, ArrayRef<int64_t> perm) -> Value {
    auto type = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(type.getDimSize(p));
    return builder.create<onnx::TransposeOp>(loc, type.clone(shape), x,
                                             builder.getDenseI64ArrayAttr(perm));
  };
  // Resize and Upsample with static sizes: every output is a constant linear
  // combination of inputs, dimension by dimension (ref::resizeWeights). The
  // nearest one is a view; interpolation multiplies the dimension, moved
  // last, by a constant matrix on the crossbars.
  if (op == "Resize" || op == "Upsample") {
    llvm::Expected<Reshaping> moved = reshaping();
    if (!moved)
      return moved.takeError();
    Value data = moved->data;
    RankedTensorType type = moved->type, resultType = moved->resultType;
    ref::ResizeAttrs attrs;
    attrs.mode = string("mode", "nearest").str();
    std::optional<TensorData> scales, sizes;
    if (op == "Upsample") {
      attrs.coordinateMode = "asymmetric";
      attrs.nearestMode = "floor";
      scales = constantInput(node, 1);
      if (const frontend::Attribute *attr = node.attribute("scales"); attr && !scales) {
        scales.emplace();
        scales->setFloats(attr->floats);
      }
    } else {
      attrs.coordinateMode = string("coordinate_transformation_mode", "half_pixel").str();
      attrs.nearestMode = string("nearest_mode", "round_prefer_floor").str();
      attrs.cubicA = floatAttr(node, "cubic_coeff_a", -0.75f);
      attrs.excludeOutside = intAttr(node, "exclude_outside", 0) != 0;
      scales = constantInput(node, 2);
      sizes = constantInput(node, 3);
    }
    int64_t rank = type.getRank();
    SmallVector<double> factors;
    if (sizes && sizes->numElements() == rank) {
      for (int64_t d = 0; d < rank; ++d)
        factors.push_back(double(sizes->ints[d]) / type.getDimSize(d));
    } else if (scales && scales->dataType == kFloat && scales->numElements() == rank) {
      factors.assign(scales->floats.begin(), scales->floats.end());
    } else {
      return failAt(node, "needs constant scales or sizes, one per dimension");
    }
    Value x = data;
    // The last dimension first, and those resized to one element after the
    // others: each product then reads whole rows, not a column of results.
    SmallVector<int64_t> order = llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank)));
    std::stable_partition(order.begin(), order.end(),
                          [&](int64_t d) { return resultType.getDimSize(d) != 1; });
    for (int64_t d : order) {
      int64_t in = type.getDimSize(d), out = resultType.getDimSize(d);
      llvm::Expected<ref::ResizeWeights> weights = ref::resizeWeights(in, out, factors[d], attrs);
      if (!weights)
        return failAt(node, llvm::toString(weights.takeError()));
      bool nearest = llvm::all_of(*weights, [](const auto &w) {
        return w.size() == 1 && w.front().second == 1;
      });
      if (nearest) {
        SmallVector<int64_t> along;
        for (const auto &w : *weights)
          along.push_back(w.front().first);
        x = pickAlong(x, d, along);
        continue;
      }
      std::vector<float> matrix(in * out, 0.0f);
      for (int64_t j = 0; j < out; ++j)
        for (auto [index, weight] : (*weights)[j])
          matrix[index * out + j] += weight;
      TensorData constant;
      constant.name = node.outputs[0] + "_interpolation_" + std::to_string(d);
      constant.dims = {in, out};
      constant.setFloats(std::move(matrix));
      llvm::Expected<Value> b = this->constant(constant, loc);
      if (!b)
        return failAt(node, llvm::toString(b.takeError()));
      SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
      std::swap(perm[d], perm[rank - 1]);
      Value moved = d == rank - 1 ? x : transposed(x, perm);
      SmallVector<int64_t> shape(cast<RankedTensorType>(moved.getType()).getShape());
      shape.back() = out;
      x = builder.create<onnx::MatMulOp>(loc, cast<RankedTensorType>(moved.getType()).clone(shape),
                                         moved, *b);
      if (d != rank - 1)
        x = transposed(x, perm);
    }
    define(reshaped(x, resultType.getShape()).getDefiningOp());
    return llvm::Error::success();
  }
  if (op == "Gather" || op == "Expand" || op == "Tile" || op == "DepthToSpace" ||
      op == "SpaceToDepth") {
    size_t inputs = op == "Gather" || op == "Expand" || op == "Tile" ? 2 : 1;
    if (node.inputs.size() != inputs)
      return failAt(node, formatv("takes {0} inputs, not {1}", inputs, node.inputs.size()));
    llvm::Expected<Reshaping> moved = reshaping();
    if (!moved)
      return moved.takeError();
    Value data = moved->data;
    RankedTensorType type = moved->type, resultType = moved->resultType;
    int64_t rank = type.getRank();
    SmallVector<int64_t> operand;
    if (inputs == 2) {
      llvm::Expected<Value> second = input(node, 1);
      if (!second)
        return second.takeError();
      std::optional<TensorData> constant = constantData(*second);
      if (!constant || constant->dataType == kFloat)
        return failAt(node, "input 1 must be a constant integer tensor");
      operand.assign(constant->ints.begin(), constant->ints.end());
    }
    Value x = data;
    if (op == "Gather") {
      int64_t axis = intAttr(node, "axis", 0);
      if (axis < -rank || axis >= rank)
        return failAt(node, formatv("axis {0} is out of range for rank {1}", axis, rank));
      if (axis < 0)
        axis += rank;
      int64_t size = type.getDimSize(axis);
      for (int64_t &index : operand) {
        if (index < -size || index >= size)
          return failAt(node, formatv("index {0} is out of range for a dimension of {1}",
                                      index, size));
        if (index < 0)
          index += size;
      }
      x = pickAlong(x, axis, operand);
    } else if (op == "Expand") {
      // Right-aligned to the result's rank; each unit dimension repeated.
      SmallVector<int64_t> aligned(resultType.getRank() - rank, 1);
      llvm::append_range(aligned, type.getShape());
      x = reshaped(x, aligned);
      for (int64_t d = 0; d < resultType.getRank(); ++d)
        if (aligned[d] == 1 && resultType.getDimSize(d) != 1)
          x = pickAlong(x, d, SmallVector<int64_t>(resultType.getDimSize(d), 0));
    } else if (op == "Tile") {
      if ((int64_t)operand.size() != rank)
        return failAt(node, "repeats needs one entry per dimension");
      for (int64_t d = 0; d < rank; ++d) {
        SmallVector<int64_t> along;
        for (int64_t r = 0; r < operand[d]; ++r)
          llvm::append_range(along, llvm::seq<int64_t>(0, type.getDimSize(d)));
        x = pickAlong(x, d, along);
      }
    } else {
      // ONNX's definitions: a Reshape, a Transpose and a Reshape.
      int64_t b = intAttr(node, "blocksize", 0);
      if (rank != 4 || b < 1)
        return failAt(node, "expects a 4-D input and a positive blocksize");
      int64_t n = type.getDimSize(0), c = type.getDimSize(1), h = type.getDimSize(2),
              w = type.getDimSize(3);
      if (op == "SpaceToDepth") {
        x = transposed(reshaped(x, {n, c, h / b, b, w / b, b}), {0, 3, 5, 1, 2, 4});
      } else if (string("mode", "DCR").getValue() == "DCR") {
        x = transposed(reshaped(x, {n, b, b, c / (b * b), h, w}), {0, 3, 4, 1, 5, 2});
      } else {
        x = transposed(reshaped(x, {n, c / (b * b), b, b, h, w}), {0, 1, 4, 2, 5, 3});
      }
    }
    define(reshaped(x, resultType.getShape()).getDefiningOp());
    return llvm::Error::success();
  }
  // A reduction moves the reduced axes last and works on the rows of a
  // [kept, reduced] matrix, as an image of one channel: sums convolve each
  // row with a kernel of ones (1/n for a mean) on the crossbars; maxima pool
  // each row as one window; products multiply the halves of the rows, a
  // vector multiplication a step, until one column is left.
  enum class Reduction { Sum, Mean, Max, Min, Prod };
  auto reduce = [&](Reduction kind, Type t, Value x) -> Operation * {
    auto type = cast<RankedTensorType>(x.getType());
    int64_t rank = type.getRank();
    SmallVector<int64_t> axes;
    if (const frontend::Attribute *attr = node.attribute("axes"))
      axes.assign(attr->ints.begin(), attr->ints.end());
    else if (node.inputs.size() > 1 && !node.inputs[1].empty())
      for (const APInt &axis : cast<DenseIntElementsAttr>(
               values.lookup(node.inputs[1]).getDefiningOp<onnx::ConstantOp>().getValue()))
        axes.push_back(axis.getSExtValue());
    if (axes.empty() && intAttr(node, "noop_with_empty_axes", 0))
      return builder.create<onnx::IdentityOp>(loc, t, x);
    SmallVector<bool> reduced(rank, axes.empty());
    for (int64_t axis : axes)
      reduced[axis < 0 ? axis + rank : axis] = true;
    SmallVector<int64_t> perm;
    int64_t kept = 1, count = 1;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[d]) {
        perm.push_back(d);
        kept *= type.getDimSize(d);
      }
    for (int64_t d = 0; d < rank; ++d)
      if (reduced[d]) {
        perm.push_back(d);
        count *= type.getDimSize(d);
      }
    if (!llvm::equal(perm, llvm::seq<int64_t>(0, rank))) {
      SmallVector<int64_t> shape;
      for (int64_t d : perm)
        shape.push_back(type.getDimSize(d));
      x = builder.create<onnx::TransposeOp>(
          loc, RankedTensorType::get(shape, builder.getF32Type()), x,
          builder.getDenseI64ArrayAttr(perm));
    }
    Value rows = reshaped(x, {1, 1, kept, count});
    auto resultType = RankedTensorType::get({1, 1, kept, 1}, builder.getF32Type());
    DenseI64ArrayAttr window = builder.getDenseI64ArrayAttr({1, count});
    Value result;
    if (kind == Reduction::Sum || kind == Reduction::Mean) {
      auto kernelType = RankedTensorType::get({1, 1, 1, count}, builder.getF32Type());
      std::vector<float> kernel(count, kind == Reduction::Mean ? 1.0f / count : 1.0f);
      Value weights = builder.create<onnx::ConstantOp>(
          loc, kernelType, DenseElementsAttr::get(kernelType, ArrayRef<float>(kernel)));
      result = builder.create<onnx::ConvOp>(
          loc, resultType, rows, weights, Value(), builder.getI64IntegerAttr(1), window,
          DenseI64ArrayAttr(), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
          builder.getStringAttr("NOTSET"), UnitAttr());
    } else if (kind == Reduction::Prod) {
      result = rows;
      for (int64_t width = count; width > 1;) {
        int64_t half = width / 2;
        auto columns = [&](int64_t from, int64_t to) {
          return pickAlong(result, 3, llvm::to_vector(llvm::seq<int64_t>(from, to)));
        };
        Value first = columns(0, half), second = columns(half, 2 * half);
        Value product = builder.create<onnx::MulOp>(loc, first.getType(), first, second);
        if (width % 2) {
          // The odd column goes on to the next step as it is.
          auto type = RankedTensorType::get({1, 1, kept, half + 1}, builder.getF32Type());
          product = builder.create<onnx::ConcatOp>(
              loc, type, ValueRange{product, columns(2 * half, width)},
              builder.getI64IntegerAttr(3));
        }
        result = product;
        width = half + width % 2;
      }
    } else {
      bool min = kind == Reduction::Min;
      result = builder.create<onnx::MaxPoolOp>(
          loc, resultType, min ? scaled(rows, -1) : rows, builder.getI64IntegerAttr(0), window,
          DenseI64ArrayAttr(), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
          builder.getStringAttr("NOTSET"), UnitAttr());
      if (min)
        result = scaled(result, -1);
    }
    return reshaped(result, cast<RankedTensorType>(t).getShape()).getDefiningOp();
  };
  auto absolute = [&](Value x) -> Value {
    return builder.create<onnx::MaxOp>(loc, x.getType(), x, scaled(x, -1));
  };
  auto reduction = [&](Reduction kind, unsigned maxInputs = 1,
                       std::function<Value(Value)> map = {}) {
    return Simple{1, maxInputs, [&, kind, map](Type t, ArrayRef<Value> v) -> Operation * {
                    return reduce(kind, t, map ? map(v[0]) : v[0]);
                  }};
  };
  const std::map<std::string, Simple> simple = {
      {"ReduceSum", reduction(Reduction::Sum, 2)},
      {"ReduceMean", reduction(Reduction::Mean)},
      {"ReduceMax", reduction(Reduction::Max)},
      {"ReduceMin", reduction(Reduction::Min)},
      {"ReduceSumSquare", reduction(Reduction::Sum, 1, [&](Value x) -> Value {
         return builder.create<onnx::MulOp>(loc, x.getType(), x, x);
       })},
      {"ReduceL1", reduction(Reduction::Sum, 1, absolute)},
      {"ReduceProd", reduction(Reduction::Prod)},
      {"Neg", {1, 1, [&](Type, ArrayRef<Value> v) -> Operation * {
         return scaled(v[0], -1).getDefiningOp();
       }}},
      {"Abs", {1, 1, [&](Type, ArrayRef<Value> v) -> Operation * {
         return absolute(v[0]).getDefiningOp();
       }}},
      {"Max", variadic(maxOf)},
      {"Min", variadic(minOf)},
      {"Sum", variadic(sumOf)},
      {"Mean", variadic(meanOf)},
      {"PRelu", {2, 2, [&](Type t, ArrayRef<Value> v) -> Operation * {
         Value positive = builder.create<onnx::ReluOp>(loc, t, v[0]);
         Value negative = builder.create<onnx::ReluOp>(loc, t, scaled(v[0], -1));
         Value slopeTimes = builder.create<onnx::MulOp>(loc, t, v[1], negative);
         return builder.create<onnx::SubOp>(loc, t, positive, slopeTimes);
       }}},
      {"HardSigmoid", {1, 1, [&](Type t, ArrayRef<Value> v) -> Operation * {
         return hardSigmoid(t, v[0], floatAttr(node, "alpha", 0.2f),
                            floatAttr(node, "beta", 0.5f));
       }}},
      {"HardSwish", {1, 1, [&](Type t, ArrayRef<Value> v) -> Operation * {
         Value gate = hardSigmoid(t, v[0], 1.0f / 6, 0.5f)->getResult(0);
         return builder.create<onnx::MulOp>(loc, t, v[0], gate);
       }}},
      {"MatMul", binary(onnx::MatMulOp())},
      {"Add", binary(onnx::AddOp())},
      {"Sub", binary(onnx::SubOp())},
      {"Mul", binary(onnx::MulOp())},
      {"Div", binary(onnx::DivOp())},
      {"Relu", unary(onnx::ReluOp())},
      {"Sigmoid", unary(onnx::SigmoidOp())},
      {"Tanh", unary(onnx::TanhOp())},
      {"LeakyRelu", {1, 1, [&](Type t, ArrayRef<Value> v) -> Operation * {
         return builder.create<onnx::LeakyReluOp>(loc, t, v[0], f32("alpha", 0.01f));
       }}},
      {"Clip", {1, 3, [&](Type t, ArrayRef<Value> v) -> Operation * {
         return builder.create<onnx::ClipOp>(loc, t, v[0], v[1], v[2]);
       }}},
      {"Flatten", {1, 1, [&](Type t, ArrayRef<Value> v) -> Operation * {
         return builder.create<onnx::FlattenOp>(loc, t, v[0], i64("axis", 1));
       }}},
      {"Reshape", {2, 2, [&](Type t, ArrayRef<Value> v) -> Operation * {
         return builder.create<onnx::ReshapeOp>(loc, t, v[0], v[1], i64("allowzero", 0));
       }}},
      {"Squeeze", reshapeToResult},
      // Before opset 10, starts, ends and axes are attributes.
      {"Slice", {1, 5, [&](Type t, ArrayRef<Value> v) -> Operation * {
         SmallVector<Value> bounds(v.drop_front());
         const char *names[] = {"starts", "ends", "axes"};
         for (unsigned i = 0; i < 3; ++i)
           if (const frontend::Attribute *attr = node.attribute(names[i]); attr && !bounds[i])
             bounds[i] = intConstant(attr->ints, loc);
         return builder.create<onnx::SliceOp>(loc, t, v[0], bounds[0], bounds[1], bounds[2],
                                              bounds[3]);
       }}},
      {"Unsqueeze", reshapeToResult},
      {"Transpose", {1, 1, [&](Type t, ArrayRef<Value> v) -> Operation * {
         int64_t rank = cast<RankedTensorType>(v[0].getType()).getRank();
         SmallVector<int64_t> perm;
         if (const frontend::Attribute *attr = node.attribute("perm"))
           perm.assign(attr->ints.begin(), attr->ints.end());
         else
           for (int64_t d = rank - 1; d >= 0; --d)
             perm.push_back(d);
         return builder.create<onnx::TransposeOp>(loc, t, v[0],
                                                  builder.getDenseI64ArrayAttr(perm));
       }}},
      {"Conv", {2, 3, [&](Type t, ArrayRef<Value> v) -> Operation * {
         return builder.create<onnx::ConvOp>(
             loc, t, v[0], v[1], v[2], i64("group", 1), ints("kernel_shape"),
             ints("strides"), ints("pads"), ints("dilations"),
             string("auto_pad", "NOTSET"), UnitAttr());
       }}},
      {"ConvTranspose", {2, 3, [&](Type t, ArrayRef<Value> v) -> Operation * {
         return builder.create<onnx::ConvTransposeOp>(
             loc, t, v[0], v[1], v[2], i64("group", 1), ints("output_padding"),
             ints("output_shape"), ints("kernel_shape"), ints("strides"), ints("pads"),
             ints("dilations"), string("auto_pad", "NOTSET"), UnitAttr());
       }}},
      {"MaxPool", {1, 1, [&](Type t, ArrayRef<Value> v) -> Operation * {
         return builder.create<onnx::MaxPoolOp>(
             loc, t, v[0], i64("ceil_mode", 0), ints("kernel_shape"), ints("strides"),
             ints("pads"), ints("dilations"), string("auto_pad", "NOTSET"), UnitAttr());
       }}},
      {"AveragePool", {1, 1, [&](Type t, ArrayRef<Value> v) -> Operation * {
         return builder.create<onnx::AveragePoolOp>(
             loc, t, v[0], i64("ceil_mode", 0), i64("count_include_pad", 0),
             ints("kernel_shape"), ints("strides"), ints("pads"), DenseI64ArrayAttr(),
             string("auto_pad", "NOTSET"), UnitAttr());
       }}},
      {"GlobalAveragePool", {1, 1, [&](Type t, ArrayRef<Value> v) -> Operation * {
         return builder.create<onnx::GlobalAveragePoolOp>(loc, t, v[0], UnitAttr());
       }}},
      {"GlobalMaxPool", {1, 1, [&](Type t, ArrayRef<Value> v) -> Operation * {
         return builder.create<onnx::GlobalMaxPoolOp>(loc, t, v[0], UnitAttr());
       }}},
      {"BatchNormalization", {5, 5, [&](Type t, ArrayRef<Value> v) -> Operation * {
         return builder.create<onnx::BatchNormalizationOp>(loc, t, v[0], v[1], v[2], v[3],
                                                           v[4], f32("epsilon", 1e-5f));
       }}},
      {"Concat", {1, ~0u, [&](Type t, ArrayRef<Value> v) -> Operation * {
         return builder.create<onnx::ConcatOp>(loc, t, v, i64("axis", 0));
       }}},
      {"Pad", {2, 3, [&](Type t, ArrayRef<Value> v) -> Operation * {
         return builder.create<onnx::PadOp>(loc, t, v[0], v[1], v[2],
                                            string("mode", "constant"));
       }}},
  };
  // Inference needs only the first output of these; their others are not
  // supported.
  static const std::map<std::string, std::string> extraOutputs = {
      {"Dropout", "mask"}, {"MaxPool", "Indices"},
      {"BatchNormalization", "running mean and variance"}};
  if (auto extra = extraOutputs.find(op); extra != extraOutputs.end()) {
    for (size_t i = 1; i < node.outputs.size(); ++i)
      if (!node.outputs[i].empty())
        return failAt(node, "the " + extra->second + " output of " + op +
                                " is not supported");
  }
  if (op == "BatchNormalization" && intAttr(node, "training_mode", 0))
    return failAt(node, "training mode is not supported");
  // Identity is its input (exporters alias shared initializers with it, so
  // its constants must stay visible as constants).
  if (op == "Identity") {
    llvm::Expected<Value> in = input(node, 0);
    if (!in)
      return in.takeError();
    if (node.outputs.size() != 1)
      return failAt(node, "expects exactly one output");
    values[node.outputs[0]] = *in;
    return llvm::Error::success();
  }
  // Dropout at inference is its input.
  if (op == "Dropout") {
    if (node.inputs.size() > 2 && !node.inputs[2].empty())
      return failAt(node, "the training_mode input of Dropout is not supported");
    llvm::Expected<SmallVector<Value>> in = operands(1);
    if (!in)
      return in.takeError();
    llvm::Expected<SmallVector<Type>> types = results(1);
    if (!types)
      return types.takeError();
    define(builder.create<onnx::IdentityOp>(loc, (*types)[0], (*in)[0]));
    return llvm::Error::success();
  }
  // Before opset 11, Clip's bounds and Pad's pads and value are attributes.
  if ((op == "Clip" || op == "Pad") && model.opsetVersion < 11) {
    llvm::Expected<Value> data = input(node, 0);
    if (!data)
      return data.takeError();
    llvm::Expected<SmallVector<Type>> types = results(1);
    if (!types)
      return types.takeError();
    auto scalar = [&](float value) -> Value {
      auto type = RankedTensorType::get({}, builder.getF32Type());
      return builder.create<onnx::ConstantOp>(loc, type, DenseElementsAttr::get(type, value));
    };
    if (op == "Clip") {
      const frontend::Attribute *min = node.attribute("min");
      const frontend::Attribute *max = node.attribute("max");
      define(builder.create<onnx::ClipOp>(loc, (*types)[0], *data,
                                          min ? scalar(min->f) : Value(),
                                          max ? scalar(max->f) : Value()));
      return llvm::Error::success();
    }
    const frontend::Attribute *pads = node.attribute("pads");
    if (!pads)
      pads = node.attribute("paddings");
    if (!pads)
      return failAt(node, "Pad needs its pads");
    Value padsValue = intConstant(pads->ints, loc);
    define(builder.create<onnx::PadOp>(loc, (*types)[0], *data, padsValue,
                                       scalar(floatAttr(node, "value", 0.0f)),
                                       string("mode", "constant")));
    return llvm::Error::success();
  }
  // Operators whose semantics need functions the target cannot compute
  // exactly: refused rather than approximated.
  static const std::map<std::string, StringRef, std::less<>> inexact = {
      {"Softmax", "exp"}, {"LogSoftmax", "exp and log"}, {"Exp", "exp"},
      {"Log", "log"}, {"Sqrt", "a square root"}, {"Erf", "the error function"},
      {"Gelu", "the error function"}, {"Elu", "exp"}, {"Selu", "exp"},
      {"Celu", "exp"}, {"Softplus", "exp and log"}, {"Mish", "exp and log"},
      {"ReduceL2", "a square root"}, {"ReduceLogSumExp", "exp and log"},
      {"ReduceLogSum", "log"}, {"Reciprocal", "division by computed values"},
      {"Softsign", "division by computed values"},
      {"LayerNormalization", "division by a computed square root"},
      {"InstanceNormalization", "division by a computed square root"}};
  if (auto missing = inexact.find(op); missing != inexact.end())
    return failAt(node, formatv("{0} needs {1}, which the target's vector unit does "
                                "not have",
                                op, missing->second));
  auto it = simple.find(op);
  if (it == simple.end())
    return failAt(node, formatv("operator {0} is not supported", op));
  const Simple &entry = it->second;
  if (node.inputs.size() < entry.minInputs || node.inputs.size() > entry.maxInputs)
    return failAt(node, formatv("takes {0} to {1} inputs, not {2}", entry.minInputs,
                                entry.maxInputs, node.inputs.size()));
  // One entry per possible input (a null Value for an omitted one). The
  // inputs of a variadic operator (Concat, Sum, ...) are never omitted.
  bool variadicInputs = entry.maxInputs == ~0u;
  size_t count = variadicInputs ? node.inputs.size() : entry.maxInputs;
  SmallVector<Value> in;
  for (unsigned i = 0; i < count; ++i) {
    if (i >= node.inputs.size()) {
      in.push_back(Value());
      continue;
    }
    llvm::Expected<Value> value =
        i < entry.minInputs || variadicInputs ? input(node, i) : optionalInput(node, i);
    if (!value)
      return value.takeError();
    in.push_back(*value);
  }
  llvm::Expected<SmallVector<Type>> types = results(1);
  if (!types)
    return types.takeError();
  // Shapes and axes are i64; every data input is a float tensor.
  for (auto [i, value] : llvm::enumerate(in)) {
    bool integerOperand = ((op == "Reshape" || op == "Pad" || op == "Squeeze" ||
                            op == "Unsqueeze" || op == "ReduceSum") && i == 1) ||
                          (op == "Slice" && i >= 1);
    if (value && !integerOperand &&
        !cast<RankedTensorType>(value.getType()).getElementType().isF32())
      return failAt(node, formatv("input {0} has element type {1}; pimc supports float "
                                  "tensors",
                                  i, cast<RankedTensorType>(value.getType()).getElementType()));
  }
  if (!cast<RankedTensorType>((*types)[0]).getElementType().isF32())
    return failAt(node, "expects a float result");
  define(entry.build((*types)[0], in));
  return llvm::Error::success();
}

llvm::Expected<RecurrentCell> Importer::recurrentCell(const Node &node) {
  RecurrentCell cell;
  cell.kind = node.opType == "RNN"   ? RecurrentCell::Rnn
              : node.opType == "GRU" ? RecurrentCell::Gru
                                     : RecurrentCell::Lstm;
  cell.hidden = intAttr(node, "hidden_size", 0);
  if (cell.hidden <= 0)
    return failAt(node, "needs a positive hidden_size");
  const frontend::Attribute *direction = node.attribute("direction");
  StringRef directionName = direction ? StringRef(direction->s) : "forward";
  if (directionName != "forward" && directionName != "reverse" &&
      directionName != "bidirectional")
    return failAt(node, formatv("direction '{0}' is not forward, reverse or bidirectional",
                                directionName));
  cell.forward = directionName != "reverse";
  cell.reverse = directionName != "forward";
  int64_t layout = intAttr(node, "layout", 0);
  if (layout != 0 && layout != 1)
    return failAt(node, formatv("layout {0} is not 0 or 1", layout));
  cell.batchFirst = layout == 1;
  cell.linearBeforeReset = intAttr(node, "linear_before_reset", 0) != 0;
  // What the vector unit cannot compute, or pimc does not build, is refused.
  for (StringRef name : {"clip", "activation_alpha", "activation_beta"})
    if (node.attribute(name))
      return failAt(node, formatv("the {0} attribute of {1} is not supported", name,
                                  node.opType));
  if (intAttr(node, "input_forget", 0))
    return failAt(node, "input_forget (coupled input and forget gates) is not supported");
  size_t perDirection = cell.activationsPerDirection();
  if (const frontend::Attribute *activations = node.attribute("activations")) {
    cell.activations = activations->strings;
  } else {
    static const char *const defaults[] = {"Sigmoid", "Tanh", "Tanh"};
    for (int64_t d = 0; d < cell.directions(); ++d)
      for (size_t k = 0; k < perDirection; ++k)
        cell.activations.push_back(cell.kind == RecurrentCell::Rnn ? "Tanh" : defaults[k]);
  }
  if (cell.activations.size() != perDirection * cell.directions())
    return failAt(node, formatv("has {0} activations; a {1} of {2} direction(s) takes {3}",
                                cell.activations.size(), node.opType, cell.directions(),
                                perDirection * cell.directions()));
  for (const std::string &name : cell.activations)
    if (name != "Sigmoid" && name != "Tanh" && name != "Relu")
      return failAt(node, formatv("the activation {0} is not supported (the target's "
                                  "vector unit has sigmoid, tanh and relu)",
                                  name));
  cell.sequence = !node.outputs.empty() && !node.outputs[0].empty();
  cell.name = node.name.empty() ? node.opType + std::to_string(node.index) : node.name;
  return cell;
}

llvm::Error Importer::importRecurrent(const Node &node, Location loc) {
  llvm::Expected<RecurrentCell> parsed = recurrentCell(node);
  if (!parsed)
    return parsed.takeError();
  const RecurrentCell &cell = *parsed;
  llvm::Expected<Value> x = input(node, 0);
  if (!x)
    return x.takeError();
  auto xType = cast<RankedTensorType>(x->getType());
  if (xType.getRank() != 3 || !xType.getElementType().isF32())
    return failAt(node, "X must be a 3-D float tensor");
  int64_t steps = xType.getDimSize(cell.batchFirst ? 1 : 0);
  int64_t batch = xType.getDimSize(cell.batchFirst ? 0 : 1);
  int64_t directions = cell.directions(), gates = cell.gates(), hidden = cell.hidden;
  // The weights' values (held while the unrolled form is built) and the
  // shapes ONNX gives them.
  std::optional<FloatData> data[4]; // W, R, B, P
  const unsigned positions[4] = {1, 2, 3, 7};
  const char *const names[4] = {"W", "R", "B", "P"};
  SmallVector<int64_t> shapes[4] = {{directions, gates * hidden, xType.getDimSize(2)},
                                    {directions, gates * hidden, hidden},
                                    {directions, 2 * gates * hidden},
                                    {directions, 3 * hidden}};
  for (unsigned k = 0; k < 4; ++k) {
    llvm::Expected<Value> value = k < 2 ? input(node, positions[k])
                                        : optionalInput(node, positions[k]);
    if (!value)
      return value.takeError();
    if (!*value)
      continue;
    if (k == 3 && cell.kind != RecurrentCell::Lstm)
      return failAt(node, "takes at most 6 inputs");
    auto type = cast<RankedTensorType>(value->getType());
    if (type.getShape() != ArrayRef<int64_t>(shapes[k]))
      return failAt(node, formatv("{0} has shape {1}; [{2:$[, ]}] is expected", names[k],
                                  type, llvm::make_range(shapes[k].begin(), shapes[k].end())));
    if (auto constant = value->getDefiningOp<onnx::ConstantOp>())
      data[k] = FloatData::get(constant.getValue());
    if (!data[k])
      return failAt(node, formatv("{0} must be a float constant", names[k]));
  }
  // sequence_lens: sequences of the full length only.
  llvm::Expected<Value> lengths = optionalInput(node, 4);
  if (!lengths)
    return lengths.takeError();
  if (*lengths) {
    auto constant = lengths->getDefiningOp<onnx::ConstantOp>();
    std::optional<SmallVector<int64_t>> counts =
        constant ? getIntValues(constant.getValue()) : std::nullopt;
    if (!counts || llvm::any_of(*counts, [&](int64_t n) { return n != steps; }))
      return failAt(node, formatv("sequence_lens must be a constant {0} (the full length) for "
                                  "every sequence: shorter sequences are not supported",
                                  steps));
  }
  // Initial states; zero ones are left out.
  Value initial[2];
  for (unsigned k = 0; k < 2; ++k) {
    llvm::Expected<Value> value = optionalInput(node, 5 + k);
    if (!value)
      return value.takeError();
    if (!*value)
      continue;
    if (k == 1 && cell.kind != RecurrentCell::Lstm)
      return failAt(node, "takes at most 6 inputs");
    SmallVector<int64_t> state = cell.batchFirst ? SmallVector<int64_t>{batch, directions, hidden}
                                                 : SmallVector<int64_t>{directions, batch, hidden};
    auto type = cast<RankedTensorType>(value->getType());
    if (type.getShape() != ArrayRef<int64_t>(state) || !type.getElementType().isF32())
      return failAt(node, formatv("{0} has type {1}; a float [{2:$[, ]}] is expected",
                                  k ? "initial_c" : "initial_h", type,
                                  llvm::make_range(state.begin(), state.end())));
    if (auto constant = value->getDefiningOp<onnx::ConstantOp>())
      if (std::optional<FloatData> values = FloatData::get(constant.getValue()))
        if (llvm::all_of(values->values(), [](float v) { return v == 0; }))
          continue;
    initial[k] = *value;
  }
  size_t outputs = cell.kind == RecurrentCell::Lstm ? 3 : 2;
  if (node.outputs.size() > outputs)
    return failAt(node, formatv("has {0} outputs; {1} has at most {2}", node.outputs.size(),
                                node.opType, outputs));
  RecurrentOperands operands;
  operands.x = *x;
  for (auto [view, values] : llvm::zip(SmallVector<ArrayRef<float> *>{&operands.w, &operands.r,
                                                                      &operands.b, &operands.p},
                                       data))
    if (values)
      *view = values->values();
  operands.initialH = initial[0];
  operands.initialC = initial[1];
  SmallVector<Value, 3> results = buildRecurrent(builder, loc, cell, operands);
  for (auto [index, name] : llvm::enumerate(node.outputs)) {
    if (name.empty())
      continue;
    llvm::Expected<RankedTensorType> type = resultType(node, index);
    if (!type)
      return type.takeError();
    if (*type != results[index].getType())
      return failAt(node, formatv("output '{0}' has type {1}, ONNX shape inference gives {2}",
                                  name, results[index].getType(), *type));
    values[name] = results[index];
  }
  return llvm::Error::success();
}

llvm::Expected<OwningOpRef<ModuleOp>> Importer::run() {
  if (model.opsetVersion < kMinOpset || model.opsetVersion > kMaxOpset)
    return fail(formatv("'{0}' uses opset {1}; pimc accepts opsets {2} to {3}",
                        path, model.opsetVersion, kMinOpset, kMaxOpset));
  const Graph &graph = model.graph;
  for (const TensorData &init : graph.initializers)
    initializers[init.name] = &init;

  SmallVector<Type> inputTypes, outputTypes;
  for (const ValueInfo &input : graph.inputs) {
    llvm::Expected<RankedTensorType> type = tensorType(input, "graph input");
    if (!type)
      return type.takeError();
    if (!type->getElementType().isF32())
      return fail(formatv("graph input '{0}' must be a float tensor", input.name));
    inputTypes.push_back(*type);
  }
  if (graph.outputs.empty())
    return fail(formatv("'{0}' has no graph outputs", path));

  OwningOpRef<ModuleOp> module = ModuleOp::create(FileLineColLoc::get(&context, path, 0, 0));
  builder.setInsertionPointToEnd(module->getBody());
  auto func = builder.create<func::FuncOp>(module->getLoc(), "main_graph",
                                           builder.getFunctionType(inputTypes, {}));
  Block *entry = func.addEntryBlock();
  for (auto [index, input] : llvm::enumerate(graph.inputs)) {
    values[input.name] = entry->getArgument(index);
    func.setArgAttr(index, "onnx.name", builder.getStringAttr(input.name));
  }
  builder.setInsertionPointToEnd(entry);
  for (const Node &node : graph.nodes)
    if (llvm::Error e = importNode(node))
      return std::move(e);

  SmallVector<Value> results;
  for (const ValueInfo &output : graph.outputs) {
    Value value = values.lookup(output.name);
    if (!value) {
      if (const TensorData *init = initializers.lookup(output.name)) {
        llvm::Expected<Value> c = constant(*init, func.getLoc());
        if (!c)
          return c.takeError();
        value = *c;
      } else {
        return fail(formatv("graph output '{0}' is produced by no node", output.name));
      }
    }
    if (!cast<RankedTensorType>(value.getType()).getElementType().isF32())
      return fail(formatv("graph output '{0}' must be a float tensor", output.name));
    results.push_back(value);
    outputTypes.push_back(value.getType());
  }
  builder.create<func::ReturnOp>(func.getLoc(), results);
  func.setFunctionType(builder.getFunctionType(inputTypes, outputTypes));
  for (auto [index, output] : llvm::enumerate(graph.outputs))
    func.setResultAttr(index, "onnx.name", builder.getStringAttr(output.name));
  if (failed(verify(*module)))
    return fail(formatv("'{0}': the imported graph does not verify (see the "
                        "diagnostics above)",
                        path));
  return module;
}

llvm::Expected<OwningOpRef<ModuleOp>>
pimc::importOnnxModel(MLIRContext &context, const Model &model, StringRef path,
                      bool irOwnsWeights) {
  context.loadDialect<onnx::OnnxDialect, func::FuncDialect>();
  return Importer(context, model, path, irOwnsWeights).run();
}
