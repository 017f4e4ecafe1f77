//===- Kernels.cpp - reference f32 kernels --------------------------------===//
//
// Plain loops written to be obviously correct rather than fast: broadcasts
// and transposes materialize their result, and products accumulate in double.
//
//===----------------------------------------------------------------------===//

#include "pimc/Reference/Reference.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cassert>
#include <cmath>
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

llvm::Expected<Tensor> ref::add(const Tensor &a, const Tensor &b) {
  llvm::Expected<std::vector<int64_t>> shape = broadcastShape(a.shape, b.shape);
  if (!shape)
    return shape.takeError();
  Tensor sum = llvm::cantFail(broadcastTo(a, *shape));
  Tensor y = llvm::cantFail(broadcastTo(b, *shape));
  for (size_t i = 0; i < sum.data.size(); ++i)
    sum.data[i] += y.data[i];
  return sum;
}

// `x < 0 ? 0 : x` rather than max(x, 0): NaN propagates, as in numpy.
Tensor ref::relu(const Tensor &x) {
  return elementwise(x, [](float v) { return v < 0 ? 0.0f : v; });
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

Tensor ref::transpose(const Tensor &x, llvm::ArrayRef<int64_t> perm) {
  assert(perm.size() == x.shape.size() && "perm does not match the rank");
  std::vector<int64_t> xStrides = stridesOf(x.shape);
  std::vector<int64_t> shape(perm.size()), strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    shape[i] = x.shape[perm[i]];
    strides[i] = xStrides[perm[i]];
  }
  return gather(x, std::move(shape), strides);
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
