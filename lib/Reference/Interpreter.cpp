//===- Interpreter.cpp - run an ONNX graph on the reference kernels -------===//
//
// Walks the nodes in order (ONNX keeps them topologically sorted). Float
// values are ref::Tensors; integer values (Reshape shapes, int64 constants)
// live in a second environment because ref::Tensor is f32 only.
//
//===----------------------------------------------------------------------===//

#include "pimc/Reference/Reference.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>
#include <numeric>

using namespace pimc;
using namespace pimc::ref;
using frontend::Attribute;
using frontend::Node;
using llvm::formatv;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static int64_t intAttr(const Node &node, llvm::StringRef name, int64_t dflt) {
  const Attribute *attr = node.attribute(name);
  return attr ? attr->i : dflt;
}

static float floatAttr(const Node &node, llvm::StringRef name, float dflt) {
  const Attribute *attr = node.attribute(name);
  return attr ? attr->f : dflt;
}

static std::vector<int64_t> intsAttr(const Node &node, llvm::StringRef name,
                                     std::vector<int64_t> dflt) {
  const Attribute *attr = node.attribute(name);
  return attr ? attr->ints : std::move(dflt);
}

static std::string stringAttr(const Node &node, llvm::StringRef name,
                              llvm::StringRef dflt) {
  const Attribute *attr = node.attribute(name);
  return attr ? attr->s : dflt.str();
}

namespace {
struct IntTensor {
  std::vector<int64_t> shape;
  std::vector<int64_t> data;
};

struct Arity {
  unsigned minInputs, maxInputs, maxOutputs;
};

constexpr unsigned kVariadic = ~0u;

/// Every operator the interpreter runs. Inputs past minInputs are optional.
/// Outputs past the first are accepted only to reject them by name.
const std::map<std::string, Arity, std::less<>> kOperators = {
    {"Add", {2, 2, 1}},
    {"Abs", {1, 1, 1}},
    {"AveragePool", {1, 1, 1}},
    {"BatchNormalization", {5, 5, 5}},
    {"Clip", {1, 3, 1}},
    {"Concat", {1, kVariadic, 1}},
    {"Constant", {0, 0, 1}},
    {"ConstantOfShape", {1, 1, 1}},
    {"Conv", {2, 3, 1}},
    {"ConvTranspose", {2, 3, 1}},
    {"Div", {2, 2, 1}},
    {"DepthToSpace", {1, 1, 1}},
    {"Dropout", {1, 3, 2}},
    {"Expand", {2, 2, 1}},
    {"Gather", {2, 2, 1}},
    {"Flatten", {1, 1, 1}},
    {"GRU", {3, 6, 2}},
    {"Gemm", {2, 3, 1}},
    {"GlobalAveragePool", {1, 1, 1}},
    {"GlobalMaxPool", {1, 1, 1}},
    {"HardSigmoid", {1, 1, 1}},
    {"HardSwish", {1, 1, 1}},
    {"Identity", {1, 1, 1}},
    {"LeakyRelu", {1, 1, 1}},
    {"LSTM", {3, 8, 3}},
    {"MatMul", {2, 2, 1}},
    {"Max", {1, kVariadic, 1}},
    {"MaxPool", {1, 1, 2}},
    {"Mean", {1, kVariadic, 1}},
    {"Min", {1, kVariadic, 1}},
    {"Mul", {2, 2, 1}},
    {"Neg", {1, 1, 1}},
    {"Pad", {2, 3, 1}},
    {"PRelu", {2, 2, 1}},
    {"Range", {3, 3, 1}},
    {"ReduceL1", {1, 1, 1}},
    {"ReduceMax", {1, 1, 1}},
    {"ReduceMean", {1, 1, 1}},
    {"ReduceMin", {1, 1, 1}},
    {"ReduceProd", {1, 1, 1}},
    {"ReduceSum", {1, 2, 1}},
    {"ReduceSumSquare", {1, 1, 1}},
    {"Relu", {1, 1, 1}},
    {"Reshape", {2, 2, 1}},
    {"Resize", {1, 4, 1}},
    {"RNN", {3, 6, 2}},
    {"Sigmoid", {1, 1, 1}},
    {"Slice", {1, 5, 1}},
    {"SpaceToDepth", {1, 1, 1}},
    {"Split", {1, 2, kVariadic}},
    {"Squeeze", {1, 2, 1}},
    {"Sub", {2, 2, 1}},
    {"Sum", {1, kVariadic, 1}},
    {"Tanh", {1, 1, 1}},
    {"Tile", {2, 2, 1}},
    {"Transpose", {1, 1, 1}},
    {"Unsqueeze", {1, 2, 1}},
    {"Upsample", {1, 2, 1}}};

class Interpreter {
public:
  void bind(const std::string &name, Tensor value);
  void bind(const std::string &name, IntTensor value);
  /// Binds an initializer or a Constant's value. Types neither environment
  /// holds are only recorded, so that a use can say what it got.
  void bind(const std::string &name, const frontend::TensorData &tensor);
  /// Runs `node`; errors name it.
  llvm::Error execute(const Node &node);
  /// Graph output `name`.
  llvm::Expected<Tensor> output(const std::string &name) const;

private:
  llvm::Error evaluate(const Node &node);
  llvm::Error evaluateConstant(const Node &node);
  llvm::Error evaluateSplit(const Node &node, const Tensor &x);
  llvm::Expected<Tensor> sliceNode(const Node &node, const Tensor &x);
  llvm::Expected<Tensor> resizeNode(const Node &node, const Tensor &x);
  /// Gather, Expand, Tile, DepthToSpace and SpaceToDepth.
  llvm::Expected<Tensor> movementNode(const Node &node, const Tensor &x);
  /// Integer input `i` as a vector, or the attribute `name` that held it
  /// before an opset moved it to the inputs; empty if neither is given.
  llvm::Expected<std::vector<int64_t>> intsOf(const Node &node, unsigned i,
                                              llvm::StringRef name);
  llvm::Expected<Tensor> compute(const Node &node, const Tensor &x);
  llvm::Expected<Tensor> transposeNode(const Node &node, const Tensor &x);
  llvm::Expected<Tensor> convNode(const Node &node, const Tensor &x);
  llvm::Expected<Tensor> convTransposeNode(const Node &node, const Tensor &x);
  /// RNN, GRU and LSTM, which bind their outputs themselves.
  llvm::Error recurrentNode(const Node &node, const Tensor &x);
  /// Input `i` as a float tensor; null for an omitted `optional` input.
  llvm::Expected<const Tensor *> floatInput(const Node &node, unsigned i,
                                            bool optional = false);
  /// Optional input `i`, a float tensor of one element; `dflt` if omitted.
  llvm::Expected<float> scalarInput(const Node &node, unsigned i, float dflt);
  llvm::Expected<const IntTensor *> intInput(const Node &node, unsigned i);
  /// Input `i` as a 1-D integer tensor: a shape, pads or axes.
  llvm::Expected<std::vector<int64_t>> intVector(const Node &node, unsigned i);
  /// The axes attribute, or input 1 where opset 13 moved it (Squeeze,
  /// Unsqueeze, ReduceSum).
  llvm::Expected<std::vector<int64_t>> axesOf(const Node &node);
  llvm::Error inputError(const Node &node, unsigned i, llvm::StringRef need);

  std::map<std::string, Tensor> floats;
  std::map<std::string, IntTensor> ints;
  std::map<std::string, int32_t> types; // of every value bound so far
};
} // namespace

void Interpreter::bind(const std::string &name, Tensor value) {
  floats[name] = std::move(value);
  types[name] = frontend::kFloat;
}

void Interpreter::bind(const std::string &name, IntTensor value) {
  ints[name] = std::move(value);
  types[name] = frontend::kInt64;
}

void Interpreter::bind(const std::string &name,
                       const frontend::TensorData &tensor) {
  switch (tensor.dataType) {
  case frontend::kFloat:
    bind(name, Tensor::fromData(tensor));
    break;
  case frontend::kInt64:
  case frontend::kInt32:
    bind(name, IntTensor{tensor.dims, tensor.ints});
    break;
  default:
    break;
  }
  types[name] = tensor.dataType;
}

llvm::Error Interpreter::inputError(const Node &node, unsigned i,
                                    llvm::StringRef need) {
  const std::string &name = node.inputs[i];
  if (name.empty())
    return fail(formatv("input {0} is required but omitted", i));
  auto type = types.find(name);
  if (type == types.end())
    return fail(
        formatv("input {0} ('{1}') is not defined before its use", i, name));
  return fail(formatv("input {0} ('{1}') is {2}, but {3} is needed", i, name,
                      frontend::dataTypeName(type->second), need));
}

llvm::Expected<const Tensor *>
Interpreter::floatInput(const Node &node, unsigned i, bool optional) {
  if (optional && (i >= node.inputs.size() || node.inputs[i].empty()))
    return nullptr;
  auto it = floats.find(node.inputs[i]);
  if (it == floats.end())
    return inputError(node, i, "float");
  return &it->second;
}

llvm::Expected<float> Interpreter::scalarInput(const Node &node, unsigned i,
                                               float dflt) {
  llvm::Expected<const Tensor *> t = floatInput(node, i, /*optional=*/true);
  if (!t)
    return t.takeError();
  if (!*t)
    return dflt;
  if ((*t)->numElements() != 1)
    return fail(formatv("input {0} should be a scalar, but it has {1} values",
                        i, (*t)->numElements()));
  return (*t)->data[0];
}

llvm::Expected<const IntTensor *> Interpreter::intInput(const Node &node,
                                                        unsigned i) {
  auto it = ints.find(node.inputs[i]);
  if (it == ints.end())
    return inputError(node, i, "int64");
  return &it->second;
}

llvm::Expected<std::vector<int64_t>> Interpreter::intVector(const Node &node,
                                                            unsigned i) {
  llvm::Expected<const IntTensor *> t = intInput(node, i);
  if (!t)
    return t.takeError();
  if ((*t)->shape.size() != 1)
    return fail(formatv("input {0} should be 1-D, but it has rank {1}", i,
                        (*t)->shape.size()));
  return (*t)->data;
}

/// Rejects the training forms of operators: only inference is computed.
static llvm::Error checkInference(const Node &node) {
  bool extraOutputs =
      llvm::any_of(llvm::drop_begin(node.outputs),
                   [](const std::string &name) { return !name.empty(); });
  llvm::StringRef op = node.opType;
  if (op == "Dropout" && extraOutputs)
    return fail("the mask output is unsupported: the reference interpreter "
                "runs inference only");
  // Bool tensors carry no values here, so even a constant false is refused.
  if (op == "Dropout" && node.inputs.size() > 2 && !node.inputs[2].empty())
    return fail("the training_mode input is unsupported: the reference "
                "interpreter runs inference only");
  if (op == "BatchNormalization" && intAttr(node, "training_mode", 0) != 0)
    return fail("training_mode is unsupported: the reference interpreter runs "
                "inference only");
  if (op == "BatchNormalization" && extraOutputs)
    return fail("the mean and variance outputs are unsupported: the reference "
                "interpreter runs inference only");
  if (op == "MaxPool" && extraOutputs)
    return fail("the Indices output is unsupported");
  return llvm::Error::success();
}

llvm::Error Interpreter::execute(const Node &node) {
  if (llvm::Error error = evaluate(node))
    return fail(node.describe() + ": " + llvm::toString(std::move(error)));
  return llvm::Error::success();
}

llvm::Error Interpreter::evaluate(const Node &node) {
  if (!node.domain.empty() && node.domain != "ai.onnx")
    return fail(
        formatv("operators of domain '{0}' are unsupported", node.domain));
  auto op = kOperators.find(node.opType);
  if (op == kOperators.end())
    return fail("unsupported operator");
  const Arity &arity = op->second;
  if (node.inputs.size() < arity.minInputs ||
      node.inputs.size() > arity.maxInputs)
    return fail(arity.maxInputs == kVariadic
                    ? formatv("takes at least {0} inputs, got {1}",
                              arity.minInputs, node.inputs.size())
                          .str()
                    : formatv("takes {0} to {1} inputs, got {2}",
                              arity.minInputs, arity.maxInputs,
                              node.inputs.size())
                          .str());
  if (node.outputs.empty() || node.outputs.size() > arity.maxOutputs)
    return fail(formatv("has {0} outputs, at most {1} are supported",
                        node.outputs.size(), arity.maxOutputs));
  if (llvm::Error error = checkInference(node))
    return error;
  if (node.opType == "Constant")
    return evaluateConstant(node);
  // A tensor of the shape input 0 holds, filled with the value attribute's
  // one element (0.0 by default).
  if (node.opType == "ConstantOfShape") {
    llvm::Expected<std::vector<int64_t>> shape = intVector(node, 0);
    if (!shape)
      return shape.takeError();
    int64_t n = 1;
    for (int64_t d : *shape)
      n *= d;
    const Attribute *value = node.attribute("value");
    if (!value || !value->tensor || value->tensor->dataType == frontend::kFloat) {
      float fill = value && value->tensor ? value->tensor->floats[0] : 0.0f;
      bind(node.outputs[0], Tensor(*shape, std::vector<float>(n, fill)));
    } else {
      bind(node.outputs[0], IntTensor{*shape, std::vector<int64_t>(n, value->tensor->ints[0])});
    }
    return llvm::Error::success();
  }
  // Identity also forwards integer values, such as Reshape shapes.
  if (node.opType == "Identity" && ints.count(node.inputs[0])) {
    bind(node.outputs[0], ints.at(node.inputs[0]));
    return llvm::Error::success();
  }
  llvm::Expected<const Tensor *> x = floatInput(node, 0);
  if (!x)
    return x.takeError();
  if (node.opType == "Split")
    return evaluateSplit(node, **x);
  if (node.opType == "RNN" || node.opType == "GRU" || node.opType == "LSTM")
    return recurrentNode(node, **x);
  llvm::Expected<Tensor> result = compute(node, **x);
  if (!result)
    return result.takeError();
  bind(node.outputs[0], std::move(*result));
  return llvm::Error::success();
}

llvm::Error Interpreter::evaluateConstant(const Node &node) {
  if (node.attributes.size() != 1)
    return fail("a Constant needs exactly one value attribute");
  const Attribute &attr = node.attributes[0];
  const std::string &out = node.outputs[0];
  if (attr.name == "value" && attr.kind == Attribute::Tensor)
    bind(out, *attr.tensor);
  else if (attr.name == "value_float")
    bind(out, Tensor({}, {attr.f}));
  else if (attr.name == "value_floats")
    bind(out, Tensor({(int64_t)attr.floats.size()}, attr.floats));
  else if (attr.name == "value_int")
    bind(out, IntTensor{{}, {attr.i}});
  else if (attr.name == "value_ints")
    bind(out, IntTensor{{(int64_t)attr.ints.size()}, attr.ints});
  else
    return fail(formatv("attribute '{0}' is unsupported", attr.name));
  return llvm::Error::success();
}

llvm::Expected<std::vector<int64_t>>
Interpreter::intsOf(const Node &node, unsigned i, llvm::StringRef name) {
  if (i < node.inputs.size() && !node.inputs[i].empty())
    return intVector(node, i);
  return intsAttr(node, name, {});
}

llvm::Error Interpreter::evaluateSplit(const Node &node, const Tensor &x) {
  int64_t axis = intAttr(node, "axis", 0);
  if (axis < -(int64_t)x.shape.size() || axis >= (int64_t)x.shape.size())
    return fail(formatv("axis {0} is out of range for rank {1}", axis, x.shape.size()));
  llvm::Expected<std::vector<int64_t>> given = intsOf(node, 1, "split");
  if (!given)
    return given.takeError();
  int64_t length = x.shape[axis < 0 ? axis + x.shape.size() : axis];
  llvm::Expected<std::vector<int64_t>> lengths = ref::splitLengths(
      length, *given, intAttr(node, "num_outputs", node.outputs.size()));
  if (!lengths)
    return lengths.takeError();
  if (lengths->size() != node.outputs.size())
    return fail(formatv("{0} parts for {1} outputs", lengths->size(), node.outputs.size()));
  llvm::Expected<std::vector<Tensor>> parts = ref::split(x, axis, *lengths);
  if (!parts)
    return parts.takeError();
  for (auto [name, part] : llvm::zip(node.outputs, *parts))
    bind(name, std::move(part));
  return llvm::Error::success();
}

/// Before opset 10, Slice's starts, ends and axes are attributes.
llvm::Expected<Tensor> Interpreter::sliceNode(const Node &node, const Tensor &x) {
  std::vector<int64_t> bounds[4];
  const char *names[] = {"starts", "ends", "axes", "steps"};
  for (unsigned i = 0; i < 4; ++i) {
    llvm::Expected<std::vector<int64_t>> values = intsOf(node, i + 1, names[i]);
    if (!values)
      return values.takeError();
    bounds[i] = std::move(*values);
  }
  llvm::Expected<Positions> positions =
      slicePositions(x.shape, bounds[0], bounds[1], bounds[2], bounds[3]);
  if (!positions)
    return positions.takeError();
  return pick(x, *positions);
}

/// Resize with scales or sizes; Upsample (scales as an input from opset 9,
/// an attribute before) is Resize's asymmetric form, rounding down.
llvm::Expected<Tensor> Interpreter::resizeNode(const Node &node, const Tensor &x) {
  ResizeAttrs attrs;
  attrs.mode = stringAttr(node, "mode", "nearest");
  std::vector<double> scales;
  std::vector<int64_t> shape;
  auto given = [&](unsigned i) { return i < node.inputs.size() && !node.inputs[i].empty(); };
  if (node.opType == "Upsample") {
    attrs.coordinateMode = "asymmetric";
    attrs.nearestMode = "floor";
    if (given(1)) {
      llvm::Expected<const Tensor *> values = floatInput(node, 1);
      if (!values)
        return values.takeError();
      scales.assign((*values)->data.begin(), (*values)->data.end());
    } else if (const Attribute *attr = node.attribute("scales")) {
      scales.assign(attr->floats.begin(), attr->floats.end());
    }
  } else {
    attrs.coordinateMode = stringAttr(node, "coordinate_transformation_mode", "half_pixel");
    attrs.nearestMode = stringAttr(node, "nearest_mode", "round_prefer_floor");
    attrs.cubicA = floatAttr(node, "cubic_coeff_a", -0.75f);
    attrs.excludeOutside = intAttr(node, "exclude_outside", 0) != 0;
    if (given(3)) {
      llvm::Expected<std::vector<int64_t>> sizes = intVector(node, 3);
      if (!sizes)
        return sizes.takeError();
      shape = *sizes;
      if (shape.size() != x.shape.size())
        return fail("sizes needs one entry per dimension");
      for (size_t d = 0; d < shape.size(); ++d)
        scales.push_back(double(shape[d]) / x.shape[d]);
    } else if (given(2)) {
      llvm::Expected<const Tensor *> values = floatInput(node, 2);
      if (!values)
        return values.takeError();
      scales.assign((*values)->data.begin(), (*values)->data.end());
    }
  }
  if (scales.size() != x.shape.size())
    return fail("scales needs one entry per dimension");
  if (shape.empty())
    for (size_t d = 0; d < scales.size(); ++d)
      shape.push_back((int64_t)std::floor(x.shape[d] * scales[d]));
  return resize(x, shape, scales, attrs);
}

llvm::Expected<Tensor> Interpreter::movementNode(const Node &node, const Tensor &x) {
  llvm::StringRef op = node.opType;
  int64_t rank = x.shape.size();
  if (op == "Gather") {
    llvm::Expected<const IntTensor *> indices = intInput(node, 1);
    if (!indices)
      return indices.takeError();
    int64_t axis = intAttr(node, "axis", 0);
    if (axis < -rank || axis >= rank)
      return fail(formatv("axis {0} is out of range for rank {1}", axis, rank));
    if (axis < 0)
      axis += rank;
    Positions positions = allPositions(x.shape);
    positions[axis].clear();
    for (int64_t i : (*indices)->data) {
      if (i < -x.shape[axis] || i >= x.shape[axis])
        return fail(formatv("index {0} is out of range for a dimension of {1}", i,
                            x.shape[axis]));
      positions[axis].push_back(i < 0 ? i + x.shape[axis] : i);
    }
    // The indices' dimensions take the place of the axis.
    std::vector<int64_t> shape(x.shape.begin(), x.shape.begin() + axis);
    llvm::append_range(shape, (*indices)->shape);
    shape.insert(shape.end(), x.shape.begin() + axis + 1, x.shape.end());
    return reshape(pick(x, positions), shape);
  }
  if (op == "Expand" || op == "Tile") {
    llvm::Expected<std::vector<int64_t>> values = intVector(node, 1);
    if (!values)
      return values.takeError();
    if (op == "Expand") {
      llvm::Expected<std::vector<int64_t>> shape = broadcastShape(x.shape, *values);
      if (!shape)
        return shape.takeError();
      return broadcastTo(x, *shape);
    }
    if ((int64_t)values->size() != rank)
      return fail("repeats needs one entry per dimension");
    Positions positions;
    for (int64_t d = 0; d < rank; ++d) {
      positions.emplace_back();
      for (int64_t r = 0; r < (*values)[d]; ++r)
        for (int64_t i = 0; i < x.shape[d]; ++i)
          positions.back().push_back(i);
    }
    return pick(x, positions);
  }
  int64_t b = intAttr(node, "blocksize", 0);
  if (rank != 4 || b < 1)
    return fail("expects a 4-D input and a positive blocksize");
  int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  if (op == "SpaceToDepth") {
    if (h % b || w % b)
      return fail("the blocksize does not divide the height and width");
    return reshape(transpose(reshape(x, {n, c, h / b, b, w / b, b}), {0, 3, 5, 1, 2, 4}),
                   {n, c * b * b, h / b, w / b});
  }
  if (c % (b * b))
    return fail("the square of the blocksize does not divide the channels");
  bool dcr = stringAttr(node, "mode", "DCR") == "DCR";
  Tensor blocks = dcr ? transpose(reshape(x, {n, b, b, c / (b * b), h, w}), {0, 3, 4, 1, 5, 2})
                      : transpose(reshape(x, {n, c / (b * b), b, b, h, w}), {0, 1, 4, 2, 5, 3});
  return reshape(blocks, {n, c / (b * b), h * b, w * b});
}

llvm::Expected<Tensor> Interpreter::transposeNode(const Node &node,
                                                  const Tensor &x) {
  size_t rank = x.shape.size();
  std::vector<int64_t> perm(rank);
  if (const Attribute *attr = node.attribute("perm"))
    perm = attr->ints;
  else
    std::iota(perm.rbegin(), perm.rend(), 0);
  std::vector<bool> seen(rank);
  bool valid = perm.size() == rank;
  for (int64_t axis : perm) {
    valid = valid && axis >= 0 && axis < (int64_t)rank && !seen[axis];
    if (valid)
      seen[axis] = true;
  }
  if (!valid)
    return fail(formatv("perm [{0:$[, ]}] is not a permutation of {1} axes",
                        llvm::make_range(perm.begin(), perm.end()), rank));
  return transpose(x, perm);
}

/// The spatial dimensions D1..Dn of an N x C x D1 x ... x Dn shape.
static llvm::ArrayRef<int64_t> spatialDims(llvm::ArrayRef<int64_t> shape) {
  return shape.drop_front(std::min<size_t>(2, shape.size()));
}

/// The window of a Conv or pooling node over `x` with a kernel of spatial
/// shape `kernel`.
static llvm::Expected<WindowAttrs>
windowAttrs(const Node &node, const Tensor &x, llvm::ArrayRef<int64_t> kernel) {
  llvm::ArrayRef<int64_t> input = spatialDims(x.shape);
  WindowAttrs window;
  window.strides =
      intsAttr(node, "strides", std::vector<int64_t>(input.size(), 1));
  window.dilations =
      intsAttr(node, "dilations", std::vector<int64_t>(input.size(), 1));
  std::string autoPad = stringAttr(node, "auto_pad", "NOTSET");
  const Attribute *pads = node.attribute("pads");
  if (pads && autoPad != "NOTSET")
    return fail("pads and auto_pad cannot both be set");
  llvm::Expected<std::vector<int64_t>> resolved = resolvePads(
      input, kernel, window.strides, window.dilations,
      pads ? llvm::ArrayRef(pads->ints) : llvm::ArrayRef<int64_t>(), autoPad);
  if (!resolved)
    return resolved.takeError();
  window.pads = std::move(*resolved);
  return window;
}

llvm::Expected<Tensor> Interpreter::convNode(const Node &node,
                                             const Tensor &x) {
  llvm::Expected<const Tensor *> w = floatInput(node, 1);
  if (!w)
    return w.takeError();
  llvm::Expected<const Tensor *> b = floatInput(node, 2, /*optional=*/true);
  if (!b)
    return b.takeError();
  llvm::ArrayRef<int64_t> kernel = spatialDims((*w)->shape);
  const Attribute *kernelShape = node.attribute("kernel_shape");
  if (kernelShape && llvm::ArrayRef(kernelShape->ints) != kernel)
    return fail(formatv(
        "kernel_shape [{0:$[, ]}] is not the spatial shape of "
        "the weights, [{1:$[, ]}]",
        llvm::make_range(kernelShape->ints.begin(), kernelShape->ints.end()),
        llvm::make_range(kernel.begin(), kernel.end())));
  llvm::Expected<WindowAttrs> window = windowAttrs(node, x, kernel);
  if (!window)
    return window.takeError();
  return conv(x, **w, *b,
              ConvAttrs{std::move(*window), intAttr(node, "group", 1)});
}

llvm::Expected<Tensor> Interpreter::convTransposeNode(const Node &node, const Tensor &x) {
  llvm::Expected<const Tensor *> w = floatInput(node, 1);
  if (!w)
    return w.takeError();
  llvm::Expected<const Tensor *> b = floatInput(node, 2, /*optional=*/true);
  if (!b)
    return b.takeError();
  llvm::ArrayRef<int64_t> kernel = spatialDims((*w)->shape);
  std::vector<int64_t> kernelShape = intsAttr(node, "kernel_shape", kernel.vec());
  if (llvm::ArrayRef<int64_t>(kernelShape) != kernel)
    return fail(formatv("kernel_shape [{0:$[, ]}] is not the spatial shape of "
                        "the weights, [{1:$[, ]}]",
                        llvm::make_range(kernelShape.begin(), kernelShape.end()),
                        llvm::make_range(kernel.begin(), kernel.end())));
  llvm::Expected<ConvTransposeAttrs> attrs = resolveConvTranspose(
      spatialDims(x.shape), kernel, intsAttr(node, "strides", {}),
      intsAttr(node, "dilations", {}), intsAttr(node, "pads", {}),
      intsAttr(node, "output_padding", {}), intsAttr(node, "output_shape", {}),
      stringAttr(node, "auto_pad", "NOTSET"), intAttr(node, "group", 1));
  if (!attrs)
    return attrs.takeError();
  return convTranspose(x, **w, *b, *attrs);
}

llvm::Error Interpreter::recurrentNode(const Node &node, const Tensor &x) {
  RecurrentAttrs attrs;
  attrs.cell = node.opType == "RNN" ? Cell::Rnn : node.opType == "GRU" ? Cell::Gru : Cell::Lstm;
  attrs.hiddenSize = intAttr(node, "hidden_size", 0);
  std::string direction = stringAttr(node, "direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    return fail(formatv("direction '{0}' is not forward, reverse or bidirectional", direction));
  attrs.forward = direction != "reverse";
  attrs.reverse = direction != "forward";
  if (const Attribute *activations = node.attribute("activations"))
    attrs.activations = activations->strings;
  attrs.linearBeforeReset = intAttr(node, "linear_before_reset", 0) != 0;
  attrs.layout = intAttr(node, "layout", 0);
  for (llvm::StringRef unsupported : {"clip", "activation_alpha", "activation_beta"})
    if (node.attribute(unsupported))
      return fail(formatv("the {0} attribute is unsupported", unsupported));
  if (intAttr(node, "input_forget", 0))
    return fail("input_forget is unsupported");
  const Tensor *operands[6] = {}; // W, R, B, initial_h, initial_c, P
  const unsigned positions[6] = {1, 2, 3, 5, 6, 7};
  for (unsigned k = 0; k < 6; ++k) {
    llvm::Expected<const Tensor *> operand =
        floatInput(node, positions[k], /*optional=*/k >= 2);
    if (!operand)
      return operand.takeError();
    operands[k] = *operand;
  }
  // sequence_lens: only sequences of the full length.
  if (node.inputs.size() > 4 && !node.inputs[4].empty()) {
    llvm::Expected<const IntTensor *> lengths = intInput(node, 4);
    if (!lengths)
      return lengths.takeError();
    int64_t steps = x.shape.size() == 3 ? x.shape[attrs.layout == 1 ? 1 : 0] : 0;
    if (llvm::any_of((*lengths)->data, [&](int64_t n) { return n != steps; }))
      return fail("sequence_lens shorter than the sequence are unsupported");
  }
  llvm::Expected<RecurrentResult> result =
      recurrent(x, *operands[0], *operands[1], operands[2], operands[3], operands[4],
                operands[5], attrs);
  if (!result)
    return result.takeError();
  Tensor *values[3] = {&result->y, &result->yH, &result->yC};
  for (auto [name, value] : llvm::zip(node.outputs, values))
    if (!name.empty())
      bind(name, std::move(*value));
  return llvm::Error::success();
}

/// MaxPool or AveragePool.
static llvm::Expected<Tensor> poolNode(const Node &node, const Tensor &x) {
  const Attribute *kernel = node.attribute("kernel_shape");
  if (!kernel)
    return fail("the kernel_shape attribute is required");
  llvm::Expected<WindowAttrs> window = windowAttrs(node, x, kernel->ints);
  if (!window)
    return window.takeError();
  PoolAttrs attrs{std::move(*window), kernel->ints,
                  intAttr(node, "ceil_mode", 0) != 0,
                  intAttr(node, "count_include_pad", 0) != 0};
  return node.opType == "MaxPool" ? maxPool(x, attrs) : averagePool(x, attrs);
}

llvm::Expected<std::vector<int64_t>> Interpreter::axesOf(const Node &node) {
  if (node.inputs.size() > 1 && !node.inputs[1].empty())
    return intVector(node, 1);
  return intsAttr(node, "axes", {});
}

/// The float result of every operator but Constant.
llvm::Expected<Tensor> Interpreter::compute(const Node &node, const Tensor &x) {
  llvm::StringRef op = node.opType;
  if (op == "Relu")
    return relu(x);
  if (op == "LeakyRelu")
    return leakyRelu(x, floatAttr(node, "alpha", 0.01f));
  if (op == "Sigmoid")
    return sigmoid(x);
  if (op == "Neg")
    return scale(x, -1);
  if (op == "Abs")
    return abs(x);
  if (op == "HardSigmoid")
    return hardSigmoid(x, floatAttr(node, "alpha", 0.2f), floatAttr(node, "beta", 0.5f));
  if (op == "HardSwish")
    return mul(x, hardSigmoid(x, 1.0f / 6, 0.5f));
  static const std::map<std::string, Reduction, std::less<>> reductions = {
      {"ReduceSum", Reduction::Sum},       {"ReduceMean", Reduction::Mean},
      {"ReduceMax", Reduction::Max},       {"ReduceMin", Reduction::Min},
      {"ReduceSumSquare", Reduction::SumSquare}, {"ReduceL1", Reduction::L1},
      {"ReduceProd", Reduction::Prod}};
  if (auto kind = reductions.find(op); kind != reductions.end()) {
    llvm::Expected<std::vector<int64_t>> axes = axesOf(node);
    if (!axes)
      return axes.takeError();
    if (axes->empty() && intAttr(node, "noop_with_empty_axes", 0))
      return x;
    return reduce(x, *axes, intAttr(node, "keepdims", 1) != 0, kind->second);
  }
  // Variadic operators fold their inputs from the first, broadcasting.
  if (op == "Max" || op == "Min" || op == "Sum" || op == "Mean") {
    Tensor result = x;
    for (unsigned i = 1; i < node.inputs.size(); ++i) {
      llvm::Expected<const Tensor *> next = floatInput(node, i);
      if (!next)
        return next.takeError();
      llvm::Expected<Tensor> folded = op == "Max"   ? maximum(result, **next)
                                      : op == "Min" ? minimum(result, **next)
                                                    : add(result, **next);
      if (!folded)
        return folded.takeError();
      result = std::move(*folded);
    }
    if (op == "Mean")
      return scale(result, 1.0f / node.inputs.size());
    return result;
  }
  if (op == "Tanh")
    return tanh(x);
  // Inference-mode Dropout is the identity; its ratio does not matter.
  if (op == "Identity" || op == "Dropout")
    return x;
  if (op == "Flatten")
    return flatten(x, intAttr(node, "axis", 1));
  if (op == "Transpose")
    return transposeNode(node, x);
  if (op == "Slice")
    return sliceNode(node, x);
  if (op == "Gather" || op == "Expand" || op == "Tile" || op == "DepthToSpace" ||
      op == "SpaceToDepth")
    return movementNode(node, x);
  if (op == "Resize" || op == "Upsample")
    return resizeNode(node, x);
  // Range of floats: max(ceil((limit - start) / delta), 0) elements.
  if (op == "Range") {
    llvm::Expected<float> limit = scalarInput(node, 1, 0), delta = scalarInput(node, 2, 0);
    if (!limit)
      return limit.takeError();
    if (!delta)
      return delta.takeError();
    if (x.numElements() != 1 || *delta == 0)
      return fail("start must be a scalar and delta not 0");
    int64_t n = std::max<int64_t>(std::ceil((*limit - x.data[0]) / *delta), 0);
    std::vector<float> values;
    for (int64_t i = 0; i < n; ++i)
      values.push_back(x.data[0] + i * *delta);
    return Tensor({n}, std::move(values));
  }
  if (op == "Reshape") {
    llvm::Expected<std::vector<int64_t>> shape = intVector(node, 1);
    if (!shape)
      return shape.takeError();
    llvm::Expected<std::vector<int64_t>> target =
        reshapeTarget(x.shape, *shape, intAttr(node, "allowzero", 0) != 0);
    if (!target)
      return target.takeError();
    return reshape(x, std::move(*target));
  }
  if (op == "Squeeze" || op == "Unsqueeze") {
    llvm::Expected<std::vector<int64_t>> axes = axesOf(node);
    if (!axes)
      return axes.takeError();
    return op == "Squeeze" ? squeeze(x, *axes) : unsqueeze(x, *axes);
  }
  if (op == "Clip") {
    if (node.attribute("min") || node.attribute("max"))
      return fail("the min and max attributes of Clip before opset 11 are "
                  "unsupported");
    llvm::Expected<float> lo = scalarInput(node, 1, -INFINITY);
    if (!lo)
      return lo.takeError();
    llvm::Expected<float> hi = scalarInput(node, 2, INFINITY);
    if (!hi)
      return hi.takeError();
    return clip(x, *lo, *hi);
  }
  if (op == "Pad") {
    llvm::Expected<std::vector<int64_t>> pads = intVector(node, 1);
    if (!pads)
      return pads.takeError();
    llvm::Expected<float> value = scalarInput(node, 2, 0);
    if (!value)
      return value.takeError();
    return pad(x, *pads, stringAttr(node, "mode", "constant"), *value);
  }
  if (op == "Concat") {
    const Attribute *axis = node.attribute("axis");
    if (!axis)
      return fail("the axis attribute is required");
    std::vector<Tensor> inputs;
    for (unsigned i = 0; i < node.inputs.size(); ++i) {
      llvm::Expected<const Tensor *> input = floatInput(node, i);
      if (!input)
        return input.takeError();
      inputs.push_back(**input);
    }
    return concat(inputs, axis->i);
  }
  if (op == "Conv")
    return convNode(node, x);
  if (op == "ConvTranspose")
    return convTransposeNode(node, x);
  if (op == "MaxPool" || op == "AveragePool")
    return poolNode(node, x);
  if (op == "GlobalMaxPool")
    return globalMaxPool(x);
  if (op == "GlobalAveragePool")
    return globalAveragePool(x);
  if (op == "BatchNormalization") {
    const Tensor *params[4]; // scale, B, input_mean, input_var
    for (unsigned i = 0; i < 4; ++i) {
      llvm::Expected<const Tensor *> param = floatInput(node, i + 1);
      if (!param)
        return param.takeError();
      params[i] = *param;
    }
    return batchNorm(x, *params[0], *params[1], *params[2], *params[3],
                     floatAttr(node, "epsilon", 1e-5f));
  }
  llvm::Expected<const Tensor *> y = floatInput(node, 1);
  if (!y)
    return y.takeError();
  if (op == "Add")
    return add(x, **y);
  if (op == "Sub")
    return sub(x, **y);
  if (op == "Mul")
    return mul(x, **y);
  if (op == "Div")
    return div(x, **y);
  if (op == "MatMul")
    return matmul(x, **y);
  if (op == "PRelu")
    return prelu(x, **y);
  assert(op == "Gemm" && "an operator of kOperators is not computed");
  llvm::Expected<const Tensor *> c = floatInput(node, 2, /*optional=*/true);
  if (!c)
    return c.takeError();
  return gemm(x, **y, *c, floatAttr(node, "alpha", 1),
              floatAttr(node, "beta", 1), intAttr(node, "transA", 0) != 0,
              intAttr(node, "transB", 0) != 0);
}

llvm::Expected<Tensor> Interpreter::output(const std::string &name) const {
  if (auto it = floats.find(name); it != floats.end())
    return it->second;
  if (auto type = types.find(name); type != types.end())
    return fail(formatv("graph output '{0}' is {1}, but the reference "
                        "interpreter returns float tensors only",
                        name, frontend::dataTypeName(type->second)));
  return fail(formatv("graph output '{0}' is never computed", name));
}

llvm::Expected<std::vector<Tensor>>
ref::run(const frontend::Model &model, const std::vector<Tensor> &inputs) {
  const frontend::Graph &graph = model.graph;
  for (const frontend::ValueInfo &info : graph.inputs) {
    if (!info.isTensor)
      return fail(formatv("graph input '{0}' is not a tensor (sequence and "
                          "optional types are unsupported)",
                          info.name));
    if (info.elementType != frontend::kFloat)
      return fail(formatv("graph input '{0}' has type {1}, but the reference "
                          "interpreter runs float inputs only",
                          info.name, frontend::dataTypeName(info.elementType)));
  }
  if (inputs.size() != graph.inputs.size())
    return fail(formatv("the graph has {0} inputs, but {1} were given",
                        graph.inputs.size(), inputs.size()));
  Interpreter interpreter;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const frontend::ValueInfo &info = graph.inputs[i];
    const std::vector<int64_t> &shape = inputs[i].shape;
    bool matches = !info.hasShape || info.dims.size() == shape.size();
    for (size_t d = 0; matches && info.hasShape && d < shape.size(); ++d)
      matches = info.dims[d] < 0 || info.dims[d] == shape[d];
    if (!matches)
      return fail(
          formatv("graph input '{0}' has shape [{1:$[, ]}], but the "
                  "model declares [{2:$[, ]}] (-1: any)",
                  info.name, llvm::make_range(shape.begin(), shape.end()),
                  llvm::make_range(info.dims.begin(), info.dims.end())));
    interpreter.bind(info.name, inputs[i]);
  }
  for (const frontend::TensorData &init : graph.initializers)
    interpreter.bind(init.name, init);
  for (const Node &node : graph.nodes)
    if (llvm::Error error = interpreter.execute(node))
      return std::move(error);
  std::vector<Tensor> outputs;
  for (const frontend::ValueInfo &info : graph.outputs) {
    llvm::Expected<Tensor> value = interpreter.output(info.name);
    if (!value)
      return value.takeError();
    outputs.push_back(std::move(*value));
  }
  return outputs;
}

Comparison ref::compare(const Tensor &actual, const Tensor &expected,
                        double rtol, double atol) {
  Comparison result;
  if (actual.shape != expected.shape) {
    result.match = false;
    result.message =
        formatv("the shape [{0:$[, ]}] differs from the expected [{1:$[, ]}]",
                llvm::make_range(actual.shape.begin(), actual.shape.end()),
                llvm::make_range(expected.shape.begin(), expected.shape.end()));
    return result;
  }
  // The worst element exceeds its tolerance atol + rtol*|e| the most.
  double worstExcess = 0;
  int64_t mismatches = 0;
  for (size_t i = 0; i < actual.data.size(); ++i) {
    double a = actual.data[i], e = expected.data[i];
    double absError, excess;
    bool ok;
    if (std::isfinite(a) && std::isfinite(e)) {
      absError = std::fabs(a - e);
      double tolerance = atol + rtol * std::fabs(e);
      ok = absError <= tolerance;
      excess = absError == 0 ? 0 : absError / tolerance;
      // Relative errors only where they are defined: e != 0.
      if (e != 0)
        result.maxRelError =
            std::max(result.maxRelError, absError / std::fabs(e));
    } else {
      // NaN matches only NaN, and an infinity only itself.
      ok = a == e || (std::isnan(a) && std::isnan(e));
      absError = excess = ok ? 0 : INFINITY;
      if (!ok)
        result.maxRelError = INFINITY;
    }
    result.maxAbsError = std::max(result.maxAbsError, absError);
    mismatches += !ok;
    if (result.worstIndex < 0 || excess > worstExcess) {
      worstExcess = excess;
      result.worstIndex = i;
    }
  }
  if (mismatches == 0)
    return result;
  result.match = false;
  std::vector<int64_t> index(actual.shape.size());
  for (int64_t d = index.size() - 1, rest = result.worstIndex; d >= 0; --d) {
    index[d] = rest % actual.shape[d];
    rest /= actual.shape[d];
  }
  result.message = formatv(
      "{0} of {1} elements differ (rtol {2}, atol {3}); the worst, at "
      "[{4:$[, ]}], is {5} but {6} is expected; max abs error {7}, max rel "
      "error {8}",
      mismatches, actual.data.size(), llvm::format("%g", rtol),
      llvm::format("%g", atol), llvm::make_range(index.begin(), index.end()),
      llvm::format("%.9g", actual.data[result.worstIndex]),
      llvm::format("%.9g", expected.data[result.worstIndex]),
      llvm::format("%.3g", result.maxAbsError),
      llvm::format("%.3g", result.maxRelError));
  return result;
}
