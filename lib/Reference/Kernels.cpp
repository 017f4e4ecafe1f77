//===- Kernels.cpp - reference f32 kernels --------------------------------===//
//
// Plain loops written to be obviously correct rather than fast: broadcasts
// materialize their result, and products accumulate in double. Transposes are
// the exception: the compiler applies them to whole weight matrices, so they
// move blocks.
//
//===----------------------------------------------------------------------===//

#include "pimc/Reference/Reference.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>
#include <optional>

using namespace pimc;
using namespace pimc::ref;
using llvm::formatv;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static int64_t product(llvm::ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// "[2, 3]", for messages.
static std::string str(llvm::ArrayRef<int64_t> shape) {
  return formatv("[{0:$[, ]}]", llvm::make_range(shape.begin(), shape.end()));
}

static std::vector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

/// The index of element `flat` of a row-major tensor of `shape`.
static std::vector<int64_t> unravel(int64_t flat,
                                    llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

/// The tensor of `shape` whose element at index (i_0, ..., i_n) is
/// x.data[sum_d i_d * strides[d]]: a broadcast (stride 0) or a transpose
/// (permuted strides) of `x`.
static Tensor gather(const Tensor &x, std::vector<int64_t> shape,
                     llvm::ArrayRef<int64_t> strides) {
  std::vector<float> out(product(shape));
  std::vector<int64_t> index(shape.size(), 0);
  int64_t offset = 0;
  for (float &value : out) {
    value = x.data[offset];
    // Step the index like an odometer, keeping `offset` in step.
    for (size_t d = shape.size(); d-- > 0;) {
      offset += strides[d];
      if (++index[d] < shape[d])
        break;
      offset -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
  return Tensor(std::move(shape), std::move(out));
}

template <typename Fn> static Tensor elementwise(const Tensor &x, Fn fn) {
  std::vector<float> out(x.data.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = fn(x.data[i]);
  return Tensor(x.shape, std::move(out));
}

Tensor::Tensor(std::vector<int64_t> shape, std::vector<float> data)
    : shape(std::move(shape)), data(std::move(data)) {
  assert(product(this->shape) == (int64_t)this->data.size() &&
         "tensor data does not match its shape");
}

Tensor Tensor::filled(std::vector<int64_t> shape, float value) {
  int64_t n = product(shape);
  return Tensor(std::move(shape), std::vector<float>(n, value));
}

Tensor Tensor::fromData(const frontend::TensorData &tensor) {
  assert(tensor.dataType == frontend::kFloat && "not an f32 tensor");
  return Tensor(tensor.dims, tensor.floats.vec());
}

frontend::TensorData Tensor::toData(const std::string &name) const {
  frontend::TensorData tensor;
  tensor.name = name;
  tensor.dataType = frontend::kFloat;
  tensor.dims = shape;
  tensor.setFloats(data);
  return tensor;
}

int64_t Tensor::numElements() const { return product(shape); }

llvm::Expected<std::vector<int64_t>>
ref::broadcastShape(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Shapes align at their last dimension; missing leading ones are 1.
    size_t padA = rank - a.size(), padB = rank - b.size();
    int64_t da = i < padA ? 1 : a[i - padA];
    int64_t db = i < padB ? 1 : b[i - padB];
    if (da != db && da != 1 && db != 1)
      return fail(
          formatv("shapes {0} and {1} do not broadcast", str(a), str(b)));
    shape[i] = da == 1 ? db : da;
  }
  return shape;
}

llvm::Expected<Tensor> ref::broadcastTo(const Tensor &x,
                                        llvm::ArrayRef<int64_t> shape) {
  auto mismatch = [&] {
    return fail(formatv("shape {0} does not broadcast to {1}", str(x.shape),
                        str(shape)));
  };
  if (x.shape.size() > shape.size())
    return mismatch();
  size_t pad = shape.size() - x.shape.size();
  std::vector<int64_t> xStrides = stridesOf(x.shape);
  std::vector<int64_t> strides(shape.size(), 0);
  for (size_t i = 0; i < x.shape.size(); ++i) {
    if (x.shape[i] == 1)
      continue;
    if (x.shape[i] != shape[pad + i])
      return mismatch();
    strides[pad + i] = xStrides[i];
  }
  return gather(x, shape.vec(), strides);
}

llvm::Expected<Tensor> ref::gemm(const Tensor &a, const Tensor &b,
                                 const Tensor *c, float alpha, float beta,
                                 bool transA, bool transB) {
  if (a.shape.size() != 2 || b.shape.size() != 2)
    return fail(formatv("A and B must be matrices, got shapes {0} and {1}",
                        str(a.shape), str(b.shape)));
  int64_t m = a.shape[transA ? 1 : 0], k = a.shape[transA ? 0 : 1];
  int64_t kb = b.shape[transB ? 1 : 0], n = b.shape[transB ? 0 : 1];
  if (k != kb)
    return fail(formatv("op(A) is {0}x{1} but op(B) is {2}x{3}", m, k, kb, n));
  Tensor bias;
  if (c) {
    llvm::Expected<Tensor> broadcast = broadcastTo(*c, {m, n});
    if (!broadcast)
      return fail("C: " + llvm::toString(broadcast.takeError()));
    bias = std::move(*broadcast);
  }
  std::vector<float> y(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        float av = transA ? a.data[p * m + i] : a.data[i * k + p];
        float bv = transB ? b.data[j * k + p] : b.data[p * n + j];
        sum += (double)av * bv;
      }
      double value = alpha * sum;
      if (c)
        value += (double)beta * bias.data[i * n + j];
      y[i * n + j] = value;
    }
  return Tensor({m, n}, std::move(y));
}

llvm::Expected<Tensor> ref::matmul(const Tensor &a, const Tensor &b) {
  if (a.shape.empty() || b.shape.empty())
    return fail("MatMul operands must not be scalars");
  // numpy promotes a 1-D A to a row and a 1-D B to a column, and drops the
  // added dimension from the result.
  std::vector<int64_t> aShape = a.shape, bShape = b.shape;
  if (a.shape.size() == 1)
    aShape.insert(aShape.begin(), 1);
  if (b.shape.size() == 1)
    bShape.push_back(1);
  int64_t m = aShape.end()[-2], k = aShape.back();
  int64_t kb = bShape.end()[-2], n = bShape.back();
  if (k != kb)
    return fail(formatv("shapes {0} and {1} have different inner dimensions",
                        str(a.shape), str(b.shape)));
  llvm::Expected<std::vector<int64_t>> batch = broadcastShape(
      llvm::ArrayRef(aShape).drop_back(2), llvm::ArrayRef(bShape).drop_back(2));
  if (!batch)
    return batch.takeError();
  std::vector<int64_t> aFull = *batch, bFull = *batch;
  aFull.insert(aFull.end(), {m, k});
  bFull.insert(bFull.end(), {k, n});
  Tensor lhs = llvm::cantFail(broadcastTo(reshape(a, aShape), aFull));
  Tensor rhs = llvm::cantFail(broadcastTo(reshape(b, bShape), bFull));
  int64_t batches = product(*batch);
  std::vector<float> out(batches * m * n);
  for (int64_t t = 0; t < batches; ++t) {
    const float *x = lhs.data.data() + t * m * k;
    const float *y = rhs.data.data() + t * k * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p)
          sum += (double)x[i * k + p] * y[p * n + j];
        out[(t * m + i) * n + j] = sum;
      }
  }
  std::vector<int64_t> shape = *batch;
  if (a.shape.size() > 1)
    shape.push_back(m);
  if (b.shape.size() > 1)
    shape.push_back(n);
  return Tensor(std::move(shape), std::move(out));
}

/// fn(a, b) elementwise, the operands broadcast to their common shape.
template <typename Fn>
static llvm::Expected<Tensor> broadcastBinary(const Tensor &a, const Tensor &b,
                                              Fn fn) {
  llvm::Expected<std::vector<int64_t>> shape = broadcastShape(a.shape, b.shape);
  if (!shape)
    return shape.takeError();
  Tensor result = llvm::cantFail(broadcastTo(a, *shape));
  Tensor y = llvm::cantFail(broadcastTo(b, *shape));
  for (size_t i = 0; i < result.data.size(); ++i)
    result.data[i] = fn(result.data[i], y.data[i]);
  return result;
}

llvm::Expected<Tensor> ref::add(const Tensor &a, const Tensor &b) {
  return broadcastBinary(a, b, [](float x, float y) { return x + y; });
}

llvm::Expected<Tensor> ref::sub(const Tensor &a, const Tensor &b) {
  return broadcastBinary(a, b, [](float x, float y) { return x - y; });
}

llvm::Expected<Tensor> ref::mul(const Tensor &a, const Tensor &b) {
  return broadcastBinary(a, b, [](float x, float y) { return x * y; });
}

llvm::Expected<Tensor> ref::div(const Tensor &a, const Tensor &b) {
  return broadcastBinary(a, b, [](float x, float y) { return x / y; });
}

// Comparisons rather than std::max/min, so that NaN propagates.
llvm::Expected<Tensor> ref::maximum(const Tensor &a, const Tensor &b) {
  return broadcastBinary(a, b, [](float x, float y) { return x < y ? y : x; });
}

llvm::Expected<Tensor> ref::minimum(const Tensor &a, const Tensor &b) {
  return broadcastBinary(a, b, [](float x, float y) { return x > y ? y : x; });
}

llvm::Expected<Tensor> ref::prelu(const Tensor &x, const Tensor &slope) {
  llvm::Expected<Tensor> wide = broadcastTo(slope, x.shape);
  if (!wide)
    return wide.takeError();
  return broadcastBinary(x, *wide, [](float v, float s) { return v < 0 ? s * v : v; });
}

// `x < 0 ? 0 : x` rather than max(x, 0): NaN propagates, as in numpy.
Tensor ref::relu(const Tensor &x) {
  return elementwise(x, [](float v) { return v < 0 ? 0.0f : v; });
}

Tensor ref::leakyRelu(const Tensor &x, float alpha) {
  return elementwise(x, [alpha](float v) { return v < 0 ? alpha * v : v; });
}

Tensor ref::hardSigmoid(const Tensor &x, float alpha, float beta) {
  return clip(elementwise(x, [alpha, beta](float v) { return alpha * v + beta; }), 0, 1);
}

llvm::Expected<Tensor> ref::reduce(const Tensor &x, llvm::ArrayRef<int64_t> axes,
                                   bool keepdims, Reduction kind) {
  int64_t rank = x.shape.size();
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank)
      return fail(formatv("axis {0} is out of range for rank {1}", axis, rank));
    reduced[axis < 0 ? axis + rank : axis] = true;
  }
  // The output index of an element keeps its unreduced coordinates.
  std::vector<int64_t> kept, shape;
  for (int64_t d = 0; d < rank; ++d) {
    kept.push_back(reduced[d] ? 1 : x.shape[d]);
    if (!reduced[d] || keepdims)
      shape.push_back(kept.back());
  }
  std::vector<int64_t> keptStrides = stridesOf(kept);
  bool extremum = kind == Reduction::Max || kind == Reduction::Min;
  std::vector<double> acc(product(kept), kind == Reduction::Max    ? -INFINITY
                                         : kind == Reduction::Min  ? INFINITY
                                         : kind == Reduction::Prod ? 1.0
                                                                   : 0.0);
  for (int64_t flat = 0; flat < x.numElements(); ++flat) {
    std::vector<int64_t> index = unravel(flat, x.shape);
    int64_t out = 0;
    for (int64_t d = 0; d < rank; ++d)
      out += (reduced[d] ? 0 : index[d]) * keptStrides[d];
    double v = x.data[flat];
    if (kind == Reduction::SumSquare)
      v *= v;
    else if (kind == Reduction::L1)
      v = std::fabs(v);
    if (kind == Reduction::Prod)
      acc[out] *= v;
    else if (!extremum)
      acc[out] += v;
    else if (!std::isnan(acc[out]) && // NaN propagates
             (std::isnan(v) || (kind == Reduction::Max ? v > acc[out] : v < acc[out])))
      acc[out] = v;
  }
  int64_t count = acc.empty() ? 0 : x.numElements() / (int64_t)acc.size();
  std::vector<float> out(acc.size());
  for (size_t i = 0; i < acc.size(); ++i)
    out[i] = kind == Reduction::Mean ? acc[i] / count : acc[i];
  return Tensor(std::move(shape), std::move(out));
}

Tensor ref::abs(const Tensor &x) {
  return elementwise(x, [](float v) { return std::fabs(v); });
}

// Comparisons rather than std::min/max, so that NaN propagates.
Tensor ref::clip(const Tensor &x, float lo, float hi) {
  return elementwise(x, [lo, hi](float v) {
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
  });
}

Tensor ref::sigmoid(const Tensor &x) {
  return elementwise(
      x, [](float v) { return float(1 / (1 + std::exp(-(double)v))); });
}

Tensor ref::tanh(const Tensor &x) {
  return elementwise(x, [](float v) { return std::tanh(v); });
}

Tensor ref::scale(const Tensor &x, float factor) {
  return elementwise(x, [factor](float v) { return v * factor; });
}

std::vector<float> ref::transposeValues(llvm::ArrayRef<float> x,
                                        llvm::ArrayRef<int64_t> shape,
                                        llvm::ArrayRef<int64_t> perm) {
  assert(perm.size() == shape.size() && "perm does not match the rank");
  assert(int64_t(x.size()) == product(shape) && "values do not match the shape");
  // Output dimensions that are consecutive input dimensions move together:
  // each group has a size and a stride in the input and in the output.
  std::vector<int64_t> inStrides = stridesOf(shape);
  struct Group {
    int64_t size, in, out;
  };
  std::vector<Group> groups;
  for (size_t i = 0; i < perm.size(); ++i) {
    if (shape[perm[i]] == 1)
      continue;
    if (!groups.empty() && i > 0 && perm[i] == perm[i - 1] + 1 &&
        shape[perm[i - 1]] != 1) {
      groups.back().size *= shape[perm[i]];
      groups.back().in = inStrides[perm[i]];
    } else {
      groups.push_back({shape[perm[i]], inStrides[perm[i]], 0});
    }
  }
  int64_t stride = 1;
  for (size_t g = groups.size(); g-- > 0;) {
    groups[g].out = stride;
    stride *= groups[g].size;
  }
  std::vector<float> out(x.size());
  if (groups.empty()) {
    std::copy(x.begin(), x.end(), out.begin());
    return out;
  }
  // The innermost output group is written in rows; when it is not also
  // innermost in the input, tiles of it and of the input's innermost group
  // are moved together.
  const Group inner = groups.back();
  auto contiguousIn = llvm::find_if(groups, [](const Group &g) { return g.in == 1; });
  bool rows = inner.in == 1;
  Group across = rows ? Group{1, 0, 0} : *contiguousIn;
  std::vector<Group> outer;
  for (size_t g = 0; g + 1 < groups.size(); ++g)
    if (rows || &groups[g] != &*contiguousIn)
      outer.push_back(groups[g]);
  std::vector<int64_t> index(outer.size(), 0);
  int64_t inOffset = 0, outOffset = 0;
  constexpr int64_t kTile = 16;
  for (int64_t n = product(shape) / (inner.size * across.size); n-- > 0;) {
    if (rows) {
      std::copy_n(x.data() + inOffset, inner.size, out.data() + outOffset);
    } else {
      for (int64_t i0 = 0; i0 < across.size; i0 += kTile)
        for (int64_t j0 = 0; j0 < inner.size; j0 += kTile)
          for (int64_t i = i0; i < std::min(i0 + kTile, across.size); ++i)
            for (int64_t j = j0; j < std::min(j0 + kTile, inner.size); ++j)
              out[outOffset + i * across.out + j] = x[inOffset + i + j * inner.in];
    }
    for (size_t d = outer.size(); d-- > 0;) {
      inOffset += outer[d].in;
      outOffset += outer[d].out;
      if (++index[d] < outer[d].size)
        break;
      inOffset -= outer[d].in * outer[d].size;
      outOffset -= outer[d].out * outer[d].size;
      index[d] = 0;
    }
  }
  return out;
}

Tensor ref::transpose(const Tensor &x, llvm::ArrayRef<int64_t> perm) {
  std::vector<int64_t> shape(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    shape[i] = x.shape[perm[i]];
  return Tensor(std::move(shape), transposeValues(x.data, x.shape, perm));
}

Tensor ref::reshape(const Tensor &x, std::vector<int64_t> shape) {
  return Tensor(std::move(shape), x.data);
}

llvm::Expected<std::vector<int64_t>>
ref::reshapeTarget(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> shape,
                   bool allowZero) {
  std::vector<int64_t> target = shape.vec();
  std::optional<size_t> inferred;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      if (inferred)
        return fail(formatv("shape {0} has more than one -1", str(shape)));
      inferred = i;
    } else if (target[i] < -1) {
      return fail(formatv("shape {0} has a negative dimension", str(shape)));
    } else if (target[i] == 0 && !allowZero) {
      if (i >= input.size())
        return fail(formatv("dimension {0} of shape {1} copies an input "
                            "dimension, but the input shape {2} has none",
                            i, str(shape), str(input)));
      target[i] = input[i];
    }
  }
  int64_t count = product(input);
  if (inferred) {
    target[*inferred] = 1;
    int64_t known = product(target);
    if (known == 0 || count % known != 0)
      return fail(
          formatv("cannot infer the -1 of shape {0} for input shape {1}",
                  str(shape), str(input)));
    target[*inferred] = count / known;
  }
  if (product(target) != count)
    return fail(formatv("cannot reshape {0} to {1}: the element counts differ",
                        str(input), str(shape)));
  return target;
}

llvm::Expected<Tensor> ref::flatten(const Tensor &x, int64_t axis) {
  int64_t rank = x.shape.size();
  if (axis < -rank || axis > rank)
    return fail(formatv("axis {0} is out of range for rank {1}", axis, rank));
  if (axis < 0)
    axis += rank;
  llvm::ArrayRef<int64_t> dims = x.shape;
  return reshape(
      x, {product(dims.take_front(axis)), product(dims.drop_front(axis))});
}

/// `axis` in [-rank, rank) as an index in [0, rank).
static llvm::Expected<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return fail(formatv("axis {0} is out of range for rank {1}", axis, rank));
  return axis < 0 ? axis + rank : axis;
}

llvm::Expected<Tensor> ref::squeeze(const Tensor &x,
                                    llvm::ArrayRef<int64_t> axes) {
  int64_t rank = x.shape.size();
  std::vector<bool> drop(rank, false);
  for (int64_t axis : axes) {
    llvm::Expected<int64_t> d = normalizeAxis(axis, rank);
    if (!d)
      return d.takeError();
    if (drop[*d])
      return fail(formatv("axis {0} is squeezed twice", axis));
    if (x.shape[*d] != 1)
      return fail(formatv("cannot squeeze axis {0} of shape {1}: its size is "
                          "not 1",
                          axis, str(x.shape)));
    drop[*d] = true;
  }
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d)
    if (axes.empty() ? x.shape[d] != 1 : !drop[d])
      shape.push_back(x.shape[d]);
  return reshape(x, std::move(shape));
}

llvm::Expected<Tensor> ref::unsqueeze(const Tensor &x,
                                      llvm::ArrayRef<int64_t> axes) {
  int64_t rank = x.shape.size() + axes.size();
  std::vector<bool> inserted(rank, false);
  for (int64_t axis : axes) {
    llvm::Expected<int64_t> d = normalizeAxis(axis, rank);
    if (!d)
      return d.takeError();
    if (inserted[*d])
      return fail(formatv("axis {0} is inserted twice", axis));
    inserted[*d] = true;
  }
  std::vector<int64_t> shape;
  auto next = x.shape.begin();
  for (int64_t d = 0; d < rank; ++d)
    shape.push_back(inserted[d] ? 1 : *next++);
  return reshape(x, std::move(shape));
}

llvm::Expected<Tensor> ref::concat(llvm::ArrayRef<Tensor> inputs,
                                   int64_t axis) {
  if (inputs.empty())
    return fail("there is nothing to concatenate");
  std::vector<int64_t> shape = inputs[0].shape;
  llvm::Expected<int64_t> d = normalizeAxis(axis, shape.size());
  if (!d)
    return d.takeError();
  int64_t size = 0;
  for (const Tensor &input : inputs) {
    std::vector<int64_t> others = input.shape;
    if (others.size() == shape.size())
      others[*d] = shape[*d];
    if (others != shape)
      return fail(formatv("shapes {0} and {1} differ other than at axis {2}",
                          str(shape), str(input.shape), axis));
    size += input.shape[*d];
  }
  shape[*d] = size;
  // Each input contributes one contiguous chunk per index of the dimensions
  // before the axis.
  int64_t outer = product(llvm::ArrayRef(shape).take_front(*d));
  std::vector<float> out;
  out.reserve(product(shape));
  for (int64_t o = 0; o < outer; ++o)
    for (const Tensor &input : inputs) {
      int64_t chunk = product(llvm::ArrayRef(input.shape).drop_front(*d));
      auto begin = input.data.begin() + o * chunk;
      out.insert(out.end(), begin, begin + chunk);
    }
  return Tensor(std::move(shape), std::move(out));
}

std::vector<int64_t> ref::pickedIndices(llvm::ArrayRef<int64_t> shape,
                                        const Positions &positions) {
  std::vector<int64_t> strides = stridesOf(shape), resultShape;
  for (const std::vector<int64_t> &along : positions)
    resultShape.push_back(along.size());
  std::vector<int64_t> indices;
  indices.reserve(product(resultShape));
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t n = product(resultShape); n > 0; --n) {
    int64_t flat = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      flat += positions[d][index[d]] * strides[d];
    indices.push_back(flat);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < resultShape[d])
        break;
      index[d] = 0;
    }
  }
  return indices;
}

Tensor ref::pick(const Tensor &x, const Positions &positions) {
  std::vector<int64_t> shape;
  for (const std::vector<int64_t> &along : positions)
    shape.push_back(along.size());
  std::vector<float> out;
  for (int64_t i : pickedIndices(x.shape, positions))
    out.push_back(x.data[i]);
  return Tensor(std::move(shape), std::move(out));
}

Positions ref::allPositions(llvm::ArrayRef<int64_t> shape) {
  Positions positions;
  for (int64_t size : shape) {
    positions.emplace_back(size);
    std::iota(positions.back().begin(), positions.back().end(), 0);
  }
  return positions;
}

llvm::Expected<Positions> ref::slicePositions(llvm::ArrayRef<int64_t> shape,
                                              llvm::ArrayRef<int64_t> starts,
                                              llvm::ArrayRef<int64_t> ends,
                                              llvm::ArrayRef<int64_t> axes,
                                              llvm::ArrayRef<int64_t> steps) {
  int64_t rank = shape.size();
  if (ends.size() != starts.size() || (!axes.empty() && axes.size() != starts.size()) ||
      (!steps.empty() && steps.size() != starts.size()))
    return fail("starts, ends, axes and steps must have one entry per sliced axis");
  Positions positions = allPositions(shape);
  std::vector<bool> sliced(rank, false);
  for (size_t i = 0; i < starts.size(); ++i) {
    llvm::Expected<int64_t> axis = normalizeAxis(axes.empty() ? i : axes[i], rank);
    if (!axis)
      return axis.takeError();
    if (sliced[*axis])
      return fail(formatv("axis {0} is sliced twice", *axis));
    sliced[*axis] = true;
    int64_t size = shape[*axis], step = steps.empty() ? 1 : steps[i];
    if (step == 0)
      return fail("a step of 0");
    // Clamped as ONNX says: to [0, size] forwards, [-1, size - 1] backwards.
    auto clampTo = [&](int64_t v, int64_t lo, int64_t hi) {
      if (v < 0)
        v = v < -size ? lo : v + size;
      return std::clamp(v, lo, hi);
    };
    int64_t start = step > 0 ? clampTo(starts[i], 0, size) : clampTo(starts[i], 0, size - 1);
    int64_t end = step > 0 ? clampTo(ends[i], 0, size) : clampTo(ends[i], -1, size - 1);
    std::vector<int64_t> &along = positions[*axis];
    along.clear();
    for (int64_t p = start; step > 0 ? p < end : p > end; p += step)
      along.push_back(p);
  }
  return positions;
}

llvm::Expected<std::vector<int64_t>> ref::splitLengths(int64_t length,
                                                       llvm::ArrayRef<int64_t> split,
                                                       int64_t parts) {
  if (!split.empty()) {
    if (llvm::any_of(split, [](int64_t s) { return s < 0; }) ||
        std::accumulate(split.begin(), split.end(), int64_t(0)) != length)
      return fail(formatv("split {0} does not add up to the length {1}", str(split),
                          length));
    return std::vector<int64_t>(split.begin(), split.end());
  }
  if (parts < 1)
    return fail(formatv("cannot split into {0} parts", parts));
  int64_t each = (length + parts - 1) / parts;
  std::vector<int64_t> lengths;
  for (int64_t first = 0; first < length; first += each)
    lengths.push_back(std::min(each, length - first));
  if ((int64_t)lengths.size() != parts)
    return fail(formatv("a length of {0} does not split into {1} parts", length, parts));
  return lengths;
}

llvm::Expected<std::vector<Tensor>> ref::split(const Tensor &x, int64_t axis,
                                               llvm::ArrayRef<int64_t> lengths) {
  llvm::Expected<int64_t> d = normalizeAxis(axis, x.shape.size());
  if (!d)
    return d.takeError();
  std::vector<Tensor> parts;
  int64_t first = 0;
  for (int64_t length : lengths) {
    Positions positions = allPositions(x.shape);
    positions[*d].resize(length);
    std::iota(positions[*d].begin(), positions[*d].end(), first);
    first += length;
    parts.push_back(pick(x, positions));
  }
  if (first != x.shape[*d])
    return fail(formatv("the parts cover {0} of the {1} elements along axis {2}", first,
                        x.shape[*d], axis));
  return parts;
}

llvm::Expected<ResizeWeights> ref::resizeWeights(int64_t in, int64_t out, double scale,
                                                 const ResizeAttrs &attrs) {
  const std::string &mode = attrs.coordinateMode;
  if (mode != "half_pixel" && mode != "pytorch_half_pixel" && mode != "align_corners" &&
      mode != "asymmetric" && mode != "tf_half_pixel_for_nn")
    return fail(formatv("coordinate_transformation_mode '{0}' is not supported", mode));
  if (attrs.mode != "nearest" && attrs.mode != "linear" && attrs.mode != "cubic")
    return fail(formatv("mode '{0}' is not supported", attrs.mode));
  const std::string &rounding = attrs.nearestMode;
  if (attrs.mode == "nearest" && rounding != "round_prefer_floor" &&
      rounding != "round_prefer_ceil" && rounding != "floor" && rounding != "ceil")
    return fail(formatv("nearest_mode '{0}' is not supported", rounding));
  double outWidth = scale * in;
  ResizeWeights weights(out);
  for (int64_t x = 0; x < out; ++x) {
    double original;
    if (mode == "align_corners")
      original = outWidth == 1 ? 0 : x * (in - 1) / (outWidth - 1);
    else if (mode == "asymmetric")
      original = x / scale;
    else if (mode == "pytorch_half_pixel")
      original = outWidth == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    else if (mode == "half_pixel")
      original = (x + 0.5) / scale - 0.5;
    else
      original = (x + 0.5) / scale;
    // The ratio is in (0, 1]: the input to the left of `original` is preferred.
    double ratio = original == std::floor(original) ? 1 : original - std::floor(original);
    std::vector<double> coeffs;
    if (attrs.mode == "nearest") {
      bool right = ratio == 1 || rounding == "ceil" ||
                   (rounding == "round_prefer_floor" && ratio > 0.5) ||
                   (rounding == "round_prefer_ceil" && ratio >= 0.5);
      if (rounding == "floor" && ratio != 1)
        right = false;
      coeffs = {right ? 0.0 : 1.0, right ? 1.0 : 0.0};
    } else if (attrs.mode == "linear") {
      coeffs = {1 - ratio, ratio};
    } else {
      double a = attrs.cubicA, r = ratio, s = 1 - ratio;
      coeffs = {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
                ((a + 2) * r - (a + 3)) * r * r + 1, ((a + 2) * s - (a + 3)) * s * s + 1,
                ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
    }
    // The coefficients' neighbours: the n nearest positions of the input
    // padded by its edges (ties to the lower one), in order.
    int64_t n = coeffs.size(), pad = (n + 1) / 2, padded = in + 2 * pad;
    double at = original + pad;
    std::vector<int64_t> candidates;
    for (int64_t i = (int64_t)std::floor(at) - n; i <= (int64_t)std::floor(at) + n; ++i)
      if (i >= 0 && i < padded)
        candidates.push_back(i);
    std::stable_sort(candidates.begin(), candidates.end(), [&](int64_t l, int64_t r) {
      return std::fabs(at - l) < std::fabs(at - r);
    });
    candidates.resize(std::min<size_t>(n, candidates.size()));
    std::sort(candidates.begin(), candidates.end());
    double total = 0;
    for (int64_t k = 0; k < (int64_t)candidates.size(); ++k) {
      int64_t index = candidates[k] - pad;
      if (attrs.excludeOutside && (index < 0 || index >= in))
        coeffs[k] = 0;
      total += coeffs[k];
    }
    for (int64_t k = 0; k < (int64_t)candidates.size(); ++k) {
      double weight = attrs.excludeOutside ? coeffs[k] / total : coeffs[k];
      if (weight != 0)
        weights[x].push_back({std::clamp<int64_t>(candidates[k] - pad, 0, in - 1), weight});
    }
  }
  return weights;
}

llvm::Expected<Tensor> ref::resize(const Tensor &x, llvm::ArrayRef<int64_t> shape,
                                   llvm::ArrayRef<double> scales, const ResizeAttrs &attrs) {
  if (shape.size() != x.shape.size() || scales.size() != x.shape.size())
    return fail("sizes and scales need one entry per dimension");
  Tensor result = x;
  for (size_t d = 0; d < shape.size(); ++d) {
    llvm::Expected<ResizeWeights> weights =
        resizeWeights(result.shape[d], shape[d], scales[d], attrs);
    if (!weights)
      return weights.takeError();
    std::vector<int64_t> outShape = result.shape;
    outShape[d] = shape[d];
    int64_t inner = product(llvm::ArrayRef(result.shape).drop_front(d + 1));
    int64_t outer = product(llvm::ArrayRef(result.shape).take_front(d));
    std::vector<float> out(product(outShape));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < shape[d]; ++j)
        for (int64_t i = 0; i < inner; ++i) {
          double sum = 0;
          for (auto [index, weight] : (*weights)[j])
            sum += weight * result.data[(o * result.shape[d] + index) * inner + i];
          out[(o * shape[d] + j) * inner + i] = sum;
        }
    result = Tensor(std::move(outShape), std::move(out));
  }
  return result;
}

/// Index `i` of a dimension padded by reflection, mapped into [0, n): numpy's
/// repeated reflection is periodic with period 2(n - 1).
static int64_t reflectIndex(int64_t i, int64_t n) {
  if (n == 1)
    return 0;
  int64_t period = 2 * (n - 1);
  i %= period;
  if (i < 0)
    i += period;
  return i < n ? i : period - i;
}

llvm::Expected<Tensor> ref::pad(const Tensor &x, llvm::ArrayRef<int64_t> pads,
                                llvm::StringRef mode, float value) {
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    return fail(formatv("pad mode '{0}' is unsupported", mode));
  size_t rank = x.shape.size();
  if (pads.size() != 2 * rank)
    return fail(formatv("{0} pads for rank {1}: a begin and an end are needed "
                        "for every dimension",
                        pads.size(), rank));
  // Negative pads first crop dimension d to x[first, first + kept).
  std::vector<int64_t> first(rank), kept(rank), before(rank), shape(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t begin = pads[d], end = pads[rank + d];
    first[d] = std::max<int64_t>(0, -begin);
    kept[d] = x.shape[d] - first[d] - std::max<int64_t>(0, -end);
    before[d] = std::max<int64_t>(0, begin);
    shape[d] = kept[d] + before[d] + std::max<int64_t>(0, end);
    if (kept[d] < 0)
      return fail(formatv("pads {0} remove more than dimension {1} of shape "
                          "{2} holds",
                          str(pads), d, str(x.shape)));
    if (mode != "constant" && kept[d] == 0 && shape[d] > 0)
      return fail(formatv("{0} padding needs values, but dimension {1} of "
                          "shape {2} is empty",
                          mode, d, str(x.shape)));
  }
  bool constant = mode == "constant", edge = mode == "edge";
  std::vector<int64_t> xStrides = stridesOf(x.shape);
  std::vector<float> out(product(shape));
  for (int64_t p = 0; p < (int64_t)out.size(); ++p) {
    std::vector<int64_t> index = unravel(p, shape);
    int64_t offset = 0;
    bool inside = true;
    for (size_t d = 0; d < rank; ++d) {
      int64_t i = index[d] - before[d]; // into the cropped dimension
      if (i < 0 || i >= kept[d]) {
        if (constant) {
          inside = false;
          break;
        }
        i = edge ? std::clamp<int64_t>(i, 0, kept[d] - 1)
                 : reflectIndex(i, kept[d]);
      }
      offset += (first[d] + i) * xStrides[d];
    }
    out[p] = inside ? x.data[offset] : value;
  }
  return Tensor(std::move(shape), std::move(out));
}

//===----------------------------------------------------------------------===//
// Sliding windows: convolution and pooling
//===----------------------------------------------------------------------===//

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Checks that a window over `rank` spatial dimensions has one kernel size,
/// stride and dilation per dimension and two pads, all in range.
static llvm::Error checkWindow(size_t rank, llvm::ArrayRef<int64_t> kernel,
                               llvm::ArrayRef<int64_t> strides,
                               llvm::ArrayRef<int64_t> dilations,
                               llvm::ArrayRef<int64_t> pads) {
  struct Param {
    const char *name;
    llvm::ArrayRef<int64_t> values;
    size_t count;
    int64_t min;
  };
  for (const Param &param : {Param{"kernel shape", kernel, rank, 1},
                             Param{"strides", strides, rank, 1},
                             Param{"dilations", dilations, rank, 1},
                             Param{"pads", pads, 2 * rank, 0}}) {
    if (param.values.size() != param.count)
      return fail(formatv("{0} {1} should have {2} values for {3} spatial "
                          "dimensions",
                          param.name, str(param.values), param.count, rank));
    if (llvm::any_of(param.values, [&](int64_t v) { return v < param.min; }))
      return fail(formatv("{0} {1} should be at least {2}", param.name,
                          str(param.values), param.min));
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<int64_t>>
ref::windowOutput(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> kernel,
                  llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> dilations,
                  llvm::ArrayRef<int64_t> pads, bool ceilMode) {
  size_t rank = input.size();
  if (llvm::Error error = checkWindow(rank, kernel, strides, dilations, pads))
    return std::move(error);
  std::vector<int64_t> output;
  for (size_t d = 0; d < rank; ++d) {
    int64_t stride = strides[d], begin = pads[d];
    int64_t extent = (kernel[d] - 1) * dilations[d] + 1;
    int64_t span = input[d] + begin + pads[rank + d] - extent;
    if (span < 0)
      return fail(formatv("spatial dimension {0}: the window spans {1}, more "
                          "than the padded input's {2}",
                          d, extent, span + extent));
    int64_t count = (ceilMode ? ceilDiv(span, stride) : span / stride) + 1;
    // Rounding up may add a window that starts in the end padding: drop it.
    if (ceilMode && (count - 1) * stride >= input[d] + begin)
      --count;
    output.push_back(count);
  }
  return output;
}

llvm::Expected<std::vector<int64_t>>
ref::resolvePads(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> kernel,
                 llvm::ArrayRef<int64_t> strides,
                 llvm::ArrayRef<int64_t> dilations,
                 llvm::ArrayRef<int64_t> pads, llvm::StringRef autoPad) {
  size_t rank = input.size();
  std::vector<int64_t> resolved(2 * rank, 0);
  if (autoPad == "NOTSET" && !pads.empty())
    resolved = pads.vec();
  else if (autoPad != "NOTSET" && autoPad != "VALID" &&
           autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return fail(formatv("auto_pad '{0}' is not NOTSET, VALID, SAME_UPPER or "
                        "SAME_LOWER",
                        autoPad));
  if (llvm::Error error =
          checkWindow(rank, kernel, strides, dilations, resolved))
    return std::move(error);
  if (!autoPad.starts_with("SAME"))
    return resolved;
  for (size_t d = 0; d < rank; ++d) {
    int64_t outputs = ceilDiv(input[d], strides[d]);
    int64_t extent = (kernel[d] - 1) * dilations[d] + 1;
    int64_t total =
        std::max<int64_t>(0, (outputs - 1) * strides[d] + extent - input[d]);
    bool upper = autoPad == "SAME_UPPER";
    resolved[d] = upper ? total / 2 : total - total / 2;
    resolved[rank + d] = total - resolved[d];
  }
  return resolved;
}

/// Checks that `shape` is N x C x D1 x ... x Dn, with n >= 1.
static llvm::Error checkHasSpatialDims(llvm::ArrayRef<int64_t> shape) {
  if (shape.size() < 3)
    return fail(formatv("the input of shape {0} is not N x C x D1 x ... x Dn",
                        str(shape)));
  return llvm::Error::success();
}

namespace {
/// A checked sliding window over the spatial dimensions of an input.
struct Geometry {
  std::vector<int64_t> input, output;
  WindowAttrs attrs;

  /// The input element that kernel position `k` of output position `o`
  /// reads: its offset within one N, C plane, whether it is inside the input
  /// (rather than the padding) and inside the padded input.
  struct Tap {
    int64_t offset = 0;
    bool inInput = true, inPadded = true;
  };
  Tap tap(llvm::ArrayRef<int64_t> o, llvm::ArrayRef<int64_t> k) const {
    Tap t;
    size_t rank = input.size();
    for (size_t d = 0; d < rank; ++d) {
      int64_t begin = attrs.pads[d], end = attrs.pads[rank + d];
      int64_t i = o[d] * attrs.strides[d] - begin + k[d] * attrs.dilations[d];
      t.inInput &= i >= 0 && i < input[d];
      t.inPadded &= i >= -begin && i < input[d] + end;
      t.offset = t.offset * input[d] + i;
    }
    return t;
  }

  /// The taps of every output position, listed once so that the kernels
  /// loop over plain arrays.
  struct Taps {
    /// Output position p's taps inside the input are [begin[p], begin[p + 1]).
    std::vector<int64_t> begin, kernelIndex, offset;
    /// How many of output position p's taps are inside the padded input.
    std::vector<int64_t> padded;
  };
  Taps taps(llvm::ArrayRef<int64_t> kernel) const {
    Taps result;
    int64_t outPlane = 1, kernelSize = 1;
    for (int64_t d : output)
      outPlane *= d;
    for (int64_t d : kernel)
      kernelSize *= d;
    std::vector<int64_t> o(output.size(), 0), k(kernel.size(), 0);
    auto step = [](std::vector<int64_t> &index, llvm::ArrayRef<int64_t> shape) {
      for (size_t d = shape.size(); d-- > 0;) {
        if (++index[d] < shape[d])
          return;
        index[d] = 0;
      }
    };
    for (int64_t p = 0; p < outPlane; ++p, step(o, output)) {
      result.begin.push_back(result.offset.size());
      int64_t padded = 0;
      std::fill(k.begin(), k.end(), 0);
      for (int64_t q = 0; q < kernelSize; ++q, step(k, kernel)) {
        Tap t = tap(o, k);
        padded += t.inPadded;
        if (t.inInput) {
          result.kernelIndex.push_back(q);
          result.offset.push_back(t.offset);
        }
      }
      result.padded.push_back(padded);
    }
    result.begin.push_back(result.offset.size());
    return result;
  }
};
} // namespace

/// The window of `attrs` and `kernel` over input `shape`, with its output
/// size in every spatial dimension.
static llvm::Expected<Geometry> makeGeometry(llvm::ArrayRef<int64_t> shape,
                                             llvm::ArrayRef<int64_t> kernel,
                                             const WindowAttrs &attrs,
                                             bool ceilMode) {
  if (llvm::Error error = checkHasSpatialDims(shape))
    return std::move(error);
  Geometry g{shape.drop_front(2).vec(), {}, attrs};
  llvm::Expected<std::vector<int64_t>> output =
      windowOutput(g.input, kernel, attrs.strides, attrs.dilations, attrs.pads, ceilMode);
  if (!output)
    return output.takeError();
  g.output = std::move(*output);
  return g;
}

llvm::Expected<Tensor> ref::conv(const Tensor &x, const Tensor &w,
                                 const Tensor *b, const ConvAttrs &attrs) {
  if (llvm::Error error = checkHasSpatialDims(x.shape))
    return std::move(error);
  if (w.shape.size() != x.shape.size())
    return fail(formatv("the weights of shape {0} do not have the rank of the "
                        "input of shape {1}",
                        str(w.shape), str(x.shape)));
  int64_t batch = x.shape[0], channels = x.shape[1];
  int64_t filters = w.shape[0], groupChannels = w.shape[1];
  int64_t groups = attrs.groups;
  if (groups < 1 || channels != groups * groupChannels || filters % groups)
    return fail(formatv("{0} input channels and {1} filters of {2} channels "
                        "do not make {3} groups",
                        channels, filters, groupChannels, groups));
  if (b && b->shape != std::vector<int64_t>{filters})
    return fail(formatv("the bias of shape {0} should have shape [{1}]",
                        str(b->shape), filters));
  llvm::ArrayRef<int64_t> kernel = llvm::ArrayRef(w.shape).drop_front(2);
  llvm::Expected<Geometry> g = makeGeometry(x.shape, kernel, attrs, false);
  if (!g)
    return g.takeError();
  int64_t inPlane = product(g->input), outPlane = product(g->output);
  int64_t kernelSize = product(kernel), groupFilters = filters / groups;
  std::vector<int64_t> shape = {batch, filters};
  shape.insert(shape.end(), g->output.begin(), g->output.end());
  std::vector<float> y(product(shape));
  Geometry::Taps taps = g->taps(kernel);
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t m = 0; m < filters; ++m) {
      int64_t group = m / groupFilters;
      for (int64_t p = 0; p < outPlane; ++p) {
        double sum = b ? b->data[m] : 0;
        for (int64_t c = 0; c < groupChannels; ++c) {
          const float *plane =
              x.data.data() +
              (n * channels + group * groupChannels + c) * inPlane;
          const float *filter =
              w.data.data() + (m * groupChannels + c) * kernelSize;
          for (int64_t t = taps.begin[p]; t < taps.begin[p + 1]; ++t)
            sum += (double)plane[taps.offset[t]] * filter[taps.kernelIndex[t]];
        }
        y[(n * filters + m) * outPlane + p] = sum;
      }
    }
  return Tensor(std::move(shape), std::move(y));
}

llvm::Expected<ConvTransposeAttrs>
ref::resolveConvTranspose(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> kernel,
                          llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> dilations,
                          llvm::ArrayRef<int64_t> pads, llvm::ArrayRef<int64_t> outputPadding,
                          llvm::ArrayRef<int64_t> outputShape, llvm::StringRef autoPad,
                          int64_t groups) {
  size_t rank = input.size();
  auto orDefault = [&](llvm::ArrayRef<int64_t> list, size_t length, int64_t value) {
    return list.empty() ? std::vector<int64_t>(length, value) : list.vec();
  };
  ConvTransposeAttrs attrs;
  attrs.strides = orDefault(strides, rank, 1);
  attrs.dilations = orDefault(dilations, rank, 1);
  attrs.groups = groups;
  std::vector<int64_t> explicitPads = orDefault(pads, 2 * rank, 0);
  std::vector<int64_t> extra = orDefault(outputPadding, rank, 0);
  // output_shape may list N and C as well.
  if (outputShape.size() == rank + 2)
    outputShape = outputShape.drop_front(2);
  if (kernel.size() != rank || attrs.strides.size() != rank ||
      attrs.dilations.size() != rank || explicitPads.size() != 2 * rank ||
      extra.size() != rank || (!outputShape.empty() && outputShape.size() != rank))
    return fail(formatv("kernel, strides, dilations, pads, output_padding and "
                        "output_shape do not all have {0} spatial dimensions",
                        rank));
  if (!llvm::is_contained({"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"}, autoPad))
    return fail(formatv("auto_pad '{0}' is not NOTSET, VALID, SAME_UPPER or SAME_LOWER",
                        autoPad));
  for (size_t d = 0; d < rank; ++d) {
    int64_t s = attrs.strides[d], dl = attrs.dilations[d];
    if (s < 1 || dl < 1 || kernel[d] < 1)
      return fail("kernel sizes, strides and dilations must be positive");
    if (extra[d] < 0 || extra[d] >= std::max(s, dl))
      return fail(formatv("output_padding {0} must be less than the stride or the dilation",
                          extra[d]));
    int64_t full = s * (input[d] - 1) + extra[d] + (kernel[d] - 1) * dl + 1;
    int64_t begin = explicitPads[d], output = full - begin - explicitPads[rank + d];
    bool same = autoPad.starts_with("SAME");
    if (!outputShape.empty() || same) {
      output = outputShape.empty() ? input[d] * s : outputShape[d];
      // The padding the output size leaves, split as ONNX splits it (by
      // floor division: a negative total lengthens the output at the end).
      int64_t total = full - output;
      int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      begin = autoPad == "SAME_UPPER" ? half : total - half;
    } else if (autoPad == "VALID") {
      begin = 0;
      output = full;
    }
    if (output < 1)
      return fail(formatv("spatial dimension {0} has no output", d));
    attrs.beginPads.push_back(begin);
    attrs.output.push_back(output);
  }
  return attrs;
}

llvm::Expected<Tensor> ref::convTranspose(const Tensor &x, const Tensor &w, const Tensor *b,
                                          const ConvTransposeAttrs &attrs) {
  if (llvm::Error error = checkHasSpatialDims(x.shape))
    return std::move(error);
  if (w.shape.size() != x.shape.size())
    return fail(formatv("the weights of shape {0} do not have the rank of the "
                        "input of shape {1}",
                        str(w.shape), str(x.shape)));
  int64_t batch = x.shape[0], channels = x.shape[1], groups = attrs.groups;
  if (groups < 1 || w.shape[0] != channels || channels % groups)
    return fail(formatv("weights of shape {0} do not take {1} input channels in {2} groups",
                        str(w.shape), channels, groups));
  int64_t groupChannels = channels / groups, groupFilters = w.shape[1];
  int64_t filters = groupFilters * groups;
  if (b && b->shape != std::vector<int64_t>{filters})
    return fail(formatv("the bias of shape {0} should have shape [{1}]", str(b->shape),
                        filters));
  llvm::ArrayRef<int64_t> input = llvm::ArrayRef(x.shape).drop_front(2);
  llvm::ArrayRef<int64_t> kernel = llvm::ArrayRef(w.shape).drop_front(2);
  size_t rank = input.size();
  int64_t inPlane = product(input), outPlane = product(attrs.output);
  int64_t kernelSize = product(kernel);
  // The output offset each (input position, kernel position) pair adds to,
  // or -1 when it falls outside the output.
  std::vector<int64_t> target(inPlane * kernelSize, -1);
  for (int64_t i = 0; i < inPlane; ++i)
    for (int64_t k = 0; k < kernelSize; ++k) {
      int64_t offset = 0, restI = i, restK = k, scale = 1;
      bool inside = true;
      for (size_t d = rank; d-- > 0;) {
        int64_t id = restI % input[d], kd = restK % kernel[d];
        restI /= input[d];
        restK /= kernel[d];
        int64_t o = id * attrs.strides[d] + kd * attrs.dilations[d] - attrs.beginPads[d];
        inside &= o >= 0 && o < attrs.output[d];
        offset += o * scale;
        scale *= attrs.output[d];
      }
      if (inside)
        target[i * kernelSize + k] = offset;
    }
  std::vector<int64_t> shape = {batch, filters};
  shape.insert(shape.end(), attrs.output.begin(), attrs.output.end());
  std::vector<double> sums(product(shape));
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t m = 0; m < filters; ++m) {
      int64_t group = m / groupFilters, o = m % groupFilters;
      double *out = sums.data() + (n * filters + m) * outPlane;
      if (b)
        std::fill(out, out + outPlane, b->data[m]);
      for (int64_t c = group * groupChannels; c < (group + 1) * groupChannels; ++c) {
        const float *plane = x.data.data() + (n * channels + c) * inPlane;
        const float *filter = w.data.data() + (c * groupFilters + o) * kernelSize;
        for (int64_t i = 0; i < inPlane; ++i)
          for (int64_t k = 0; k < kernelSize; ++k)
            if (int64_t t = target[i * kernelSize + k]; t >= 0)
              out[t] += (double)plane[i] * filter[k];
      }
    }
  return Tensor(std::move(shape), std::vector<float>(sums.begin(), sums.end()));
}

/// Max or average pooling: the one loop nest behind every pooling kernel.
static llvm::Expected<Tensor> pool(const Tensor &x, const PoolAttrs &attrs,
                                   bool isMax) {
  llvm::Expected<Geometry> g =
      makeGeometry(x.shape, attrs.kernel, attrs, attrs.ceilMode);
  if (!g)
    return g.takeError();
  int64_t planes = x.shape[0] * x.shape[1];
  int64_t inPlane = product(g->input), outPlane = product(g->output);
  std::vector<int64_t> shape = {x.shape[0], x.shape[1]};
  shape.insert(shape.end(), g->output.begin(), g->output.end());
  std::vector<float> y(product(shape));
  Geometry::Taps taps = g->taps(attrs.kernel);
  for (int64_t plane = 0; plane < planes; ++plane) {
    const float *in = x.data.data() + plane * inPlane;
    for (int64_t p = 0; p < outPlane; ++p) {
      double best = -INFINITY, sum = 0;
      for (int64_t t = taps.begin[p]; t < taps.begin[p + 1]; ++t) {
        best = std::max<double>(best, in[taps.offset[t]]);
        sum += in[taps.offset[t]];
      }
      int64_t count = attrs.countIncludePad ? taps.padded[p] : taps.begin[p + 1] - taps.begin[p];
      y[plane * outPlane + p] = isMax ? best : sum / count;
    }
  }
  return Tensor(std::move(shape), std::move(y));
}

llvm::Expected<Tensor> ref::maxPool(const Tensor &x, const PoolAttrs &attrs) {
  return pool(x, attrs, /*isMax=*/true);
}

llvm::Expected<Tensor> ref::averagePool(const Tensor &x,
                                        const PoolAttrs &attrs) {
  return pool(x, attrs, /*isMax=*/false);
}

/// Pooling with one window that covers every spatial dimension.
static llvm::Expected<Tensor> globalPool(const Tensor &x, bool isMax) {
  if (llvm::Error error = checkHasSpatialDims(x.shape))
    return std::move(error);
  size_t rank = x.shape.size() - 2;
  PoolAttrs attrs;
  attrs.kernel = llvm::ArrayRef(x.shape).drop_front(2).vec();
  attrs.strides.assign(rank, 1);
  attrs.dilations.assign(rank, 1);
  attrs.pads.assign(2 * rank, 0);
  return pool(x, attrs, isMax);
}

llvm::Expected<Tensor> ref::globalMaxPool(const Tensor &x) {
  return globalPool(x, /*isMax=*/true);
}

llvm::Expected<Tensor> ref::globalAveragePool(const Tensor &x) {
  return globalPool(x, /*isMax=*/false);
}

llvm::Expected<Tensor> ref::batchNorm(const Tensor &x, const Tensor &scale,
                                      const Tensor &bias, const Tensor &mean,
                                      const Tensor &variance, float epsilon) {
  if (x.shape.size() < 2)
    return fail(
        formatv("the input of shape {0} is not N x C x ...", str(x.shape)));
  int64_t channels = x.shape[1];
  std::pair<const char *, const Tensor *> params[] = {{"scale", &scale},
                                                      {"bias", &bias},
                                                      {"mean", &mean},
                                                      {"variance", &variance}};
  for (auto [name, t] : params)
    if (t->shape != std::vector<int64_t>{channels})
      return fail(formatv("the {0} of shape {1} should have shape [{2}]", name,
                          str(t->shape), channels));
  int64_t inner = product(llvm::ArrayRef(x.shape).drop_front(2));
  std::vector<float> y(x.data.size());
  for (size_t i = 0; i < y.size(); ++i) {
    int64_t c = (i / inner) % channels;
    double normalized = (x.data[i] - (double)mean.data[c]) /
                        std::sqrt((double)variance.data[c] + epsilon);
    y[i] = scale.data[c] * normalized + bias.data[c];
  }
  return Tensor(x.shape, std::move(y));
}

/// One step of a recurrent cell's activation, by ONNX name.
static llvm::Expected<float (*)(float)> activationOf(llvm::StringRef name) {
  if (name == "Sigmoid")
    return +[](float v) { return float(1 / (1 + std::exp(-(double)v))); };
  if (name == "Tanh")
    return +[](float v) { return std::tanh(v); };
  if (name == "Relu")
    return +[](float v) { return v < 0 ? 0.0f : v; };
  return fail(formatv("the activation {0} is unsupported", name));
}

llvm::Expected<RecurrentResult>
ref::recurrent(const Tensor &x, const Tensor &w, const Tensor &r, const Tensor *b,
               const Tensor *initialH, const Tensor *initialC, const Tensor *p,
               const RecurrentAttrs &attrs) {
  int64_t gates = attrs.cell == Cell::Rnn ? 1 : attrs.cell == Cell::Gru ? 3 : 4;
  size_t perDirection = attrs.cell == Cell::Rnn ? 1 : attrs.cell == Cell::Gru ? 2 : 3;
  int64_t directions = attrs.forward + attrs.reverse;
  int64_t hidden = attrs.hiddenSize;
  if (x.shape.size() != 3)
    return fail(formatv("X of shape {0} is not 3-D", str(x.shape)));
  bool batchFirst = attrs.layout == 1;
  int64_t steps = x.shape[batchFirst ? 1 : 0], batch = x.shape[batchFirst ? 0 : 1];
  int64_t inputSize = x.shape[2];
  std::vector<int64_t> stateShape = batchFirst
                                        ? std::vector<int64_t>{batch, directions, hidden}
                                        : std::vector<int64_t>{directions, batch, hidden};
  struct Operand {
    const Tensor *tensor;
    const char *name;
    std::vector<int64_t> shape;
  };
  for (const Operand &operand :
       {Operand{&w, "W", {directions, gates * hidden, inputSize}},
        Operand{&r, "R", {directions, gates * hidden, hidden}},
        Operand{b, "B", {directions, 2 * gates * hidden}},
        Operand{initialH, "initial_h", stateShape}, Operand{initialC, "initial_c", stateShape},
        Operand{p, "P", {directions, 3 * hidden}}})
    if (operand.tensor && operand.tensor->shape != operand.shape)
      return fail(formatv("{0} of shape {1} should have shape {2}", operand.name,
                          str(operand.tensor->shape), str(operand.shape)));
  std::vector<std::string> names = attrs.activations;
  if (names.empty())
    for (int64_t d = 0; d < directions; ++d) {
      names.push_back(attrs.cell == Cell::Rnn ? "Tanh" : "Sigmoid");
      if (attrs.cell != Cell::Rnn)
        names.push_back("Tanh");
      if (attrs.cell == Cell::Lstm)
        names.push_back("Tanh");
    }
  if (names.size() != perDirection * directions)
    return fail(formatv("{0} activations given, {1} expected", names.size(),
                        perDirection * directions));
  std::vector<float (*)(float)> activations;
  for (const std::string &name : names) {
    llvm::Expected<float (*)(float)> f = activationOf(name);
    if (!f)
      return f.takeError();
    activations.push_back(*f);
  }
  // Element (d, n, j) of a [D, B, H] state in the layout's order.
  auto stateIndex = [&](int64_t d, int64_t n, int64_t j) {
    return batchFirst ? (n * directions + d) * hidden + j : (d * batch + n) * hidden + j;
  };
  RecurrentResult result;
  std::vector<int64_t> yShape = batchFirst
                                    ? std::vector<int64_t>{batch, steps, directions, hidden}
                                    : std::vector<int64_t>{steps, directions, batch, hidden};
  result.y = Tensor::filled(yShape, 0);
  result.yH = Tensor::filled(stateShape, 0);
  result.yC = Tensor::filled(stateShape, 0);
  for (int64_t d = 0; d < directions; ++d) {
    bool backward = d == 1 || !attrs.forward;
    auto f = activations[d * perDirection];
    auto g = perDirection > 1 ? activations[d * perDirection + 1] : f;
    auto h = perDirection > 2 ? activations[d * perDirection + 2] : f;
    const float *wd = w.data.data() + d * gates * hidden * inputSize;
    const float *rd = r.data.data() + d * gates * hidden * hidden;
    auto bias = [&](int64_t k) { return b ? (double)b->data[d * 2 * gates * hidden + k] : 0.0; };
    auto peephole = [&](int64_t k) { return p ? (double)p->data[d * 3 * hidden + k] : 0.0; };
    for (int64_t n = 0; n < batch; ++n) {
      std::vector<float> state(hidden), cell(hidden);
      for (int64_t j = 0; j < hidden; ++j) {
        state[j] = initialH ? initialH->data[stateIndex(d, n, j)] : 0;
        cell[j] = initialC ? initialC->data[stateIndex(d, n, j)] : 0;
      }
      for (int64_t s = 0; s < steps; ++s) {
        int64_t t = backward ? steps - 1 - s : s;
        const float *xt = x.data.data() + (batchFirst ? n * steps + t : t * batch + n) * inputSize;
        // Gate k's input part x W_k^T + Wb_k and recurrent part h R_k^T + Rb_k.
        auto inputPart = [&](int64_t k) {
          double sum = bias(k);
          for (int64_t i = 0; i < inputSize; ++i)
            sum += (double)xt[i] * wd[k * inputSize + i];
          return sum;
        };
        auto recurrentPart = [&](int64_t k, const std::vector<float> &from) {
          double sum = bias(gates * hidden + k);
          for (int64_t i = 0; i < hidden; ++i)
            sum += (double)from[i] * rd[k * hidden + i];
          return sum;
        };
        std::vector<float> next(hidden), nextCell(hidden);
        if (attrs.cell == Cell::Rnn) {
          for (int64_t j = 0; j < hidden; ++j)
            next[j] = f(float(inputPart(j) + recurrentPart(j, state)));
        } else if (attrs.cell == Cell::Gru) { // gates z, r, h
          std::vector<float> z(hidden), reset(hidden), resetState(hidden);
          for (int64_t j = 0; j < hidden; ++j) {
            z[j] = f(float(inputPart(j) + recurrentPart(j, state)));
            reset[j] = f(float(inputPart(hidden + j) + recurrentPart(hidden + j, state)));
            resetState[j] = reset[j] * state[j];
          }
          for (int64_t j = 0; j < hidden; ++j) {
            int64_t k = 2 * hidden + j;
            double candidate = attrs.linearBeforeReset
                                   ? inputPart(k) + reset[j] * recurrentPart(k, state)
                                   : inputPart(k) + recurrentPart(k, resetState);
            float c = g(float(candidate));
            next[j] = (1 - z[j]) * c + z[j] * state[j];
          }
        } else { // gates i, o, f, c; peepholes i, o, f
          for (int64_t j = 0; j < hidden; ++j) {
            float in = f(float(inputPart(j) + recurrentPart(j, state) + peephole(j) * cell[j]));
            float forget = f(float(inputPart(2 * hidden + j) + recurrentPart(2 * hidden + j, state) +
                                   peephole(2 * hidden + j) * cell[j]));
            float candidate = g(float(inputPart(3 * hidden + j) + recurrentPart(3 * hidden + j, state)));
            nextCell[j] = forget * cell[j] + in * candidate;
            float out = f(float(inputPart(hidden + j) + recurrentPart(hidden + j, state) +
                                peephole(hidden + j) * nextCell[j]));
            next[j] = out * h(nextCell[j]);
          }
          cell = nextCell;
        }
        state = next;
        for (int64_t j = 0; j < hidden; ++j)
          result.y.data[batchFirst ? ((n * steps + t) * directions + d) * hidden + j
                                   : ((t * directions + d) * batch + n) * hidden + j] = state[j];
      }
      for (int64_t j = 0; j < hidden; ++j) {
        result.yH.data[stateIndex(d, n, j)] = state[j];
        result.yC.data[stateIndex(d, n, j)] = cell[j];
      }
    }
  }
  return result;
}
