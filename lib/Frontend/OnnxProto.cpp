//===- OnnxProto.cpp - read ONNX protobuf files ---------------------------===//
//
// The only file that touches protobuf and the ONNX library; it is compiled
// with exceptions and turns every exception into an llvm::Error.
//
//===----------------------------------------------------------------------===//

#include "pimc/Frontend/OnnxModel.h"

#include "onnx/checker.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

#include "llvm/Support/FormatVariadic.h"

#include <fstream>
#include <set>

using namespace pimc::frontend;
using llvm::formatv;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string pimc::frontend::dataTypeName(int32_t type) {
  if (onnx::TensorProto_DataType_IsValid(type))
    return llvm::StringRef(onnx::TensorProto_DataType_Name(type)).lower();
  return "type " + std::to_string(type);
}

int64_t TensorData::numElements() const {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

// A copy of data that owns its floats owns a copy of them; a view stays a view.
TensorData::TensorData(const TensorData &other) { *this = other; }

TensorData &TensorData::operator=(const TensorData &other) {
  if (this == &other)
    return *this;
  name = other.name;
  dataType = other.dataType;
  dims = other.dims;
  ints = other.ints;
  ownedFloats = other.ownedFloats;
  bool owned = !other.ownedFloats.empty() &&
               other.floats.data() == other.ownedFloats.data();
  floats = owned ? llvm::ArrayRef<float>(ownedFloats) : other.floats;
  return *this;
}

void TensorData::setFloats(std::vector<float> values) {
  ownedFloats = std::move(values);
  floats = ownedFloats;
}

const Attribute *Node::attribute(llvm::StringRef attrName) const {
  for (const Attribute &attr : attributes)
    if (attr.name == attrName)
      return &attr;
  return nullptr;
}

std::string Node::describe() const {
  if (!name.empty())
    return opType + " '" + name + "'";
  return opType + " #" + std::to_string(index);
}

llvm::ArrayRef<unsigned> pimc::frontend::constantOperandIndices(llvm::StringRef opType) {
  static const std::map<std::string, std::vector<unsigned>, std::less<>> table = {
      {"Gemm", {1, 2}},
      {"MatMul", {1}},
      {"Reshape", {1}},
      {"Conv", {1, 2}},
      {"BatchNormalization", {1, 2, 3, 4}},
      {"Clip", {1, 2}},
      {"Pad", {1, 2}},
      {"Squeeze", {1}},
      {"Unsqueeze", {1}},
      // The instruction set has no division: only a constant divisor, as a
      // multiplication by its reciprocal.
      {"Div", {1}}};
  auto it = table.find(opType);
  if (it == table.end())
    return {};
  return it->second;
}

/// Converts a TensorProto; with `view`, raw f32 data is not copied (the
/// caller keeps `proto` alive).
static llvm::Expected<TensorData> convertTensor(const onnx::TensorProto &proto,
                                                bool view) {
  TensorData tensor;
  tensor.name = proto.name();
  tensor.dataType = proto.data_type();
  tensor.dims.assign(proto.dims().begin(), proto.dims().end());
  for (int64_t d : tensor.dims)
    if (d < 0)
      return fail(formatv("tensor '{0}' has a negative dimension", tensor.name));
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    return fail(formatv("tensor '{0}' keeps its data in an external file, "
                        "which pimc does not read",
                        tensor.name));
  int64_t count = tensor.numElements();
  const std::string &raw = proto.raw_data();
  auto checkCount = [&](int64_t have) -> llvm::Error {
    if (have != count)
      return fail(formatv("tensor '{0}' has {1} values for {2} elements",
                          tensor.name, have, count));
    return llvm::Error::success();
  };
  switch (tensor.dataType) {
  case kFloat:
    if (proto.has_raw_data()) {
      if (llvm::Error e = checkCount(raw.size() / sizeof(float)))
        return std::move(e);
      if (view && reinterpret_cast<uintptr_t>(raw.data()) % alignof(float) == 0) {
        tensor.floats = llvm::ArrayRef<float>(
            reinterpret_cast<const float *>(raw.data()), count);
      } else {
        std::vector<float> values(count);
        std::memcpy(values.data(), raw.data(), count * sizeof(float));
        tensor.setFloats(std::move(values));
      }
    } else {
      if (llvm::Error e = checkCount(proto.float_data_size()))
        return std::move(e);
      if (view)
        tensor.floats = llvm::ArrayRef<float>(proto.float_data().data(), count);
      else
        tensor.setFloats({proto.float_data().begin(), proto.float_data().end()});
    }
    break;
  case kInt64:
    if (proto.has_raw_data()) {
      if (llvm::Error e = checkCount(raw.size() / sizeof(int64_t)))
        return std::move(e);
      tensor.ints.resize(count);
      std::memcpy(tensor.ints.data(), raw.data(), count * sizeof(int64_t));
    } else {
      if (llvm::Error e = checkCount(proto.int64_data_size()))
        return std::move(e);
      tensor.ints.assign(proto.int64_data().begin(), proto.int64_data().end());
    }
    break;
  case kInt32:
    // Kept as i64: pimc only uses integer tensors as shapes and indices.
    if (proto.has_raw_data()) {
      if (llvm::Error e = checkCount(raw.size() / sizeof(int32_t)))
        return std::move(e);
      std::vector<int32_t> values(count);
      std::memcpy(values.data(), raw.data(), count * sizeof(int32_t));
      tensor.ints.assign(values.begin(), values.end());
    } else {
      if (llvm::Error e = checkCount(proto.int32_data_size()))
        return std::move(e);
      tensor.ints.assign(proto.int32_data().begin(), proto.int32_data().end());
    }
    break;
  default:
    break; // other types keep only their shape; import rejects them
  }
  return tensor;
}

static ValueInfo convertValueInfo(const onnx::ValueInfoProto &proto) {
  ValueInfo info;
  info.name = proto.name();
  const onnx::TypeProto &type = proto.type();
  info.isTensor = type.has_tensor_type();
  if (!info.isTensor)
    return info;
  info.elementType = type.tensor_type().elem_type();
  info.hasShape = type.tensor_type().has_shape();
  for (const auto &dim : type.tensor_type().shape().dim()) {
    info.dims.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
    info.dimParams.push_back(dim.has_dim_param() ? dim.dim_param() : "");
  }
  return info;
}

static llvm::Expected<Attribute> convertAttribute(const onnx::AttributeProto &proto,
                                                  const std::string &node) {
  Attribute attr;
  attr.name = proto.name();
  switch (proto.type()) {
  case onnx::AttributeProto::FLOAT:
    attr.kind = Attribute::Float;
    attr.f = proto.f();
    break;
  case onnx::AttributeProto::INT:
    attr.kind = Attribute::Int;
    attr.i = proto.i();
    break;
  case onnx::AttributeProto::STRING:
    attr.kind = Attribute::String;
    attr.s = proto.s();
    break;
  case onnx::AttributeProto::FLOATS:
    attr.kind = Attribute::Floats;
    attr.floats.assign(proto.floats().begin(), proto.floats().end());
    break;
  case onnx::AttributeProto::INTS:
    attr.kind = Attribute::Ints;
    attr.ints.assign(proto.ints().begin(), proto.ints().end());
    break;
  case onnx::AttributeProto::STRINGS:
    attr.kind = Attribute::Strings;
    attr.strings.assign(proto.strings().begin(), proto.strings().end());
    break;
  case onnx::AttributeProto::TENSOR: {
    attr.kind = Attribute::Tensor;
    llvm::Expected<TensorData> tensor = convertTensor(proto.t(), /*view=*/false);
    if (!tensor)
      return fail(formatv("{0}: attribute '{1}': {2}", node, attr.name,
                          llvm::toString(tensor.takeError())));
    attr.tensor = std::make_shared<TensorData>(std::move(*tensor));
    break;
  }
  default:
    attr.kind = Attribute::Other;
    break;
  }
  return attr;
}

static llvm::Expected<std::shared_ptr<onnx::ModelProto>>
parseModelProto(llvm::StringRef path) {
  std::ifstream stream(path.str(), std::ios::binary);
  if (!stream)
    return fail(formatv("cannot open model '{0}'", path));
  auto proto = std::make_shared<onnx::ModelProto>();
  if (!proto->ParseFromIstream(&stream))
    return fail(formatv("'{0}' is not an ONNX model (the protobuf does not "
                        "parse)",
                        path));
  if (!proto->has_graph())
    return fail(formatv("'{0}' has no graph", path));
  return proto;
}

/// Binds graph inputs that must be constants, as the binder decides.
static llvm::Error bindConstantInputs(onnx::ModelProto &proto,
                                      ConstantInputBinder binder) {
  onnx::GraphProto *graph = proto.mutable_graph();
  std::set<std::string> initialized;
  for (const auto &init : graph->initializer())
    initialized.insert(init.name());
  std::map<std::string, int> inputIndex;
  int index = 0;
  for (const auto &input : graph->input())
    if (!initialized.count(input.name()))
      inputIndex[input.name()] = index++;
  std::set<std::string> bound;
  for (int n = 0; n < graph->node_size(); ++n) {
    const onnx::NodeProto &nodeProto = graph->node(n);
    for (unsigned operand : constantOperandIndices(nodeProto.op_type())) {
      if ((int)operand >= nodeProto.input_size())
        continue;
      const std::string &name = nodeProto.input(operand);
      auto it = inputIndex.find(name);
      if (it == inputIndex.end() || bound.count(name))
        continue;
      Node node;
      node.name = nodeProto.name();
      node.opType = nodeProto.op_type();
      node.index = n;
      const onnx::ValueInfoProto *inputProto = nullptr;
      for (const auto &input : graph->input())
        if (input.name() == name)
          inputProto = &input;
      llvm::Expected<std::optional<TensorData>> data =
          binder(convertValueInfo(*inputProto), it->second, node);
      if (!data)
        return data.takeError();
      if (!*data)
        continue;
      if ((*data)->dataType != kFloat && (*data)->dataType != kInt64 &&
          (*data)->dataType != kInt32)
        return fail(formatv("input '{0}' of {1} has element type {2}; pimc supports "
                            "float tensors (and integer shapes)",
                            name, node.describe(), dataTypeName((*data)->dataType)));
      onnx::TensorProto *init = graph->add_initializer();
      init->set_name(name);
      init->set_data_type((*data)->dataType);
      for (int64_t d : (*data)->dims)
        init->add_dims(d);
      if ((*data)->dataType == kFloat)
        init->set_raw_data(std::string(
            reinterpret_cast<const char *>((*data)->floats.data()),
            (*data)->floats.size() * sizeof(float)));
      else {
        init->set_data_type(kInt64);
        for (int64_t v : (*data)->ints)
          init->add_int64_data(v);
      }
      bound.insert(name);
    }
  }
  // Bound inputs are initializers now, no longer graph inputs.
  auto *inputs = graph->mutable_input();
  for (int i = inputs->size() - 1; i >= 0; --i)
    if (bound.count(inputs->Get(i).name()))
      inputs->DeleteSubrange(i, 1);
  return llvm::Error::success();
}

static llvm::Expected<Model> convertModel(std::shared_ptr<onnx::ModelProto> proto,
                                          llvm::StringRef path,
                                          std::vector<std::string> declaredInputs) {
  Model model;
  model.irVersion = proto->ir_version();
  model.producer = proto->producer_name();
  bool hasDefaultDomain = false;
  for (const auto &opset : proto->opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx") {
      model.opsetVersion = opset.version();
      hasDefaultDomain = true;
    }
  if (!hasDefaultDomain)
    return fail(formatv("'{0}' imports no opset of the default ONNX domain", path));

  const onnx::GraphProto &graph = proto->graph();
  Graph &g = model.graph;
  g.name = graph.name();
  g.declaredInputs = std::move(declaredInputs);
  std::set<std::string> initialized;
  for (const auto &init : graph.initializer()) {
    llvm::Expected<TensorData> tensor = convertTensor(init, /*view=*/true);
    if (!tensor)
      return fail(formatv("'{0}': initializer: {1}", path,
                          llvm::toString(tensor.takeError())));
    initialized.insert(init.name());
    g.initializers.push_back(std::move(*tensor));
  }
  for (const auto &input : graph.input())
    if (!initialized.count(input.name()))
      g.inputs.push_back(convertValueInfo(input));
  for (const auto &output : graph.output())
    g.outputs.push_back(convertValueInfo(output));
  for (const auto &info : graph.value_info())
    g.valueInfo[info.name()] = convertValueInfo(info);
  for (const ValueInfo &info : g.inputs)
    g.valueInfo[info.name] = info;
  for (const ValueInfo &info : g.outputs)
    if (info.hasShape || !g.valueInfo.count(info.name))
      g.valueInfo[info.name] = info;
  for (int n = 0; n < graph.node_size(); ++n) {
    const onnx::NodeProto &proto = graph.node(n);
    Node node;
    node.name = proto.name();
    node.opType = proto.op_type();
    node.domain = proto.domain();
    node.index = n;
    node.inputs.assign(proto.input().begin(), proto.input().end());
    node.outputs.assign(proto.output().begin(), proto.output().end());
    for (const auto &attrProto : proto.attribute()) {
      llvm::Expected<Attribute> attr = convertAttribute(attrProto, node.describe());
      if (!attr)
        return attr.takeError();
      node.attributes.push_back(std::move(*attr));
    }
    g.nodes.push_back(std::move(node));
  }
  model.storage = std::move(proto);
  return model;
}

llvm::Expected<Model> pimc::frontend::loadModel(llvm::StringRef path,
                                                ConstantInputBinder binder) {
  auto proto = parseModelProto(path);
  if (!proto)
    return proto.takeError();
  std::vector<std::string> declaredInputs;
  {
    std::set<std::string> initialized;
    for (const auto &init : (*proto)->graph().initializer())
      initialized.insert(init.name());
    for (const auto &input : (*proto)->graph().input())
      if (!initialized.count(input.name()))
        declaredInputs.push_back(input.name());
  }
  if (binder)
    if (llvm::Error e = bindConstantInputs(**proto, binder))
      return std::move(e);
  try {
    onnx::checker::check_model(**proto);
  } catch (const std::exception &e) {
    return fail(formatv("'{0}' is not a valid ONNX model: {1}", path, e.what()));
  }
  try {
    onnx::ShapeInferenceOptions options(/*check_type=*/true, /*error_mode=*/1,
                                        /*data_prop=*/true);
    onnx::shape_inference::InferShapes(**proto, onnx::OpSchemaRegistry::Instance(),
                                       options);
  } catch (const std::exception &e) {
    return fail(formatv("'{0}': ONNX shape inference failed: {1}", path, e.what()));
  }
  return convertModel(std::move(*proto), path, std::move(declaredInputs));
}

llvm::Expected<TensorData> pimc::frontend::readTensorFile(llvm::StringRef path) {
  std::ifstream stream(path.str(), std::ios::binary);
  if (!stream)
    return fail(formatv("cannot open tensor file '{0}'", path));
  onnx::TensorProto proto;
  if (!proto.ParseFromIstream(&stream))
    return fail(formatv("'{0}' is not a serialized ONNX TensorProto", path));
  llvm::Expected<TensorData> tensor = convertTensor(proto, /*view=*/false);
  if (!tensor)
    return fail(formatv("'{0}': {1}", path, llvm::toString(tensor.takeError())));
  return tensor;
}

llvm::Error pimc::frontend::writeTensorFile(llvm::StringRef path,
                                            const TensorData &tensor) {
  onnx::TensorProto proto;
  proto.set_name(tensor.name);
  proto.set_data_type(kFloat);
  for (int64_t d : tensor.dims)
    proto.add_dims(d);
  proto.set_raw_data(std::string(reinterpret_cast<const char *>(tensor.floats.data()),
                                 tensor.floats.size() * sizeof(float)));
  std::ofstream stream(path.str(), std::ios::binary);
  if (!stream || !proto.SerializeToOstream(&stream))
    return fail(formatv("cannot write tensor file '{0}'", path));
  return llvm::Error::success();
}
