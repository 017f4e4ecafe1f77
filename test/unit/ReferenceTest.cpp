//===- ReferenceTest.cpp - reference kernels and interpreter --------------===//

#include "pimc/Reference/Reference.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <cmath>
#include <map>
#include <numeric>
#include <optional>

using namespace pimc;
using namespace pimc::ref;
using llvm::formatv;

namespace {
/// The value of `expected`, failing the test on an error.
template <typename T> T take(llvm::Expected<T> expected) {
  if (!expected) {
    ADD_FAILURE() << llvm::toString(expected.takeError());
    return T();
  }
  return std::move(*expected);
}

/// The message of `error`, failing the test when there is none.
std::string errorMessage(llvm::Error error) {
  EXPECT_TRUE(bool(error)) << "expected an error";
  return error ? llvm::toString(std::move(error)) : "";
}

template <typename T> std::string errorMessage(llvm::Expected<T> expected) {
  return errorMessage(expected.takeError());
}

Tensor iota(std::vector<int64_t> shape) {
  Tensor t = Tensor::filled(std::move(shape), 0);
  std::iota(t.data.begin(), t.data.end(), 0.0f);
  return t;
}

TEST(ReferenceKernels, GemmWithTransBAndRowBias) {
  Tensor a({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b({2, 3}, {1, 2, 3, 0, 1, 0}); // op(B) = B^T is 3x2
  Tensor c({2}, {1, 2});
  Tensor y =
      take(gemm(a, b, &c, 2.0f, 0.5f, /*transA=*/false, /*transB=*/true));
  // A*B^T = [[14, 2], [32, 5]]; y = 2*that + 0.5*[[1, 2], [1, 2]].
  EXPECT_EQ(y.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(y.data, (std::vector<float>{28.5f, 5, 64.5f, 11}));
}

TEST(ReferenceKernels, GemmWithTransAAndNoBias) {
  Tensor a({3, 2}, {1, 4, 2, 5, 3, 6}); // A^T = [[1, 2, 3], [4, 5, 6]]
  Tensor b({3, 1}, {1, 1, 1});
  Tensor y = take(gemm(a, b, nullptr, 1, 1, /*transA=*/true, false));
  EXPECT_EQ(y.shape, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(y.data, (std::vector<float>{6, 15}));
}

TEST(ReferenceKernels, GemmRejectsMismatchedShapes) {
  Tensor a = Tensor::filled({2, 3}, 1), b = Tensor::filled({2, 3}, 1);
  EXPECT_NE(errorMessage(gemm(a, b, nullptr, 1, 1, false, false)).find("op(A)"),
            std::string::npos);
  Tensor bt = Tensor::filled({3, 4}, 1), c = Tensor::filled({3}, 1);
  EXPECT_NE(errorMessage(gemm(a, bt, &c, 1, 1, false, false)).find("C:"),
            std::string::npos);
}

TEST(ReferenceKernels, AddBroadcastsAColumnAndARow) {
  Tensor a({3, 1}, {1, 2, 3});
  Tensor b({1, 4}, {10, 20, 30, 40});
  Tensor sum = take(add(a, b));
  ASSERT_EQ(sum.shape, (std::vector<int64_t>{3, 4}));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      EXPECT_EQ(sum.data[i * 4 + j], a.data[i] + b.data[j]) << i << "," << j;
  EXPECT_NE(errorMessage(add(Tensor::filled({2, 3}, 0), Tensor::filled({2}, 0)))
                .find("do not broadcast"),
            std::string::npos);
}

TEST(ReferenceKernels, MatMulOfVectorsAndBroadcastBatches) {
  Tensor v({3}, {1, 2, 3});
  Tensor m({3, 2}, {1, 0, 0, 1, 1, 1});
  Tensor vm = take(matmul(v, m));
  EXPECT_EQ(vm.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(vm.data, (std::vector<float>{4, 5}));
  Tensor mv = take(matmul(Tensor({2, 3}, {1, 2, 3, 4, 5, 6}), v));
  EXPECT_EQ(mv.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(mv.data, (std::vector<float>{14, 32}));
  // Two 1x2 matrices times one shared 2x1 matrix.
  Tensor batched =
      take(matmul(Tensor({2, 1, 2}, {1, 2, 3, 4}), Tensor({2, 1}, {1, 10})));
  EXPECT_EQ(batched.shape, (std::vector<int64_t>{2, 1, 1}));
  EXPECT_EQ(batched.data, (std::vector<float>{21, 43}));
  EXPECT_FALSE(errorMessage(matmul(m, m)).empty());
}

TEST(ReferenceKernels, TransposeMovesEveryElement) {
  Tensor x = iota({2, 3, 4}); // x[a][b][c] = 12a + 4b + c
  Tensor y = transpose(x, {2, 0, 1});
  ASSERT_EQ(y.shape, (std::vector<int64_t>{4, 2, 3}));
  // y[i][j][k] = x[j][k][i].
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k)
        EXPECT_EQ(y.data[(i * 2 + j) * 3 + k], 12 * j + 4 * k + i);
}

TEST(ReferenceKernels, ReshapeTargetCopiesZerosAndInfersMinusOne) {
  std::vector<int64_t> input = {2, 3, 4};
  EXPECT_EQ(take(reshapeTarget(input, {0, -1}, false)),
            (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(take(reshapeTarget(input, {-1, 0, 2}, false)),
            (std::vector<int64_t>{4, 3, 2}));
  EXPECT_EQ(take(reshapeTarget({0, 3}, {3, 0}, /*allowZero=*/true)),
            (std::vector<int64_t>{3, 0}));
  EXPECT_FALSE(errorMessage(reshapeTarget(input, {-1, -1}, false)).empty());
  EXPECT_FALSE(errorMessage(reshapeTarget(input, {5, -1}, false)).empty());
  EXPECT_FALSE(errorMessage(reshapeTarget(input, {2, 3}, false)).empty());
  EXPECT_FALSE(errorMessage(reshapeTarget(input, {0, 0, 0, 0}, false)).empty());
}

TEST(ReferenceKernels, FlattenAtPositiveAndNegativeAxes) {
  Tensor x = iota({2, 3, 4});
  EXPECT_EQ(take(flatten(x, 0)).shape, (std::vector<int64_t>{1, 24}));
  EXPECT_EQ(take(flatten(x, 2)).shape, (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(take(flatten(x, 3)).shape, (std::vector<int64_t>{24, 1}));
  EXPECT_EQ(take(flatten(x, -1)).shape, (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(take(flatten(x, -3)).shape, (std::vector<int64_t>{1, 24}));
  EXPECT_EQ(take(flatten(x, -2)).data, x.data);
  EXPECT_FALSE(errorMessage(flatten(x, 4)).empty());
  EXPECT_FALSE(errorMessage(flatten(x, -4)).empty());
}

TEST(ReferenceKernels, Activations) {
  Tensor x({4}, {-2, 0, 0.5f, NAN});
  Tensor r = relu(x);
  EXPECT_EQ(r.data[0], 0);
  EXPECT_EQ(r.data[2], 0.5f);
  EXPECT_TRUE(std::isnan(r.data[3]));
  EXPECT_FLOAT_EQ(sigmoid(x).data[1], 0.5f);
  EXPECT_FLOAT_EQ(sigmoid(x).data[0], 1 / (1 + std::exp(2.0f)));
  EXPECT_FLOAT_EQ(tanh(x).data[2], std::tanh(0.5f));
  EXPECT_EQ(scale(x, -2).data[2], -1);
}

TEST(ReferenceCompare, ToleranceNaNAndShape) {
  Tensor e({3}, {1, 100, NAN});
  EXPECT_TRUE(compare(Tensor({3}, {1, 100.005f, NAN}), e, 1e-4, 1e-5).match);
  Comparison off = compare(Tensor({3}, {1.001f, 100.005f, NAN}), e, 1e-4, 1e-5);
  EXPECT_FALSE(off.match);
  // The worst element is the one furthest out of tolerance, not the one
  // with the largest absolute error.
  EXPECT_EQ(off.worstIndex, 0);
  EXPECT_NEAR(off.maxAbsError, 0.005, 1e-5);
  EXPECT_NE(off.message.find("1 of 3"), std::string::npos) << off.message;
  Comparison nan = compare(Tensor({3}, {1, 100, 0}), e, 1e-4, 1e-5);
  EXPECT_FALSE(nan.match);
  EXPECT_EQ(nan.worstIndex, 2);
  Comparison shape = compare(Tensor({1, 3}, {1, 100, NAN}), e, 1e-4, 1e-5);
  EXPECT_FALSE(shape.match);
  EXPECT_NE(shape.message.find("[1, 3]"), std::string::npos) << shape.message;
}

frontend::Node makeNode(std::string opType, std::vector<std::string> inputs,
                        std::vector<std::string> outputs,
                        std::vector<frontend::Attribute> attributes = {}) {
  frontend::Node node;
  node.opType = std::move(opType);
  node.inputs = std::move(inputs);
  node.outputs = std::move(outputs);
  node.attributes = std::move(attributes);
  return node;
}

frontend::Attribute intsAttr(std::string name, std::vector<int64_t> values) {
  frontend::Attribute attr;
  attr.name = std::move(name);
  attr.kind = frontend::Attribute::Ints;
  attr.ints = std::move(values);
  return attr;
}

/// x[2, 3] -> Reshape to a Constant [3, -1] (via Identity) -> Transpose ->
/// Relu -> y.
frontend::Model makeModel() {
  frontend::Model model;
  frontend::Graph &graph = model.graph;
  frontend::ValueInfo x;
  x.name = "x";
  x.elementType = frontend::kFloat;
  x.hasShape = true;
  x.dims = {2, 3};
  graph.inputs = {x};
  frontend::ValueInfo y;
  y.name = "y";
  graph.outputs = {y};
  graph.nodes = {
      makeNode("Constant", {}, {"c"}, {intsAttr("value_ints", {3, -1})}),
      makeNode("Identity", {"c"}, {"shape"}),
      makeNode("Reshape", {"x", "shape"}, {"r"}),
      makeNode("Transpose", {"r"}, {"t"}), makeNode("Relu", {"t"}, {"y"})};
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    graph.nodes[i].index = i;
  return model;
}

TEST(ReferenceInterpreter, RunsAGraphWithAnIntegerConstant) {
  frontend::Model model = makeModel();
  std::vector<Tensor> outputs =
      take(run(model, {Tensor({2, 3}, {1, -2, 3, -4, 5, -6})}));
  ASSERT_EQ(outputs.size(), 1u);
  // Reshaped to [[1, -2], [3, -4], [5, -6]], transposed, relu'd.
  EXPECT_EQ(outputs[0].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(outputs[0].data, (std::vector<float>{1, 3, 5, 0, 0, 0}));
}

TEST(ReferenceInterpreter, ErrorsNameTheNodeAndTheProblem) {
  auto runWith = [](auto edit) {
    frontend::Model model = makeModel();
    edit(model);
    return errorMessage(run(model, {Tensor::filled({2, 3}, 1)}));
  };
  std::string unsupported =
      runWith([](frontend::Model &m) { m.graph.nodes[4].opType = "Conv"; });
  EXPECT_NE(unsupported.find("Conv #4"), std::string::npos) << unsupported;
  EXPECT_NE(unsupported.find("unsupported operator"), std::string::npos);
  std::string arity = runWith(
      [](frontend::Model &m) { m.graph.nodes[4].inputs.push_back("t"); });
  EXPECT_NE(arity.find("inputs, got 2"), std::string::npos) << arity;
  std::string intInput = runWith([](frontend::Model &m) {
    m.graph.nodes[4].inputs = {"shape"};
    m.graph.nodes[4].name = "act";
  });
  EXPECT_NE(intInput.find("Relu 'act': input 0 ('shape') is int64, but float"),
            std::string::npos)
      << intInput;
  std::string floatShape =
      runWith([](frontend::Model &m) { m.graph.nodes[2].inputs[1] = "x"; });
  EXPECT_NE(floatShape.find("is float, but int64"), std::string::npos)
      << floatShape;
  std::string badPerm = runWith([](frontend::Model &m) {
    m.graph.nodes[3].attributes = {intsAttr("perm", {0, 0})};
  });
  EXPECT_NE(badPerm.find("not a permutation"), std::string::npos) << badPerm;
  std::string training = runWith([](frontend::Model &m) {
    m.graph.nodes[4] = makeNode("Dropout", {"t", "", "x"}, {"y"});
  });
  EXPECT_NE(training.find("training_mode input is unsupported"),
            std::string::npos)
      << training;
  std::string uint8 = runWith([](frontend::Model &m) {
    m.graph.inputs[0].elementType = frontend::kUint8;
  });
  EXPECT_NE(uint8.find("uint8"), std::string::npos) << uint8;

  frontend::Model model = makeModel();
  std::string wrongShape =
      errorMessage(run(model, {Tensor::filled({3, 2}, 1)}));
  EXPECT_NE(wrongShape.find("declares [2, 3]"), std::string::npos)
      << wrongShape;
}

TEST(ReferenceInterpreter, RunsEveryConstantForm) {
  auto attribute = [](std::string name, frontend::Attribute::Kind kind) {
    frontend::Attribute attr;
    attr.name = std::move(name);
    attr.kind = kind;
    return attr;
  };
  frontend::Attribute scalar =
      attribute("value_float", frontend::Attribute::Float);
  scalar.f = 2.5f;
  frontend::Attribute row =
      attribute("value_floats", frontend::Attribute::Floats);
  row.floats = {1, 2};
  frontend::Attribute column = attribute("value", frontend::Attribute::Tensor);
  column.tensor = std::make_shared<frontend::TensorData>(
      Tensor({2, 1}, {3, 4}).toData("column"));
  frontend::Attribute integer =
      attribute("value_int", frontend::Attribute::Int);
  integer.i = 7;
  frontend::Model model;
  frontend::ValueInfo y, n;
  y.name = "y";
  n.name = "n";
  model.graph.outputs = {y};
  model.graph.nodes = {makeNode("Constant", {}, {"a"}, {scalar}),
                       makeNode("Constant", {}, {"b"}, {row}),
                       makeNode("Constant", {}, {"c"}, {column}),
                       makeNode("Add", {"a", "b"}, {"ab"}),
                       makeNode("Add", {"ab", "c"}, {"y"}),
                       makeNode("Constant", {}, {"n"}, {integer})};
  std::vector<Tensor> outputs = take(run(model, {}));
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(outputs[0].data, (std::vector<float>{6.5f, 7.5f, 7.5f, 8.5f}));
  // Integer values are held, but run() returns float tensors only.
  model.graph.outputs.push_back(n);
  std::string message = errorMessage(run(model, {}));
  EXPECT_NE(message.find("graph output 'n' is int64"), std::string::npos)
      << message;
}

//===----------------------------------------------------------------------===//
// ONNX backend node tests
//===----------------------------------------------------------------------===//

/// Node tests of operators the reference interpreter covers.
bool isCovered(llvm::StringRef name) {
  static const char *const kPrefixes[] = {
      "test_gemm",     "test_matmul",    "test_add",     "test_relu",
      "test_sigmoid",  "test_tanh",      "test_flatten", "test_reshape",
      "test_identity", "test_transpose", "test_dropout"};
  return !name.starts_with("test_matmulinteger") &&
         llvm::any_of(kPrefixes,
                      [&](const char *p) { return name.starts_with(p); });
}

/// Covered node tests the reference rejects, and what the error must say.
const std::map<std::string, std::string> kExpectedErrors = {
    {"test_add_uint8", "has type uint8"},
    {"test_dropout_default_mask", "mask output is unsupported"},
    {"test_dropout_default_mask_ratio", "mask output is unsupported"},
    {"test_identity_opt", "is not a tensor"},
    {"test_identity_sequence", "is not a tensor"}};

std::vector<std::string>
listDirectory(llvm::StringRef dir,
              llvm::function_ref<bool(llvm::StringRef)> keep) {
  std::vector<std::string> names;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (keep(name))
      names.push_back(name.str());
  }
  llvm::sort(names);
  return names;
}

std::vector<std::string> coveredNodeTests() {
  return listDirectory(PIMC_ONNX_NODE_TESTS, isCovered);
}

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<Tensor> readFloatTensor(const std::string &path) {
  llvm::Expected<frontend::TensorData> data = frontend::readTensorFile(path);
  if (!data)
    return data.takeError();
  if (data->dataType != frontend::kFloat)
    return fail(formatv("'{0}' holds {1} values, not float", path,
                        frontend::dataTypeName(data->dataType)));
  return Tensor::fromData(*data);
}

/// Runs the model of node test `dir` on one data set, as pimc would: graph
/// inputs that feed operands pimc needs as constants are bound to their test
/// data when loading.
llvm::Error runDataSet(const std::string &dir, const std::string &dataSet) {
  auto path = [&](const char *kind, unsigned k) {
    return formatv("{0}/{1}/{2}_{3}.pb", dir, dataSet, kind, k).str();
  };
  std::vector<unsigned> bound;
  auto binder = [&](const frontend::ValueInfo &, unsigned k,
                    const frontend::Node &)
      -> llvm::Expected<std::optional<frontend::TensorData>> {
    llvm::Expected<frontend::TensorData> data =
        frontend::readTensorFile(path("input", k));
    if (!data)
      return data.takeError();
    bound.push_back(k);
    return std::optional<frontend::TensorData>(std::move(*data));
  };
  llvm::Expected<frontend::Model> model =
      frontend::loadModel(dir + "/model.onnx", binder);
  if (!model)
    return model.takeError();

  std::vector<Tensor> inputs;
  unsigned k = 0;
  for (const frontend::ValueInfo &info : model->graph.inputs) {
    while (llvm::is_contained(bound, k))
      ++k;
    std::string file = path("input", k++);
    // Test data of other types is not a float TensorProto (sequences and
    // optionals are other protos); a placeholder lets run() reject the model
    // with its own message.
    if (!info.isTensor || info.elementType != frontend::kFloat) {
      inputs.emplace_back();
      continue;
    }
    llvm::Expected<Tensor> input = readFloatTensor(file);
    if (!input)
      return input.takeError();
    inputs.push_back(std::move(*input));
  }
  llvm::Expected<std::vector<Tensor>> outputs = run(*model, inputs);
  if (!outputs)
    return outputs.takeError();
  for (unsigned i = 0; i < outputs->size(); ++i) {
    llvm::Expected<Tensor> expected = readFloatTensor(path("output", i));
    if (!expected)
      return expected.takeError();
    Comparison comparison = compare((*outputs)[i], *expected, 1e-4, 1e-5);
    if (!comparison.match)
      return fail(formatv("{0}: output {1} ('{2}'): {3}", dataSet, i,
                          model->graph.outputs[i].name, comparison.message));
  }
  if (llvm::sys::fs::exists(path("output", outputs->size())))
    return fail(formatv("{0} has more outputs than the graph", dataSet));
  return llvm::Error::success();
}

class OnnxNodeTest : public testing::TestWithParam<std::string> {};

TEST_P(OnnxNodeTest, MatchesTheExpectedOutputs) {
  std::string dir = std::string(PIMC_ONNX_NODE_TESTS) + "/" + GetParam();
  std::vector<std::string> dataSets =
      listDirectory(dir, [](llvm::StringRef name) {
        return name.starts_with("test_data_set_");
      });
  ASSERT_FALSE(dataSets.empty()) << dir << " has no test data set";
  auto expected = kExpectedErrors.find(GetParam());
  for (const std::string &dataSet : dataSets) {
    llvm::Error error = runDataSet(dir, dataSet);
    if (expected == kExpectedErrors.end()) {
      if (error)
        ADD_FAILURE() << llvm::toString(std::move(error));
      continue;
    }
    std::string message = errorMessage(std::move(error));
    EXPECT_NE(message.find(expected->second), std::string::npos)
        << "expected an error saying '" << expected->second
        << "', got: " << message;
  }
}

INSTANTIATE_TEST_SUITE_P(Reference, OnnxNodeTest,
                         testing::ValuesIn(coveredNodeTests()),
                         [](const testing::TestParamInfo<std::string> &info) {
                           return info.param;
                         });

// A missing test data package leaves the suite empty; say so plainly.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OnnxNodeTest);
TEST(ReferenceNodeTests, AreInstalled) {
  EXPECT_FALSE(coveredNodeTests().empty())
      << "no ONNX node tests under " PIMC_ONNX_NODE_TESTS;
}
} // namespace
