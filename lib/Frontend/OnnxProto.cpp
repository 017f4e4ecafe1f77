//===- OnnxProto.cpp - read ONNX protobuf files ---------------------------===//
//
// The only file that touches protobuf and the ONNX library; it is compiled
// with exceptions and turns every exception into an llvm::Error.
//
//===----------------------------------------------------------------------===//

#include "pimc/Frontend/OnnxModel.h"
#include "pimc/Support/InputLimits.h"

#include "onnx/checker.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>

using namespace pimc;
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

void TensorData::setFloats(std::vector<float> values) {
  auto storage = std::make_shared<std::vector<float>>(std::move(values));
  floats = *storage;
  owner = std::move(storage);
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

int64_t pimc::frontend::samplesPerInference(const Model &model) {
  if (model.graph.inputs.empty())
    return 1;
  const ValueInfo &input = model.graph.inputs.front();
  size_t axis = 0;
  for (const Node &node : model.graph.nodes)
    if ((node.opType == "RNN" || node.opType == "GRU" || node.opType == "LSTM") &&
        !node.inputs.empty() && node.inputs.front() == input.name) {
      const Attribute *layout = node.attribute("layout");
      axis = layout && layout->i == 1 ? 0 : 1;
      break;
    }
  if (!input.hasShape || input.dims.size() <= axis + 1 || input.dims[axis] < 1)
    return 1;
  return input.dims[axis];
}

llvm::ArrayRef<unsigned> pimc::frontend::constantOperandIndices(llvm::StringRef opType) {
  static const std::map<std::string, std::vector<unsigned>, std::less<>> table = {
      {"Gemm", {1, 2}},
      {"MatMul", {1}},
      {"Reshape", {1}},
      {"Conv", {1, 2}},
      {"ConvTranspose", {1, 2}},
      {"BatchNormalization", {1, 2, 3, 4}},
      {"Clip", {1, 2}},
      {"Pad", {1, 2}},
      {"Squeeze", {1}},
      {"Unsqueeze", {1}},
      {"ReduceSum", {1}},
      {"Slice", {1, 2, 3, 4}},
      {"Split", {1}},
      {"Gather", {1}},
      {"Expand", {1}},
      {"Tile", {1}},
      {"Range", {0, 1, 2}},
      {"ConstantOfShape", {0}},
      {"Resize", {1, 2, 3}},
      {"Upsample", {1}},
      // Weights, biases, sequence lengths and peepholes of recurrent cells.
      {"RNN", {1, 2, 3, 4}},
      {"GRU", {1, 2, 3, 4}},
      {"LSTM", {1, 2, 3, 4, 7}},
      // The instruction set has no division: only a constant divisor, as a
      // multiplication by its reciprocal.
      {"Div", {1}}};
  auto it = table.find(opType);
  if (it == table.end())
    return {};
  return it->second;
}

/// Converts a TensorProto; with a `protoOwner` (which keeps `proto` alive),
/// f32 data is viewed rather than copied. A `payload` read from the file
/// takes the place of the proto's raw data.
static llvm::Expected<TensorData>
convertTensor(const onnx::TensorProto &proto,
              const std::shared_ptr<const void> &protoOwner = nullptr,
              std::optional<std::vector<float>> payload = std::nullopt) {
  bool view = protoOwner != nullptr;
  TensorData tensor;
  tensor.name = proto.name();
  tensor.dataType = proto.data_type();
  tensor.dims.assign(proto.dims().begin(), proto.dims().end());
  for (int64_t d : tensor.dims)
    if (d < 0)
      return fail(formatv("tensor '{0}' has a negative dimension", tensor.name));
  std::optional<int64_t> bounded = boundedProduct(tensor.dims);
  if (!bounded)
    return fail(formatv("tensor '{0}' has more than {1} elements", tensor.name,
                        kMaxTensorElements));
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    return fail(formatv("tensor '{0}' keeps its data in an external file, "
                        "which pimc reads for initializers only",
                        tensor.name));
  int64_t count = *bounded;
  const std::string &raw = proto.raw_data();
  auto checkCount = [&](int64_t have) -> llvm::Error {
    if (have != count)
      return fail(formatv("tensor '{0}' has {1} values for {2} elements",
                          tensor.name, have, count));
    return llvm::Error::success();
  };
  // An empty tensor's buffers may be null, which memcpy may not be given.
  auto copyRaw = [&](void *to, const char *from, size_t bytes) {
    if (bytes)
      std::memcpy(to, from, bytes);
  };
  // Raw data is exactly the elements' bytes: a remainder would be read
  // past the values' buffer.
  auto checkRawBytes = [&](size_t elementBytes) -> llvm::Error {
    if (raw.size() != uint64_t(count) * elementBytes)
      return fail(formatv("tensor '{0}' has {1} bytes of raw data for {2} elements "
                          "of {3} bytes",
                          tensor.name, raw.size(), count, elementBytes));
    return llvm::Error::success();
  };
  switch (tensor.dataType) {
  case kFloat:
    if (payload) {
      if (llvm::Error e = checkCount(payload->size()))
        return std::move(e);
      tensor.setFloats(std::move(*payload));
    } else if (proto.has_raw_data()) {
      if (llvm::Error e = checkRawBytes(sizeof(float)))
        return std::move(e);
      if (view && reinterpret_cast<uintptr_t>(raw.data()) % alignof(float) == 0) {
        tensor.floats = llvm::ArrayRef<float>(
            reinterpret_cast<const float *>(raw.data()), count);
        tensor.owner = protoOwner;
      } else {
        std::vector<float> values(count);
        copyRaw(values.data(), raw.data(), count * sizeof(float));
        tensor.setFloats(std::move(values));
      }
    } else {
      if (llvm::Error e = checkCount(proto.float_data_size()))
        return std::move(e);
      if (view) {
        tensor.floats = llvm::ArrayRef<float>(proto.float_data().data(), count);
        tensor.owner = protoOwner;
      } else
        tensor.setFloats({proto.float_data().begin(), proto.float_data().end()});
    }
    break;
  case kInt64:
    if (proto.has_raw_data()) {
      if (llvm::Error e = checkRawBytes(sizeof(int64_t)))
        return std::move(e);
      tensor.ints.resize(count);
      copyRaw(tensor.ints.data(), raw.data(), count * sizeof(int64_t));
    } else {
      if (llvm::Error e = checkCount(proto.int64_data_size()))
        return std::move(e);
      tensor.ints.assign(proto.int64_data().begin(), proto.int64_data().end());
    }
    break;
  case kInt32:
    // Kept as i64: pimc only uses integer tensors as shapes and indices.
    if (proto.has_raw_data()) {
      if (llvm::Error e = checkRawBytes(sizeof(int32_t)))
        return std::move(e);
      std::vector<int32_t> values(count);
      copyRaw(values.data(), raw.data(), count * sizeof(int32_t));
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
    llvm::Expected<TensorData> tensor = convertTensor(proto.t());
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

namespace {
/// Where an initializer's raw data lies: in the model file, or in the
/// external data file `file`.
struct FileSpan {
  uint64_t offset = 0, size = 0;
  std::string file;
};

/// A parsed model whose large initializer payloads are still in the file.
struct ModelFile {
  std::shared_ptr<onnx::ModelProto> proto;
  std::ifstream file;
  /// By graph initializer index: the payload left in the file, if any.
  std::vector<std::optional<FileSpan>> spans;
};

/// Copies the protobuf wire format of a model file, leaving out the raw data
/// of its large initializers (recorded as file spans). Protobuf would hold
/// each payload while it grows a string for it; left out, each is read once,
/// straight into the buffer that keeps it.
class SkeletonReader {
public:
  SkeletonReader(std::istream &in, uint64_t size, std::vector<std::optional<FileSpan>> &spans)
      : in(in), size(size), spans(spans) {}

  /// The model without its large payloads, or false on a malformed file.
  bool read(std::string &skeleton) { return message(Kind::Model, size, skeleton); }

private:
  enum class Kind { Model, Graph, Tensor, Other };
  /// Payloads smaller than this stay in the protobuf (shapes among them).
  static constexpr uint64_t kSetAsideBytes = 4096;
  // Field numbers in onnx.proto.
  static constexpr uint64_t kModelGraph = 7, kGraphInitializer = 5, kTensorRawData = 9;

  bool varint(uint64_t &value, std::string &out) {
    value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      int c = in.get();
      if (c == EOF)
        return false;
      ++pos;
      out.push_back(static_cast<char>(c));
      value |= uint64_t(c & 0x7f) << shift;
      if (!(c & 0x80))
        return true;
    }
    return false;
  }
  static void putVarint(uint64_t value, std::string &out) {
    do {
      char byte = value & 0x7f;
      value >>= 7;
      out.push_back(value ? byte | char(0x80) : byte);
    } while (value);
  }
  bool bytes(uint64_t n, std::string &out) {
    size_t at = out.size();
    out.resize(at + n);
    in.read(out.data() + at, n);
    pos += n;
    return uint64_t(in.gcount()) == n;
  }

  bool message(Kind kind, uint64_t end, std::string &out) {
    while (pos < end) {
      std::string tagBytes;
      uint64_t tag, length;
      // A varint that runs past the end of its message leaves pos beyond
      // it: then end - pos would wrap around below.
      if (!varint(tag, tagBytes) || pos > end)
        return false;
      uint64_t field = tag >> 3;
      // Field 0 is invalid protobuf (and would let a file of zeros be
      // copied whole before failing).
      if (field == 0)
        return false;
      switch (tag & 7) {
      case 0: // varint
        out += tagBytes;
        if (!varint(length, out))
          return false;
        break;
      case 1: // fixed64
        out += tagBytes;
        if (end - pos < 8 || !bytes(8, out))
          return false;
        break;
      case 5: // fixed32
        out += tagBytes;
        if (end - pos < 4 || !bytes(4, out))
          return false;
        break;
      case 2: { // length-delimited
        std::string lengthBytes;
        if (!varint(length, lengthBytes) || pos > end || length > end - pos)
          return false;
        Kind inner = kind == Kind::Model && field == kModelGraph ? Kind::Graph
                     : kind == Kind::Graph && field == kGraphInitializer ? Kind::Tensor
                                                                          : Kind::Other;
        if (inner == Kind::Tensor)
          spans.emplace_back();
        if (kind == Kind::Tensor && field == kTensorRawData && length >= kSetAsideBytes) {
          spans.back() = FileSpan{pos, length};
          in.seekg(length, std::ios::cur);
          pos += length;
          // A placeholder: the checker wants the field present, and an empty
          // bytes field is absent for onnx's proto3 build.
          out += tagBytes;
          putVarint(sizeof(float), out);
          out.append(sizeof(float), '\0');
        } else if (inner != Kind::Other) {
          std::string body;
          if (!message(inner, pos + length, body))
            return false;
          out += tagBytes;
          putVarint(body.size(), out);
          out += body;
        } else {
          out += tagBytes;
          out += lengthBytes;
          if (!bytes(length, out))
            return false;
        }
        break;
      }
      default: // groups: not in onnx.proto
        return false;
      }
    }
    return pos == end && in.good();
  }

  std::istream &in;
  uint64_t size, pos = 0;
  std::vector<std::optional<FileSpan>> &spans;
};
} // namespace

/// Reads `size` bytes of the model file (or the external file) at `span`
/// into `out`.
static bool readSpan(ModelFile &model, const FileSpan &span, char *out) {
  std::ifstream external;
  std::ifstream &in = span.file.empty() ? model.file : external;
  if (!span.file.empty())
    external.open(span.file, std::ios::binary);
  in.clear();
  in.seekg(span.offset);
  in.read(out, span.size);
  return uint64_t(in.gcount()) == span.size;
}

/// Reads the row-major [rows, cols] f32 matrix at `span` into `out`
/// transposed, [cols, rows], a band of rows at a time.
static bool readSpanTransposed(ModelFile &model, const FileSpan &span, int64_t rows,
                               int64_t cols, float *out) {
  constexpr int64_t kBandBytes = 4 << 20;
  int64_t band = std::clamp<int64_t>(kBandBytes / (cols * sizeof(float)), 1, rows);
  std::vector<float> read(band * cols);
  for (int64_t first = 0; first < rows; first += band) {
    int64_t count = std::min(band, rows - first);
    FileSpan part{span.offset + uint64_t(first * cols) * sizeof(float),
                  uint64_t(count * cols) * sizeof(float), span.file};
    if (!readSpan(model, part, reinterpret_cast<char *>(read.data())))
      return false;
    for (int64_t c = 0; c < cols; ++c)
      for (int64_t r = 0; r < count; ++r)
        out[c * rows + first + r] = read[r * cols + c];
  }
  return true;
}

/// The weights of a Gemm with transB that are read transposed, and the Gemm
/// then written without it: f32 matrices left in the file whose one use is
/// that Gemm's B. (Canonicalization would transpose them into a copy: for
/// a large classifier, hundreds of MB more, which the kernel zeroes first.)
static std::set<std::string>
weightsReadTransposed(const onnx::GraphProto &graph,
                      llvm::ArrayRef<std::optional<FileSpan>> spans) {
  std::map<std::string, int> uses;
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &input : node.input())
      ++uses[input];
  for (const onnx::ValueInfoProto &output : graph.output())
    ++uses[output.name()];
  std::set<std::string> transposed;
  for (const onnx::NodeProto &node : graph.node()) {
    if (node.op_type() != "Gemm" || node.input_size() < 2 || uses[node.input(1)] != 1)
      continue;
    bool transB = llvm::any_of(node.attribute(), [](const onnx::AttributeProto &attr) {
      return attr.name() == "transB" && attr.i() == 1;
    });
    if (transB)
      transposed.insert(node.input(1));
  }
  std::set<std::string> inFile;
  for (auto [index, init] : llvm::enumerate(graph.initializer()))
    if (transposed.count(init.name()) && index < spans.size() && spans[index] &&
        init.data_type() == onnx::TensorProto::FLOAT && init.dims_size() == 2)
      inFile.insert(init.name());
  return inFile;
}

/// Where the external data of initializer `tensor` lies: a regular file
/// inside the model's directory (symlinks resolved), within its size.
static llvm::Expected<FileSpan> externalSpan(const onnx::TensorProto &tensor,
                                             llvm::StringRef modelPath) {
  auto failHere = [&](const llvm::Twine &message) {
    return fail("'" + modelPath + "': initializer '" + tensor.name() + "': " + message);
  };
  std::string location;
  std::optional<std::string> offsetText, lengthText;
  for (const auto &entry : tensor.external_data()) {
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset")
      offsetText = entry.value();
    else if (entry.key() == "length")
      lengthText = entry.value();
  }
  if (location.empty())
    return failHere("its external data has no 'location'");
  if (llvm::sys::path::is_absolute(location))
    return failHere("the external data location '" + location +
                    "' is absolute; it must be a file in the model's directory");
  for (llvm::StringRef part : llvm::make_range(llvm::sys::path::begin(location),
                                               llvm::sys::path::end(location)))
    if (part == "..")
      return failHere("the external data location '" + location +
                      "' leaves the model's directory");
  llvm::SmallString<256> directory(modelPath);
  llvm::sys::path::remove_filename(directory);
  if (directory.empty())
    directory = ".";
  llvm::SmallString<256> file(directory);
  llvm::sys::path::append(file, location);
  llvm::Expected<std::string> realFile = realPathInside(file, directory);
  if (!realFile)
    return failHere("external data: " + llvm::toString(realFile.takeError()));
  if (llvm::Error e = checkRegularFile(*realFile))
    return failHere(llvm::toString(std::move(e)));
  uint64_t fileSize = 0;
  if (std::error_code ec = llvm::sys::fs::file_size(*realFile, fileSize))
    return failHere("cannot read '" + file + "': " + ec.message());
  FileSpan span;
  span.file = *realFile;
  if (offsetText && llvm::StringRef(*offsetText).getAsInteger(10, span.offset))
    return failHere("its external data offset '" + *offsetText + "' is not a number");
  if (span.offset > fileSize)
    return failHere(formatv("its external data offset {0} is past the end of '{1}' ({2} "
                            "bytes)",
                            span.offset, file, fileSize));
  span.size = fileSize - span.offset;
  if (lengthText && llvm::StringRef(*lengthText).getAsInteger(10, span.size))
    return failHere("its external data length '" + *lengthText + "' is not a number");
  if (span.size > fileSize - span.offset)
    return failHere(formatv("its external data ({0} bytes at offset {1}) runs past the end "
                            "of '{2}' ({3} bytes)",
                            span.size, span.offset, file, fileSize));
  return span;
}

static llvm::Expected<ModelFile> parseModelFile(llvm::StringRef path) {
  ModelFile model;
  // A FIFO would block the open, a device never end.
  if (llvm::sys::fs::exists(path))
    if (llvm::Error e = checkRegularFile(path))
      return fail(formatv("cannot open model '{0}': not a regular file", path));
  model.file.open(path.str(), std::ios::binary | std::ios::ate);
  if (!model.file)
    return fail(formatv("cannot open model '{0}'", path));
  uint64_t size = model.file.tellg();
  model.file.seekg(0);
  std::string skeleton;
  auto notOnnx = [&] {
    return fail(formatv("'{0}' is not an ONNX model (the protobuf does not parse)", path));
  };
  if (!SkeletonReader(model.file, size, model.spans).read(skeleton))
    return notOnnx();
  model.proto = std::make_shared<onnx::ModelProto>();
  if (!model.proto->ParseFromString(skeleton))
    return notOnnx();
  if (!model.proto->has_graph())
    return fail(formatv("'{0}' has no graph", path));
  // Initializers with external data are read like the large payloads of
  // the model file.
  onnx::GraphProto *graph = model.proto->mutable_graph();
  model.spans.resize(graph->initializer_size());
  for (int i = 0; i < graph->initializer_size(); ++i) {
    onnx::TensorProto *init = graph->mutable_initializer(i);
    if (init->data_location() != onnx::TensorProto::EXTERNAL)
      continue;
    llvm::Expected<FileSpan> span = externalSpan(*init, path);
    if (!span)
      return span.takeError();
    model.spans[i] = std::move(*span);
    init->clear_external_data();
    init->set_data_location(onnx::TensorProto::DEFAULT);
    init->set_raw_data(std::string(sizeof(float), '\0'));
  }
  // Only f32 weights stay in the file; the rest (integer shapes that shape
  // inference reads) are put back.
  for (int i = 0; i < graph->initializer_size(); ++i) {
    onnx::TensorProto *init = graph->mutable_initializer(i);
    if (!model.spans[i] || init->data_type() == kFloat)
      continue;
    std::string raw(model.spans[i]->size, '\0');
    if (!readSpan(model, *model.spans[i], raw.data()))
      return fail(formatv("'{0}': initializer '{1}' is cut short", path, init->name()));
    init->set_raw_data(std::move(raw));
    model.spans[i].reset();
  }
  return model;
}

/// ONNX's shape inference reads the raw data of initializers and Constant
/// values (shapes, pads) as their shapes say, past the end of a payload
/// too short (heap corruption, seen as a crash at exit): the payload must
/// be exactly the shape's bytes before it runs. Payloads left in the file
/// (`spans`) are checked when they are read.
static llvm::Error checkRawDataSizes(const onnx::GraphProto &graph,
                                     llvm::ArrayRef<std::optional<FileSpan>> spans,
                                     llvm::StringRef path) {
  auto check = [&](const onnx::TensorProto &tensor) -> llvm::Error {
    if (!tensor.has_raw_data() || tensor.data_location() == onnx::TensorProto::EXTERNAL)
      return llvm::Error::success();
    uint64_t elementBytes = 0;
    switch (tensor.data_type()) {
    case onnx::TensorProto::UINT8: case onnx::TensorProto::INT8: case onnx::TensorProto::BOOL:
      elementBytes = 1;
      break;
    case onnx::TensorProto::UINT16: case onnx::TensorProto::INT16:
    case onnx::TensorProto::FLOAT16: case onnx::TensorProto::BFLOAT16:
      elementBytes = 2;
      break;
    case onnx::TensorProto::FLOAT: case onnx::TensorProto::INT32: case onnx::TensorProto::UINT32:
      elementBytes = 4;
      break;
    case onnx::TensorProto::INT64: case onnx::TensorProto::UINT64: case onnx::TensorProto::DOUBLE:
      elementBytes = 8;
      break;
    default:
      return llvm::Error::success();
    }
    std::optional<int64_t> count = boundedProduct(
        llvm::ArrayRef<int64_t>(tensor.dims().data(), tensor.dims().size()));
    if (!count)
      return fail(formatv("'{0}': tensor '{1}' has more than {2} elements (or a negative "
                          "dimension)",
                          path, tensor.name(), kMaxTensorElements));
    if (tensor.raw_data().size() != uint64_t(*count) * elementBytes)
      return fail(formatv("'{0}': tensor '{1}' has {2} bytes of raw data for {3} elements "
                          "of {4} bytes",
                          path, tensor.name(), tensor.raw_data().size(), *count,
                          elementBytes));
    return llvm::Error::success();
  };
  for (auto [index, init] : llvm::enumerate(graph.initializer()))
    if (index >= spans.size() || !spans[index])
      if (llvm::Error e = check(init))
        return e;
  for (const onnx::NodeProto &node : graph.node())
    for (const onnx::AttributeProto &attr : node.attribute())
      if (attr.has_t())
        if (llvm::Error e = check(attr.t()))
          return e;
  return llvm::Error::success();
}

/// Node `index` of a graph, as much of it as its description needs.
static Node describedNode(const onnx::NodeProto &proto, int index) {
  Node node;
  node.name = proto.name();
  node.opType = proto.op_type();
  node.index = index;
  return node;
}

/// pimc supports no control flow: graphs inside nodes (the branches of If,
/// the bodies of Loop and Scan) are refused before the checker or shape
/// inference reads them, since pimc's checks of attributes and shapes see
/// only the top-level graph. So are model-local functions, whose bodies
/// shape inference expands with the attributes of the calling node.
static llvm::Error refuseSubgraphs(const onnx::ModelProto &proto, llvm::StringRef path) {
  if (proto.functions_size())
    return fail(formatv("'{0}' defines functions ('{1}' first); pimc supports operators "
                        "of the default ONNX domain only",
                        path, proto.functions(0).name()));
  const onnx::GraphProto &graph = proto.graph();
  for (int n = 0; n < graph.node_size(); ++n)
    for (const onnx::AttributeProto &attr : graph.node(n).attribute())
      if (attr.type() == onnx::AttributeProto::GRAPH ||
          attr.type() == onnx::AttributeProto::GRAPHS || attr.has_g() || attr.graphs_size())
        return fail(formatv("'{0}': node {1}: attribute '{2}' is a graph; pimc supports no "
                            "control flow (If, Loop, Scan)",
                            path, describedNode(graph.node(n), n).describe(), attr.name()));
  return llvm::Error::success();
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
      Node node = describedNode(nodeProto, n);
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
      else if ((*data)->dataType == kInt32) // as the operator's type says (sequence_lens)
        for (int64_t v : (*data)->ints)
          init->add_int32_data(v);
      else
        for (int64_t v : (*data)->ints)
          init->add_int64_data(v);
      bound.insert(name);
    }
  }
  // Bound inputs are initializers now, no longer graph inputs (before IR
  // version 4, every initializer is a graph input as well).
  if (proto.ir_version() < 4)
    return llvm::Error::success();
  auto *inputs = graph->mutable_input();
  for (int i = inputs->size() - 1; i >= 0; --i)
    if (bound.count(inputs->Get(i).name()))
      inputs->DeleteSubrange(i, 1);
  return llvm::Error::success();
}

static llvm::Expected<Node> convertNode(const onnx::NodeProto &proto, int index) {
  Node node;
  node.name = proto.name();
  node.opType = proto.op_type();
  node.domain = proto.domain();
  node.index = index;
  node.inputs.assign(proto.input().begin(), proto.input().end());
  node.outputs.assign(proto.output().begin(), proto.output().end());
  for (const auto &attrProto : proto.attribute()) {
    llvm::Expected<Attribute> attr = convertAttribute(attrProto, node.describe());
    if (!attr)
      return attr.takeError();
    node.attributes.push_back(std::move(*attr));
  }
  return node;
}

/// The dimensions of a tensor type, if all are known.
static std::optional<std::vector<int64_t>> knownDims(const onnx::TypeProto &type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape())
    return std::nullopt;
  std::vector<int64_t> dims;
  for (const auto &dim : type.tensor_type().shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() < 0)
      return std::nullopt;
    dims.push_back(dim.dim_value());
  }
  return dims;
}

/// Exporters compute shapes in the graph, and ONNX's shape inference does
/// not follow every such computation (Unsqueeze of a Constant, for one):
/// a Reshape behind it, and all that follows, is left without a shape.
/// When shape inference left a node's output unknown, the nodes `folder`
/// folds from constants become initializers (those whose output shape is
/// known, in order, so that a fold feeds the next); returns whether any did.
static bool foldConstantNodes(onnx::GraphProto &graph, ConstantFolder folder) {
  std::map<std::string, std::vector<int64_t>> dims;
  auto learn = [&](const onnx::ValueInfoProto &info) {
    if (std::optional<std::vector<int64_t>> d = knownDims(info.type()))
      dims[info.name()] = std::move(*d);
  };
  for (const auto &info : graph.value_info())
    learn(info);
  for (const auto &info : graph.input())
    learn(info);
  for (const auto &info : graph.output())
    learn(info);
  bool unknown = false;
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &output : node.output())
      unknown |= !output.empty() && !dims.count(output);
  if (!unknown)
    return false;
  // Small initializers (shapes, indices) as values; weights are not read.
  constexpr int64_t kMostElements = 1 << 16;
  std::map<std::string, TensorData> known;
  for (const onnx::TensorProto &init : graph.initializer()) {
    std::optional<int64_t> count =
        boundedProduct(llvm::ArrayRef<int64_t>(init.dims().data(), init.dims().size()));
    if (!count || *count > kMostElements ||
        init.data_location() == onnx::TensorProto::EXTERNAL)
      continue;
    if (llvm::Expected<TensorData> tensor = convertTensor(init))
      known[init.name()] = std::move(*tensor);
    else
      llvm::consumeError(tensor.takeError());
  }
  std::set<std::string> graphOutputs;
  for (const auto &output : graph.output())
    graphOutputs.insert(output.name());
  std::vector<bool> folded(graph.node_size(), false);
  for (int n = 0; n < graph.node_size(); ++n) {
    const onnx::NodeProto &proto = graph.node(n);
    if (proto.output_size() != 1 || graphOutputs.count(proto.output(0)) ||
        !dims.count(proto.output(0)) || !proto.domain().empty())
      continue;
    std::optional<int64_t> elements = boundedProduct(dims[proto.output(0)]);
    if (!elements || *elements > kMostElements)
      continue;
    llvm::Expected<Node> node = convertNode(proto, n);
    if (!node) {
      llvm::consumeError(node.takeError());
      continue;
    }
    bool shapeOf = node->opType == "Shape" || node->opType == "Size";
    // Of Shape's and Size's input; reserved, as `inputs` points into it.
    std::vector<TensorData> shapes;
    shapes.reserve(node->inputs.size());
    std::vector<const TensorData *> inputs;
    bool ready = true;
    for (const std::string &input : node->inputs) {
      if (input.empty()) {
        inputs.push_back(nullptr);
      } else if (auto it = known.find(input); it != known.end()) {
        inputs.push_back(&it->second);
      } else if (auto it = dims.find(input); shapeOf && it != dims.end()) {
        shapes.emplace_back().dims = it->second;
        inputs.push_back(&shapes.back());
      } else {
        ready = false;
      }
    }
    if (!ready)
      continue;
    llvm::Expected<std::optional<TensorData>> value = folder(*node, inputs, dims[proto.output(0)]);
    if (!value) {
      llvm::consumeError(value.takeError()); // the importer says what is wrong
      continue;
    }
    if (!*value)
      continue;
    (*value)->name = proto.output(0);
    known[proto.output(0)] = std::move(**value);
    folded[n] = true;
  }
  if (llvm::find(folded, true) == folded.end())
    return false;
  // The folded values the remaining nodes read become initializers.
  std::set<std::string> read;
  for (int n = 0; n < graph.node_size(); ++n)
    if (!folded[n])
      read.insert(graph.node(n).input().begin(), graph.node(n).input().end());
  for (int n = 0; n < graph.node_size(); ++n) {
    if (!folded[n] || !read.count(graph.node(n).output(0)))
      continue;
    const TensorData &value = known[graph.node(n).output(0)];
    onnx::TensorProto *init = graph.add_initializer();
    init->set_name(value.name);
    for (int64_t d : value.dims)
      init->add_dims(d);
    if (value.dataType == kFloat) {
      init->set_data_type(kFloat);
      for (float v : value.floats)
        init->add_float_data(v);
    } else {
      init->set_data_type(kInt64);
      for (int64_t v : value.ints)
        init->add_int64_data(v);
    }
  }
  auto *nodes = graph.mutable_node();
  for (int n = graph.node_size() - 1; n >= 0; --n)
    if (folded[n])
      nodes->DeleteSubrange(n, 1);
  return true;
}

static llvm::Expected<Model> convertModel(ModelFile &file, llvm::StringRef path,
                                          std::vector<std::string> declaredInputs) {
  std::shared_ptr<const onnx::ModelProto> proto = file.proto;
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
  std::set<std::string> transposed = weightsReadTransposed(graph, file.spans);
  for (auto [index, init] : llvm::enumerate(graph.initializer())) {
    std::optional<FileSpan> span;
    if (index < file.spans.size())
      span = file.spans[index];
    bool transpose = transposed.count(init.name());
    // A payload left in the file is read into the tensor's own buffer.
    std::optional<std::vector<float>> payload;
    if (span) {
      std::optional<int64_t> count = boundedProduct(
          llvm::ArrayRef<int64_t>(init.dims().data(), init.dims().size()));
      if (!count || span->size != uint64_t(*count) * sizeof(float))
        return fail(formatv("'{0}': initializer '{1}' has {2} bytes of data for {3} "
                            "elements of 4 bytes",
                            path, init.name(), span->size,
                            count ? llvm::Twine(*count).str()
                                  : ">" + llvm::Twine(kMaxTensorElements).str()));
      payload.emplace(*count);
      bool read = transpose ? readSpanTransposed(file, *span, init.dims(0), init.dims(1),
                                                 payload->data())
                            : readSpan(file, *span, reinterpret_cast<char *>(payload->data()));
      if (!read)
        return fail(formatv("'{0}': initializer '{1}' is cut short", path, init.name()));
    }
    llvm::Expected<TensorData> tensor = convertTensor(init, proto, std::move(payload));
    if (!tensor)
      return fail(formatv("'{0}': initializer: {1}", path,
                          llvm::toString(tensor.takeError())));
    if (transpose)
      std::swap(tensor->dims[0], tensor->dims[1]);
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
    llvm::Expected<Node> node = convertNode(graph.node(n), n);
    if (!node)
      return node.takeError();
    if (node->opType == "Gemm" && transposed.count(node->inputs[1]))
      for (Attribute &attr : node->attributes)
        if (attr.name == "transB")
          attr.i = 0;
    g.nodes.push_back(std::move(*node));
  }
  model.storage = std::move(proto);
  return model;
}

/// Checks the attributes whose values ONNX's checker leaves to the operator
/// (and its shape inference divides by or loops over): windows of at least
/// 1, paddings of at least 0, flags of 0 or 1, numbers that are numbers.
static llvm::Error checkAttributes(const onnx::GraphProto &graph, llvm::StringRef path) {
  // Larger windows and paddings than any tensor pimc accepts are a typo.
  constexpr int64_t kMaxWindow = kMaxTensorElements;
  for (int n = 0; n < graph.node_size(); ++n) {
    const onnx::NodeProto &proto = graph.node(n);
    Node node = describedNode(proto, n);
    const std::string &op = proto.op_type();
    bool window =
        op == "Conv" || op == "ConvTranspose" || op == "MaxPool" || op == "AveragePool";
    for (const onnx::AttributeProto &attr : proto.attribute()) {
      auto bad = [&](const llvm::Twine &what) {
        return fail("'" + path + "': node " + node.describe() + ": attribute '" +
                    attr.name() + "' " + what);
      };
      const std::string &name = attr.name();
      if (attr.type() == onnx::AttributeProto::FLOAT) {
        // Clip's bounds may be infinite; nothing may be NaN.
        bool mayBeInfinite = op == "Clip" && (name == "min" || name == "max");
        if (std::isnan(attr.f()) || (!mayBeInfinite && !std::isfinite(attr.f())))
          return bad(formatv("must be a finite number, not {0}", attr.f()));
      }
      if (attr.type() == onnx::AttributeProto::FLOATS)
        for (float f : attr.floats())
          if (!std::isfinite(f))
            return bad(formatv("must hold finite numbers, not {0}", f));
      if (attr.type() == onnx::AttributeProto::INT) {
        bool flag = name == "transA" || name == "transB" || name == "ceil_mode" ||
                    name == "count_include_pad" || name == "allowzero" ||
                    name == "training_mode" || name == "keepdims";
        if (flag && attr.i() != 0 && attr.i() != 1)
          return bad(formatv("must be 0 or 1, not {0}", attr.i()));
        if ((op == "Conv" || op == "ConvTranspose") && name == "group" && (attr.i() < 1 || attr.i() > kMaxWindow))
          return bad(formatv("must be at least 1, not {0}", attr.i()));
      }
      if (window && attr.type() == onnx::AttributeProto::INTS) {
        int64_t least = name == "pads" ? 0 : 1;
        if (name != "pads" && name != "strides" && name != "dilations" &&
            name != "kernel_shape")
          continue;
        for (int64_t v : attr.ints())
          if (v < least || v > kMaxWindow)
            return bad(formatv("must hold numbers from {0} to {1}, not {2}", least,
                               kMaxWindow, v));
      }
    }
  }
  return llvm::Error::success();
}

/// Makes a Reshape's target shape that starts with the batch (`samples`),
/// given as a constant, start with 1 instead: torch writes the batch size
/// of the export into the shapes of `x.view(n, ...)`. (checkSamplesApart
/// then holds that the data reshaped has the batch first.)
static void reshapeOneSample(onnx::GraphProto &graph, int64_t samples) {
  auto oneSample = [&](onnx::TensorProto &shape) {
    if (shape.data_type() != onnx::TensorProto::INT64 || shape.dims_size() != 1)
      return;
    if (shape.int64_data_size() > 0 && shape.int64_data(0) == samples) {
      shape.set_int64_data(0, 1);
    } else if (shape.raw_data().size() >= sizeof(int64_t)) {
      std::string raw = shape.raw_data();
      int64_t first;
      std::memcpy(&first, raw.data(), sizeof first); // little-endian, as ONNX stores it
      if (first != samples)
        return;
      first = 1;
      std::memcpy(raw.data(), &first, sizeof first);
      shape.set_raw_data(raw);
    }
  };
  std::set<std::string> shapes;
  for (const onnx::NodeProto &node : graph.node())
    if (node.op_type() == "Reshape" && node.input_size() > 1)
      shapes.insert(node.input(1));
  for (onnx::TensorProto &init : *graph.mutable_initializer())
    if (shapes.count(init.name()))
      oneSample(init);
  for (onnx::NodeProto &node : *graph.mutable_node())
    if (node.op_type() == "Constant" && node.output_size() == 1 && shapes.count(node.output(0)))
      for (onnx::AttributeProto &attr : *node.mutable_attribute())
        if (attr.name() == "value" && attr.has_t())
          oneSample(*attr.mutable_t());
}

/// Gives every graph input a batch of one sample (its first dimension) and
/// leaves the outputs' dimensions, and every other shape, to shape
/// inference. Returns the batch: the first input's first dimension.
static int64_t keepOneSample(onnx::GraphProto &graph) {
  std::set<std::string> initialized;
  for (const auto &init : graph.initializer())
    initialized.insert(init.name());
  int64_t samples = 0;
  for (onnx::ValueInfoProto &input : *graph.mutable_input()) {
    onnx::TensorShapeProto *shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (initialized.count(input.name()) || shape->dim_size() == 0)
      continue;
    if (!samples)
      samples = shape->dim(0).dim_value();
    shape->mutable_dim(0)->set_dim_value(1);
  }
  for (onnx::ValueInfoProto &output : *graph.mutable_output())
    for (onnx::TensorShapeProto::Dimension &dim :
         *output.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim())
      dim.Clear();
  graph.clear_value_info();
  if (samples > 1)
    reshapeOneSample(graph, samples);
  return samples;
}

llvm::Expected<Model> pimc::frontend::loadModel(llvm::StringRef path, ConstantFolder folder,
                                                ConstantInputBinder binder, bool oneSample) {
  llvm::Expected<ModelFile> file = parseModelFile(path);
  if (!file)
    return file.takeError();
  onnx::ModelProto &proto = *file->proto;
  if (llvm::Error e = refuseSubgraphs(proto, path))
    return std::move(e);
  std::vector<std::string> declaredInputs;
  {
    std::set<std::string> initialized;
    for (const auto &init : proto.graph().initializer())
      initialized.insert(init.name());
    for (const auto &input : proto.graph().input())
      if (!initialized.count(input.name()))
        declaredInputs.push_back(input.name());
  }
  if (binder)
    if (llvm::Error e = bindConstantInputs(proto, binder))
      return std::move(e);
  // The batch, when loading one sample of it.
  int64_t samples = oneSample ? keepOneSample(*proto.mutable_graph()) : 0;
  if (llvm::Error e = checkRawDataSizes(proto.graph(), file->spans, path))
    return std::move(e);
  try {
    onnx::checker::check_model(proto);
  } catch (const std::exception &e) {
    return fail(formatv("'{0}' is not a valid ONNX model: {1}", path, e.what()));
  }
  if (llvm::Error e = checkAttributes(proto.graph(), path))
    return std::move(e);
  // Shape inference loops over a padded dimension's length (auto_pad): a
  // graph input's shape is bounded before it runs.
  for (const onnx::ValueInfoProto &input : proto.graph().input()) {
    std::vector<int64_t> dims;
    for (const auto &dim : input.type().tensor_type().shape().dim())
      if (dim.has_dim_value())
        dims.push_back(dim.dim_value());
    if (!boundedProduct(dims))
      return fail(formatv("graph input '{0}' has a negative dimension or more than {1} "
                          "elements",
                          input.name(), kMaxTensorElements));
  }
  auto inferShapes = [&]() -> llvm::Error {
    try {
      onnx::ShapeInferenceOptions options(/*check_type=*/true, /*error_mode=*/1,
                                          /*data_prop=*/true);
      onnx::shape_inference::InferShapes(proto, onnx::OpSchemaRegistry::Instance(),
                                         options);
    } catch (const std::exception &e) {
      return fail(formatv("'{0}': ONNX shape inference failed: {1}", path, e.what()));
    }
    return llvm::Error::success();
  };
  if (llvm::Error e = inferShapes())
    return std::move(e);
  // Once more with the computed shapes folded, until nothing more folds.
  while (folder && foldConstantNodes(*proto.mutable_graph(), folder)) {
    if (samples > 1) // shapes the graph computed from constants
      reshapeOneSample(*proto.mutable_graph(), samples);
    proto.mutable_graph()->clear_value_info();
    if (llvm::Error e = inferShapes())
      return std::move(e);
  }
  return convertModel(*file, path, std::move(declaredInputs));
}

llvm::Expected<TensorData> pimc::frontend::readTensorFile(llvm::StringRef path) {
  if (llvm::sys::fs::exists(path))
    if (llvm::Error e = checkRegularFile(path))
      return std::move(e);
  std::ifstream stream(path.str(), std::ios::binary);
  if (!stream)
    return fail(formatv("cannot open tensor file '{0}'", path));
  onnx::TensorProto proto;
  if (!proto.ParseFromIstream(&stream))
    return fail(formatv("'{0}' is not a serialized ONNX TensorProto", path));
  llvm::Expected<TensorData> tensor = convertTensor(proto);
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
