//===- SampleBatch.cpp - Whether a batch's samples are computed apart -----===//
//
// A batch can run as its one-sample program repeated (each core going on to
// the next sample as soon as it is done with the last) only when the model
// computes every sample on its own. Shape inference decides most of it: the
// model loaded with a batch of one must give every value that the inputs
// flow into the shape it has in the batch, with 1 for the batch. A node that
// mixed samples would have to keep the first axis and its size in both, and
// of the operators pimc imports only a recurrence over a time-major sequence
// and a reversing Slice do; a constant computed from the batch size counts
// only where it is a shape, and a constant broadcast against the batch (a
// Gemm's C, an element-wise operand) may not hold a value per sample.
//
//===----------------------------------------------------------------------===//

#include "pimc/Frontend/OnnxModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace pimc;
using namespace pimc::frontend;

static llvm::Error apart(const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
}

static std::string shapeText(llvm::ArrayRef<int64_t> dims) {
  std::string text = "[";
  for (auto [i, d] : llvm::enumerate(dims))
    text += (i ? "x" : "") + (d < 0 ? std::string("?") : std::to_string(d));
  return text + "]";
}

static bool sameValues(const TensorData &a, const TensorData &b) {
  return a.dataType == b.dataType && a.dims == b.dims && a.ints == b.ints &&
         std::equal(a.floats.begin(), a.floats.end(), b.floats.begin(), b.floats.end());
}

/// Whether operand `index` of `op` is only a shape (or a range of indices),
/// which may hold the batch size.
static bool isShapeOperand(llvm::StringRef op, unsigned index) {
  return ((op == "Reshape" || op == "Expand") && index == 1) ||
         (op == "Resize" && index == 3) || (op == "Slice" && (index == 1 || index == 2));
}

/// Whether operand `index` of `op` broadcasts against its output, trailing
/// dimensions aligned. Shape inference leaves Gemm's C and PRelu's slope
/// out of the output's shape: a constant one with the output's rank that is
/// not 1 along the batch is a value for each sample.
static bool broadcastsToOutput(llvm::StringRef op, unsigned index) {
  return llvm::is_contained({"Add", "Sub", "Mul", "Div", "Max", "Min", "Sum", "Mean", "PRelu"},
                            op) ||
         (op == "Gemm" && index == 2);
}

/// Whether a shape is `batch`'s with its first dimension `samples`.
static bool hasBatch(const ValueInfo &info, int64_t samples) {
  return info.hasShape && !info.dims.empty() && info.dims.front() == samples;
}

llvm::Error pimc::frontend::checkSamplesApart(const Model &batch, const Model &oneSample) {
  const Graph &many = batch.graph, &one = oneSample.graph;
  int64_t samples = samplesPerInference(batch);
  if (samples < 2)
    return apart("the model has no batch of several samples");
  auto lookup = [](const Graph &graph, const std::string &name) -> const ValueInfo * {
    auto it = graph.valueInfo.find(name);
    return it == graph.valueInfo.end() ? nullptr : &it->second;
  };
  // `name` has the batch first, and one sample in `oneSample`.
  auto keepsSamples = [&](const std::string &name) {
    const ValueInfo *a = lookup(many, name), *b = lookup(one, name);
    if (!a || !b || !hasBatch(*a, samples) || !hasBatch(*b, 1) || a->dims.size() != b->dims.size())
      return false;
    return std::equal(a->dims.begin() + 1, a->dims.end(), b->dims.begin() + 1);
  };
  auto shapes = [&](const std::string &name) {
    const ValueInfo *a = lookup(many, name), *b = lookup(one, name);
    return llvm::formatv("{0} with the batch of {1}, {2} with one sample",
                         a ? shapeText(a->dims) : "unknown", samples,
                         b ? shapeText(b->dims) : "unknown")
        .str();
  };

  if (many.inputs.size() != one.inputs.size())
    return apart("the graph has other inputs with one sample");
  llvm::StringSet<> computed;
  for (const ValueInfo &input : many.inputs) {
    if (!keepsSamples(input.name))
      return apart(llvm::formatv("graph input '{0}' does not have the batch as its first "
                                 "axis ({1})",
                                 input.name, shapes(input.name)));
    computed.insert(input.name);
  }

  // Constants computed from the shapes differ with the batch size.
  std::map<std::string, const TensorData *> constants;
  for (const TensorData &tensor : many.initializers)
    constants[tensor.name] = &tensor;
  if (one.initializers.size() != many.initializers.size())
    return apart("the graph folds to other constants with one sample");
  llvm::StringSet<> batchSized;
  for (const TensorData &tensor : one.initializers) {
    auto it = constants.find(tensor.name);
    if (it == constants.end())
      return apart("the graph folds to other constants with one sample");
    if (!sameValues(tensor, *it->second))
      batchSized.insert(tensor.name);
  }

  if (one.nodes.size() != many.nodes.size())
    return apart("the graph folds to other nodes with one sample");
  for (auto [node, other] : llvm::zip_equal(many.nodes, one.nodes)) {
    if (node.opType != other.opType || node.inputs != other.inputs ||
        node.outputs != other.outputs)
      return apart("the graph folds to other nodes with one sample");
    bool fed = llvm::any_of(node.inputs, [&](const std::string &in) {
      return computed.contains(in);
    });
    const ValueInfo *out = node.outputs.empty() ? nullptr : lookup(many, node.outputs[0]);
    for (auto [index, input] : llvm::enumerate(node.inputs)) {
      if (batchSized.contains(input) && !isShapeOperand(node.opType, index))
        return apart(llvm::formatv("{0} reads '{1}', a constant computed from the batch size",
                                   node.describe(), input));
      const ValueInfo *in = lookup(many, input);
      auto constant = constants.find(input);
      std::vector<int64_t> dims = constant != constants.end() ? constant->second->dims
                                  : in                        ? in->dims
                                                              : std::vector<int64_t>{};
      if (fed && out && !computed.contains(input) && broadcastsToOutput(node.opType, index) &&
          !dims.empty() && dims.size() == out->dims.size() && dims.front() != 1)
        return apart(llvm::formatv("{0} reads '{1}', a constant that holds a value for each "
                                   "sample",
                                   node.describe(), input));
    }
    if (!fed) {
      // A constant the graph computes: the same for every sample.
      for (const std::string &output : node.outputs) {
        const ValueInfo *a = lookup(many, output), *b = lookup(one, output);
        if (!output.empty() && (!a || !b || a->dims != b->dims))
          return apart(llvm::formatv("{0} makes a constant of the batch's size ({1})",
                                     node.describe(), shapes(output)));
      }
      continue;
    }
    // The two operators that can mix samples and keep the batch's shape.
    if (node.opType == "RNN" || node.opType == "GRU" || node.opType == "LSTM") {
      const Attribute *layout = node.attribute("layout");
      if (!layout || layout->i != 1)
        return apart(llvm::formatv("{0} is time-major: its first axis is the sequence",
                                   node.describe()));
    }
    if (node.opType == "Slice" && node.inputs.size() > 4 && !node.inputs[4].empty()) {
      auto steps = constants.find(node.inputs[4]);
      const TensorData *axes = nullptr;
      if (node.inputs.size() > 3 && !node.inputs[3].empty())
        if (auto it = constants.find(node.inputs[3]); it != constants.end())
          axes = it->second;
      const ValueInfo *data = lookup(many, node.inputs[0]);
      if (steps == constants.end() || !data)
        return apart(llvm::formatv("{0} has steps that are not constants", node.describe()));
      int64_t rank = data->dims.size();
      for (auto [i, step] : llvm::enumerate(steps->second->ints)) {
        int64_t axis = axes && i < axes->ints.size() ? axes->ints[i] : int64_t(i);
        if ((axis == 0 || axis == -rank) && step < 0)
          return apart(llvm::formatv("{0} reverses the batch", node.describe()));
      }
    }
    for (const std::string &output : node.outputs) {
      if (output.empty())
        continue;
      if (!keepsSamples(output))
        return apart(llvm::formatv("{0} does not keep the samples apart: its output '{1}' "
                                   "is {2}",
                                   node.describe(), output, shapes(output)));
      computed.insert(output);
    }
  }
  for (const ValueInfo &output : many.outputs)
    if (!computed.contains(output.name))
      return apart(llvm::formatv("graph output '{0}' is not computed from the inputs",
                                 output.name));
  return llvm::Error::success();
}
