//===- OnnxModel.h - ONNX models as plain data ------------------*- C++ -*-===//
//
// The ONNX protobuf is read only here (protobuf and the ONNX library throw,
// the rest of pimc is built without exceptions). A loaded model is plain data;
// each large initializer is read from the file once, straight into a buffer
// of its own that the tensors (and the IR constants) made from it share, so
// that weights are never copied on the way in and each is freed when its
// last user is.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_FRONTEND_ONNXMODEL_H
#define PIMC_FRONTEND_ONNXMODEL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pimc::frontend {

/// ONNX TensorProto.DataType values pimc reads.
enum DataType : int32_t { kFloat = 1, kUint8 = 2, kInt8 = 3, kInt32 = 6,
                          kInt64 = 7, kBool = 9, kDouble = 11 };

/// The name of an ONNX data type ("float", "uint8", ...).
std::string dataTypeName(int32_t type);

/// A tensor's name, type, shape and values (f32 or i64 only; other types
/// keep their type and shape but no values). Copies share the f32 values,
/// which never change.
struct TensorData {
  std::string name;
  int32_t dataType = kFloat;
  std::vector<int64_t> dims;
  llvm::ArrayRef<float> floats; // kept alive by `owner`
  std::shared_ptr<const void> owner;
  std::vector<int64_t> ints;

  int64_t numElements() const;
  /// Makes `floats` (and `owner`) hold `values`.
  void setFloats(std::vector<float> values);
};

struct Attribute {
  enum Kind { Float, Int, String, Tensor, Floats, Ints, Strings, Other };
  std::string name;
  Kind kind = Other;
  float f = 0;
  int64_t i = 0;
  std::string s;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::shared_ptr<TensorData> tensor;
};

struct ValueInfo {
  std::string name;
  bool isTensor = true;
  int32_t elementType = 0; // 0 when unknown
  bool hasShape = false;
  /// -1 for a dimension that is not a known constant.
  std::vector<int64_t> dims;
  /// The symbolic name of each dimension, empty when there is none.
  std::vector<std::string> dimParams;
};

struct Node {
  std::string name, opType, domain;
  std::vector<std::string> inputs, outputs; // "" marks an omitted optional
  std::vector<Attribute> attributes;

  const Attribute *attribute(llvm::StringRef attrName) const;
  /// "Gemm 'fc1'" or "Gemm #3" when the node has no name.
  std::string describe() const;
  int index = 0;
};

struct Graph {
  std::string name;
  std::vector<ValueInfo> inputs, outputs; // graph inputs exclude initializers
  /// Names of the graph inputs as the file declares them (before any were
  /// bound as initializers): input_K.pb of a test is the K-th of these.
  std::vector<std::string> declaredInputs;
  std::vector<TensorData> initializers;
  std::vector<Node> nodes;
  /// Shapes of every value, as ONNX shape inference found them.
  std::map<std::string, ValueInfo> valueInfo;
};

struct Model {
  int64_t irVersion = 0;
  int64_t opsetVersion = 0; // of the default domain
  std::string producer;
  Graph graph;
  std::shared_ptr<const void> storage; // keeps the parsed protobuf alive
};

/// Inputs of node `opType` that pimc needs as constants (weights, shapes):
/// they are programmed into crossbars or folded before inference.
llvm::ArrayRef<unsigned> constantOperandIndices(llvm::StringRef opType);

/// Called for a graph input that feeds an operand pimc needs as a constant;
/// returning a tensor binds it as an initializer.
using ConstantInputBinder = llvm::function_ref<llvm::Expected<std::optional<TensorData>>(
    const ValueInfo &input, unsigned inputIndex, const Node &user)>;

/// The samples one inference of `model` computes: the batch dimension of its
/// first input (axis 0, axis 1 for the sequence of a time-major RNN, GRU or
/// LSTM), 1 when the input has no such known dimension.
int64_t samplesPerInference(const Model &model);

/// Folds a node whose inputs are the given constants (null for an omitted
/// one) and whose output has the given shape: its output, or nullopt when it
/// is not an operator the folder folds (frontend::foldKnownNode).
using ConstantFolder = llvm::function_ref<llvm::Expected<std::optional<TensorData>>(
    const Node &node, llvm::ArrayRef<const TensorData *> inputs,
    llvm::ArrayRef<int64_t> resultShape)>;

/// Reads, checks and shape-infers an ONNX model file. Where shape inference
/// leaves shapes unknown behind shapes the graph computes, the nodes
/// `folder` folds become initializers and shapes are inferred again. With
/// `oneSample`, every graph input's first dimension is taken to be 1: the
/// model of one sample of its batch, whose shapes shape inference computes
/// anew (checkSamplesApart says whether it is that).
llvm::Expected<Model> loadModel(llvm::StringRef path, ConstantFolder folder,
                                ConstantInputBinder binder = nullptr, bool oneSample = false);

/// Succeeds when `oneSample` (the model loaded with `oneSample`) computes
/// each sample of `batch`'s inference on its own: every graph input and
/// every value the inputs flow into has the batch as its first dimension in
/// `batch` and 1 in `oneSample`, the other dimensions alike, and no node
/// mixes samples along that axis. Running `oneSample` once for each sample
/// then computes `batch`. The error says which input or node keeps the
/// samples together.
llvm::Error checkSamplesApart(const Model &batch, const Model &oneSample);
/// Reads a serialized TensorProto (input_K.pb / output_K.pb).
llvm::Expected<TensorData> readTensorFile(llvm::StringRef path);
/// Writes an f32 tensor as a serialized TensorProto.
llvm::Error writeTensorFile(llvm::StringRef path, const TensorData &tensor);

} // namespace pimc::frontend

#endif // PIMC_FRONTEND_ONNXMODEL_H
