//===- SampleBatchTest.cpp - Whether a batch's samples are computed apart -===//
//
// Graphs written by hand as the loader gives them: the model with its batch
// and the same model with one sample, each with the shapes ONNX's shape
// inference gives.
//
//===----------------------------------------------------------------------===//

#include "pimc/Frontend/OnnxModel.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

using namespace pimc::frontend;

namespace {

ValueInfo value(const std::string &name, std::vector<int64_t> dims) {
  ValueInfo info;
  info.name = name;
  info.elementType = kFloat;
  info.hasShape = true;
  info.dims = std::move(dims);
  return info;
}

Node node(const std::string &op, std::vector<std::string> inputs,
          std::vector<std::string> outputs) {
  Node n;
  n.opType = op;
  n.name = op;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  return n;
}

TensorData ints(const std::string &name, std::vector<int64_t> values) {
  TensorData t;
  t.name = name;
  t.dataType = kInt64;
  t.dims = {int64_t(values.size())};
  t.ints = std::move(values);
  return t;
}

TensorData floats(const std::string &name, std::vector<int64_t> dims) {
  TensorData t;
  t.name = name;
  t.dims = dims;
  t.setFloats(std::vector<float>(t.numElements(), 0.5f));
  return t;
}

/// A graph from input "x" to output "y": `nodes`, with the shapes of
/// `values` (x's and y's among them).
Model model(std::vector<Node> nodes, std::vector<ValueInfo> values,
            std::vector<TensorData> constants = {}) {
  Model m;
  m.opsetVersion = 17;
  for (ValueInfo &info : values) {
    if (info.name == "x")
      m.graph.inputs.push_back(info);
    if (info.name == "y")
      m.graph.outputs.push_back(info);
    m.graph.valueInfo[info.name] = info;
  }
  m.graph.nodes = std::move(nodes);
  m.graph.initializers = std::move(constants);
  return m;
}

/// checkSamplesApart's message, or "apart".
std::string verdict(const Model &batch, const Model &one) {
  llvm::Error e = checkSamplesApart(batch, one);
  return e ? llvm::toString(std::move(e)) : "apart";
}

TEST(SampleBatchTest, ElementwiseLayersKeepSamplesApart) {
  Model batch = model({node("Relu", {"x"}, {"h"}), node("Add", {"h", "b"}, {"y"})},
                      {value("x", {4, 3}), value("h", {4, 3}), value("y", {4, 3})},
                      {floats("b", {3})});
  Model one = model({node("Relu", {"x"}, {"h"}), node("Add", {"h", "b"}, {"y"})},
                    {value("x", {1, 3}), value("h", {1, 3}), value("y", {1, 3})},
                    {floats("b", {3})});
  EXPECT_EQ(verdict(batch, one), "apart");
}

TEST(SampleBatchTest, OneSampleIsNoBatch) {
  Model one = model({node("Relu", {"x"}, {"y"})}, {value("x", {1, 3}), value("y", {1, 3})});
  EXPECT_EQ(verdict(one, one), "the model has no batch of several samples");
}

TEST(SampleBatchTest, ATransposeOfTheBatchAxisMixesSamples) {
  Model batch = model({node("Transpose", {"x"}, {"y"})}, {value("x", {4, 4}), value("y", {4, 4})});
  Model one = model({node("Transpose", {"x"}, {"y"})}, {value("x", {1, 4}), value("y", {4, 1})});
  EXPECT_EQ(verdict(batch, one), "Transpose 'Transpose' does not keep the samples apart: its "
                                 "output 'y' is [4x4] with the batch of 4, [4x1] with one sample");
}

// A time-major LSTM whose steps are as many as its batch: every shape is as
// if its first axis were a batch, but it is the sequence.
TEST(SampleBatchTest, ATimeMajorRecurrenceWithAsManyStepsAsSamples) {
  Model batch = model({node("LSTM", {"x", "w", "r"}, {"y"})},
                      {value("x", {2, 2, 3}), value("y", {2, 1, 2, 5})},
                      {floats("w", {1, 20, 3}), floats("r", {1, 20, 5})});
  Model one = model({node("LSTM", {"x", "w", "r"}, {"y"})},
                    {value("x", {1, 2, 3}), value("y", {1, 1, 2, 5})},
                    {floats("w", {1, 20, 3}), floats("r", {1, 20, 5})});
  // samplesPerInference takes the batch from the second axis here, 2 all
  // the same.
  EXPECT_EQ(verdict(batch, one), "LSTM 'LSTM' is time-major: its first axis is the sequence");
}

TEST(SampleBatchTest, ASliceThatReversesTheBatch) {
  std::vector<TensorData> constants = {ints("starts", {-1}), ints("ends", {-100}),
                                       ints("axes", {0}), ints("steps", {-1})};
  Node slice = node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
  Model batch = model({slice}, {value("x", {3, 2}), value("y", {3, 2})}, constants);
  Model one = model({slice}, {value("x", {1, 2}), value("y", {1, 2})}, constants);
  EXPECT_EQ(verdict(batch, one), "Slice 'Slice' reverses the batch");
}

// Shape inference gives Gemm the rows of A, whatever C's shape.
TEST(SampleBatchTest, AGemmBiasForEachSample) {
  Node gemm = node("Gemm", {"x", "w", "c"}, {"y"});
  std::vector<TensorData> constants = {floats("w", {3, 5}), floats("c", {4, 5})};
  Model batch = model({gemm}, {value("x", {4, 3}), value("y", {4, 5})}, constants);
  Model one = model({gemm}, {value("x", {1, 3}), value("y", {1, 5})}, constants);
  EXPECT_EQ(verdict(batch, one),
            "Gemm 'Gemm' reads 'c', a constant that holds a value for each sample");
}

// The batch size folded into a shape is the one sample's shape; folded into
// a value the graph computes with, it would change the numbers.
TEST(SampleBatchTest, TheBatchSizeAsAShapeButNotAsAValue) {
  Node reshape = node("Reshape", {"x", "shape"}, {"y"});
  Model batch = model({reshape}, {value("x", {4, 2, 3}), value("y", {4, 6})},
                      {ints("shape", {4, 6})});
  Model one = model({reshape}, {value("x", {1, 2, 3}), value("y", {1, 6})},
                    {ints("shape", {1, 6})});
  EXPECT_EQ(verdict(batch, one), "apart");

  Node scale = node("Mul", {"x", "count"}, {"y"});
  TensorData four = floats("count", {1}), single = floats("count", {1});
  four.setFloats({4.0f});
  single.setFloats({1.0f});
  Model counted = model({scale}, {value("x", {4, 3}), value("y", {4, 3})}, {four});
  Model counted1 = model({scale}, {value("x", {1, 3}), value("y", {1, 3})}, {single});
  EXPECT_EQ(verdict(counted, counted1),
            "Mul 'Mul' reads 'count', a constant computed from the batch size");
}

TEST(SampleBatchTest, AnInputWithoutTheBatchFirst) {
  Model batch = model({node("Relu", {"x"}, {"y"})}, {value("x", {3, 4}), value("y", {3, 4})});
  Model one = model({node("Relu", {"x"}, {"y"})}, {value("x", {1, 4}), value("y", {1, 4})});
  batch.graph.inputs.push_back(value("z", {5}));
  batch.graph.valueInfo["z"] = value("z", {5});
  one.graph.inputs.push_back(value("z", {1}));
  one.graph.valueInfo["z"] = value("z", {1});
  EXPECT_EQ(verdict(batch, one), "graph input 'z' does not have the batch as its first axis "
                                 "([5] with the batch of 3, [1] with one sample)");
}

} // namespace
