//===- ReferenceTest.cpp - reference kernels and interpreter --------------===//

#include "pimc/Frontend/ShapeFolding.h"
#include "pimc/Reference/Reference.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <limits>
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

/// Every permutation of shapes with unit dimensions, dimensions that merge,
/// and dimensions longer than a tile: each element lands where the
/// definition y[i_0..i_n] = x[i_perm^-1...] puts it.
TEST(ReferenceKernels, TransposeAgreesWithItsDefinition) {
  std::vector<std::vector<int64_t>> shapes = {
      {70, 45}, {1, 33, 1, 40}, {3, 1, 5, 2}, {2, 3, 4, 5}, {37, 1, 65}};
  for (const std::vector<int64_t> &shape : shapes) {
    Tensor x = iota(shape);
    std::vector<int64_t> perm(shape.size());
    std::iota(perm.begin(), perm.end(), 0);
    do {
      Tensor y = transpose(x, perm);
      std::vector<int64_t> yStrides(shape.size(), 1);
      for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
        yStrides[d] = yStrides[d + 1] * y.shape[d + 1];
      // Walk x, computing where each element goes.
      std::vector<int64_t> index(shape.size(), 0);
      for (size_t flat = 0; flat < x.data.size(); ++flat) {
        int64_t at = 0;
        for (size_t d = 0; d < perm.size(); ++d)
          at += index[perm[d]] * yStrides[d];
        ASSERT_EQ(y.data[at], x.data[flat]);
        for (size_t d = shape.size(); d-- > 0;) {
          if (++index[d] < shape[d])
            break;
          index[d] = 0;
        }
      }
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
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

TEST(ReferenceKernels, SubMulDivBroadcast) {
  Tensor a({2, 2}, {1, 2, 3, 4}), b({2}, {2, 4});
  EXPECT_EQ(take(sub(a, b)).data, (std::vector<float>{-1, -2, 1, 0}));
  EXPECT_EQ(take(mul(a, b)).data, (std::vector<float>{2, 8, 6, 16}));
  EXPECT_EQ(take(div(a, b)).data, (std::vector<float>{0.5f, 0.5f, 1.5f, 1}));
  EXPECT_FALSE(errorMessage(div(a, Tensor::filled({3}, 1))).empty());
}

TEST(ReferenceKernels, ClipWithOneBoundAndLeakyRelu) {
  Tensor x({4}, {-2, 0.5f, 3, NAN});
  Tensor upper = clip(x, -INFINITY, 1);
  EXPECT_EQ(upper.data[0], -2);
  EXPECT_EQ(upper.data[1], 0.5f);
  EXPECT_EQ(upper.data[2], 1);
  EXPECT_TRUE(std::isnan(upper.data[3]));
  Tensor lower = clip(x, 0, INFINITY);
  EXPECT_EQ(lower.data[0], 0);
  EXPECT_EQ(lower.data[2], 3);
  // numpy.clip: a lower bound above the upper one yields the upper one.
  EXPECT_EQ(clip(x, 2, 1).data[0], 1);
  Tensor leaky = leakyRelu(x, 0.1f);
  EXPECT_FLOAT_EQ(leaky.data[0], -0.2f);
  EXPECT_EQ(leaky.data[2], 3);
  EXPECT_TRUE(std::isnan(leaky.data[3]));
}

TEST(ReferenceKernels, MaxMinPReluHardSigmoidAbs) {
  Tensor a({2, 2}, {-1, 2, NAN, 4});
  Tensor row({2}, {0, 3});
  EXPECT_EQ(take(maximum(a, row)).data[0], 0);
  EXPECT_EQ(take(maximum(a, row)).data[1], 3);
  EXPECT_TRUE(std::isnan(take(maximum(a, row)).data[2]));
  EXPECT_EQ(take(maximum(a, row)).data[3], 4);
  EXPECT_EQ(take(minimum(a, row)).data[0], -1);
  EXPECT_EQ(take(minimum(a, row)).data[1], 2);
  EXPECT_TRUE(std::isnan(take(minimum(a, row)).data[2]));
  EXPECT_EQ(take(minimum(a, row)).data[3], 3);
  // The slope broadcasts to x, never x to the slope.
  Tensor slope({2}, {0.5f, 2});
  Tensor x({2, 2}, {-2, -2, 3, -1});
  EXPECT_EQ(take(prelu(x, slope)).data, (std::vector<float>{-1, -4, 3, -2}));
  EXPECT_FALSE(errorMessage(prelu(slope, x)).empty());
  // 0.25 * x + 0.5: -4 -> -0.5 -> 0, 1 -> 0.75, 4 -> 1.5 -> 1.
  EXPECT_EQ(hardSigmoid(Tensor({3}, {-4, 1, 4}), 0.25f, 0.5f).data,
            (std::vector<float>{0, 0.75f, 1}));
  EXPECT_EQ(abs(Tensor({3}, {-2, 0, 3})).data, (std::vector<float>{2, 0, 3}));
}

TEST(ReferenceKernels, Reductions) {
  Tensor x({2, 3}, {1, -2, 3, -4, 5, 6});
  Tensor rows = take(reduce(x, {1}, true, Reduction::Sum));
  EXPECT_EQ(rows.shape, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(rows.data, (std::vector<float>{2, 7}));
  Tensor cols = take(reduce(x, {-2}, false, Reduction::Max));
  EXPECT_EQ(cols.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(cols.data, (std::vector<float>{1, 5, 6}));
  EXPECT_EQ(take(reduce(x, {0}, false, Reduction::Min)).data, (std::vector<float>{-4, -2, 3}));
  // Every axis: 1 + 4 + 9 + 16 + 25 + 36 = 91; |x| sums to 21; mean 9 / 6.
  Tensor all = take(reduce(x, {}, false, Reduction::SumSquare));
  EXPECT_TRUE(all.shape.empty());
  EXPECT_EQ(all.data, (std::vector<float>{91}));
  EXPECT_EQ(take(reduce(x, {}, true, Reduction::L1)).data, (std::vector<float>{21}));
  EXPECT_EQ(take(reduce(x, {0, 1}, true, Reduction::Mean)).data, (std::vector<float>{1.5f}));
  EXPECT_TRUE(std::isnan(
      take(reduce(Tensor({2}, {NAN, 1}), {}, true, Reduction::Max)).data[0]));
  EXPECT_FALSE(errorMessage(reduce(x, {2}, true, Reduction::Sum)).empty());
}

TEST(ReferenceKernels, ResolvePads) {
  // Input 5, kernel 2, stride 2: ceil(5 / 2) = 3 outputs need 1 pad.
  EXPECT_EQ(take(resolvePads({5}, {2}, {2}, {1}, {}, "SAME_UPPER")),
            (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(take(resolvePads({5}, {2}, {2}, {1}, {}, "SAME_LOWER")),
            (std::vector<int64_t>{1, 0}));
  // Kernel 3 dilated by 2 spans 5: 4 pads for 5 outputs at stride 1.
  EXPECT_EQ(take(resolvePads({5, 4}, {3, 1}, {1, 1}, {2, 1}, {}, "SAME_UPPER")),
            (std::vector<int64_t>{2, 0, 2, 0}));
  EXPECT_EQ(take(resolvePads({5}, {3}, {1}, {1}, {}, "VALID")),
            (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(take(resolvePads({5}, {3}, {1}, {1}, {2, 1}, "NOTSET")),
            (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(take(resolvePads({5}, {3}, {1}, {1}, {}, "NOTSET")),
            (std::vector<int64_t>{0, 0}));
  EXPECT_FALSE(
      errorMessage(resolvePads({5}, {3}, {1}, {1}, {}, "SAME")).empty());
  EXPECT_FALSE(
      errorMessage(resolvePads({5}, {3}, {0}, {1}, {}, "VALID")).empty());
  EXPECT_FALSE(
      errorMessage(resolvePads({5, 5}, {3}, {1}, {1}, {}, "VALID")).empty());
}

ConvAttrs convAttrs(size_t rank, int64_t stride, int64_t pad,
                    int64_t dilation = 1, int64_t groups = 1) {
  ConvAttrs attrs;
  attrs.strides.assign(rank, stride);
  attrs.dilations.assign(rank, dilation);
  attrs.pads.assign(2 * rank, pad);
  attrs.groups = groups;
  return attrs;
}

TEST(ReferenceKernels, ConvWithPaddingStrideAndBias) {
  Tensor x = iota({1, 1, 4, 4}); // x[r][c] = 4r + c
  Tensor w = iota({1, 1, 3, 3}); // w[i][j] = 3i + j
  Tensor b({1}, {1});
  Tensor y = take(conv(x, w, &b, convAttrs(2, /*stride=*/2, /*pad=*/1)));
  // (4 + 2 - 3) / 2 + 1 = 2 outputs per dimension; output (i, j) is
  // 1 + sum x[2i - 1 + k][2j - 1 + l] * w[k][l] over the k, l inside x.
  // (0, 0): x[0][0]w[1][1] + x[0][1]w[1][2] + x[1][0]w[2][1] + x[1][1]w[2][2]
  //       = 0 + 5 + 28 + 40.
  // (0, 1): rows 0-1 by columns 1-3 with w rows 1-2:
  //         1*3 + 2*4 + 3*5 + 5*6 + 6*7 + 7*8 = 154.
  // (1, 0): rows 1-3 by columns 0-1 with w columns 1-2:
  //         4*1 + 5*2 + 8*4 + 9*5 + 12*7 + 13*8 = 279.
  // (1, 1): rows 1-3 by columns 1-3, all of w: 438.
  EXPECT_EQ(y.shape, (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(y.data, (std::vector<float>{74, 155, 280, 439}));
  EXPECT_FALSE(errorMessage(conv(x, w, &b, convAttrs(1, 1, 0))).empty());
  EXPECT_FALSE(
      errorMessage(conv(x, iota({1, 2, 3, 3}), nullptr, convAttrs(2, 1, 0)))
          .empty());
}

TEST(ReferenceKernels, GroupedAndDepthwiseConv) {
  // Channels 0-1 feed filter 0, channels 2-3 filter 1.
  Tensor x({1, 4, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor w({2, 2, 1, 1}, {1, 10, 100, 1000});
  Tensor grouped =
      take(conv(x, w, nullptr, convAttrs(2, 1, 0, 1, /*groups=*/2)));
  EXPECT_EQ(grouped.shape, (std::vector<int64_t>{1, 2, 1, 2}));
  // [1, 2] + 10 * [3, 4]; 100 * [5, 6] + 1000 * [7, 8].
  EXPECT_EQ(grouped.data, (std::vector<float>{31, 42, 7500, 8600}));
  EXPECT_FALSE(
      errorMessage(conv(x, w, nullptr, convAttrs(2, 1, 0, 1, 3))).empty());

  // Depthwise, 1-D, two filters per channel: filter m reads channel m / 2.
  Tensor x1({1, 2, 3}, {1, 2, 3, 10, 20, 30});
  Tensor w1({4, 1, 2}, {1, 0, 0, 1, 1, 1, 2, -1});
  Tensor depthwise =
      take(conv(x1, w1, nullptr, convAttrs(1, 1, 0, 1, /*groups=*/2)));
  EXPECT_EQ(depthwise.shape, (std::vector<int64_t>{1, 4, 2}));
  EXPECT_EQ(depthwise.data, (std::vector<float>{1, 2, 2, 3, 30, 50, 0, 10}));
}

TEST(ReferenceKernels, DilatedAnd3DConv) {
  // Kernel 3 dilated by 2 spans 5 of 7: y[i] = x[i] + 2x[i + 2] + 3x[i + 4].
  Tensor x = iota({1, 1, 7});
  Tensor w({1, 1, 3}, {1, 2, 3});
  Tensor dilated =
      take(conv(x, w, nullptr, convAttrs(1, 1, 0, /*dilation=*/2)));
  EXPECT_EQ(dilated.shape, (std::vector<int64_t>{1, 1, 3}));
  EXPECT_EQ(dilated.data, (std::vector<float>{16, 22, 28}));

  // A 2x2x2 kernel of ones over a 2x2x3 volume: sums of 2x2x2 blocks.
  Tensor volume = iota({1, 1, 2, 2, 3});
  Tensor cube = take(conv(volume, Tensor::filled({1, 1, 2, 2, 2}, 1), nullptr,
                          convAttrs(3, 1, 0)));
  EXPECT_EQ(cube.shape, (std::vector<int64_t>{1, 1, 1, 1, 2}));
  // Block 0: 0+1+3+4+6+7+9+10; block 1 adds 1 to each of the 8.
  EXPECT_EQ(cube.data, (std::vector<float>{40, 48}));
}

TEST(ReferenceKernels, ConvTranspose) {
  // Input i adds x[i] * w[k] to position 2i + k of the full output:
  // [1, 10, 2, 20, 3, 30].
  Tensor x({1, 1, 3}, {1, 2, 3});
  Tensor w({1, 1, 2}, {1, 10});
  Tensor b({1}, {5});
  auto resolve = [](std::vector<int64_t> strides, std::vector<int64_t> pads,
                    std::vector<int64_t> outputPadding, std::vector<int64_t> outputShape,
                    llvm::StringRef autoPad = "NOTSET", int64_t groups = 1) {
    return take(resolveConvTranspose({3}, {2}, strides, {}, pads, outputPadding, outputShape,
                                     autoPad, groups));
  };
  Tensor full = take(convTranspose(x, w, nullptr, resolve({2}, {}, {}, {})));
  EXPECT_EQ(full.shape, (std::vector<int64_t>{1, 1, 6}));
  EXPECT_EQ(full.data, (std::vector<float>{1, 10, 2, 20, 3, 30}));
  // A begin pad drops the first output; the bias adds to every one.
  Tensor padded = take(convTranspose(x, w, &b, resolve({2}, {1, 0}, {}, {})));
  EXPECT_EQ(padded.data, (std::vector<float>{15, 7, 25, 8, 35}));
  // output_padding, and an output_shape one longer than the full output,
  // both add a last output that no input reaches.
  for (ConvTransposeAttrs attrs : {resolve({2}, {}, {1}, {}), resolve({2}, {}, {}, {7})})
    EXPECT_EQ(take(convTranspose(x, w, nullptr, attrs)).data,
              (std::vector<float>{1, 10, 2, 20, 3, 30, 0}));
  // SAME_UPPER: 3 * 2 outputs, the full output here.
  EXPECT_EQ(resolve({2}, {}, {}, {}, "SAME_UPPER").output, (std::vector<int64_t>{6}));
  // Stride 1: y[t] = x[t] + 10 x[t - 1].
  EXPECT_EQ(take(convTranspose(x, w, nullptr, resolve({1}, {}, {}, {}))).data,
            (std::vector<float>{1, 12, 23, 30}));
  // Two groups of one channel: W is [C, M / group, K].
  Tensor x2({1, 2, 1}, {1, 2});
  Tensor w2({2, 1, 1}, {3, 4});
  ConvTransposeAttrs grouped =
      take(resolveConvTranspose({1}, {1}, {}, {}, {}, {}, {}, "NOTSET", 2));
  EXPECT_EQ(take(convTranspose(x2, w2, nullptr, grouped)).data, (std::vector<float>{3, 8}));
  EXPECT_FALSE(errorMessage(resolveConvTranspose({3}, {2}, {2}, {}, {}, {2}, {}, "NOTSET", 1))
                   .empty());
}

PoolAttrs poolAttrs(std::vector<int64_t> kernel, int64_t stride,
                    std::vector<int64_t> pads, bool ceilMode = false,
                    bool countIncludePad = false) {
  PoolAttrs attrs;
  attrs.strides.assign(kernel.size(), stride);
  attrs.dilations.assign(kernel.size(), 1);
  attrs.pads = std::move(pads);
  attrs.kernel = std::move(kernel);
  attrs.ceilMode = ceilMode;
  attrs.countIncludePad = countIncludePad;
  return attrs;
}

TEST(ReferenceKernels, MaxPoolWithPadsAndCeilMode) {
  Tensor x = iota({1, 1, 4, 4}); // x[r][c] = 4r + c
  // Kernel 2, stride 2, one pad at each begin: (4 + 1 - 2) / 2 = 1.5, so
  // 2 outputs rounding down and 3 rounding up. The windows cover rows (and
  // columns) {-1, 0}, {1, 2} and {3, 4}, of which {0}, {1, 2} and {3} exist.
  Tensor floor = take(maxPool(x, poolAttrs({2, 2}, 2, {1, 1, 0, 0})));
  EXPECT_EQ(floor.shape, (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(floor.data, (std::vector<float>{0, 2, 8, 10}));
  Tensor ceil = take(maxPool(x, poolAttrs({2, 2}, 2, {1, 1, 0, 0}, true)));
  EXPECT_EQ(ceil.shape, (std::vector<int64_t>{1, 1, 3, 3}));
  EXPECT_EQ(ceil.data, (std::vector<float>{0, 2, 3, 8, 10, 11, 12, 14, 15}));
  // With the pad at the end instead, the third window would start in the
  // padding: it is dropped.
  Tensor row({1, 1, 4}, {1, 2, 3, 4});
  Tensor dropped = take(maxPool(row, poolAttrs({2}, 2, {0, 1}, true)));
  EXPECT_EQ(dropped.shape, (std::vector<int64_t>{1, 1, 2}));
  EXPECT_EQ(dropped.data, (std::vector<float>{2, 4}));
  // Padding never wins, even over negative values.
  Tensor negative = take(maxPool(scale(row, -1), poolAttrs({2}, 2, {1, 1})));
  EXPECT_EQ(negative.data, (std::vector<float>{-1, -2, -4}));
  EXPECT_FALSE(errorMessage(maxPool(row, poolAttrs({5}, 1, {0, 0}))).empty());
}

TEST(ReferenceKernels, AveragePoolCountIncludePad) {
  Tensor x({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  // Kernel 2, stride 1, one pad at each begin: the corner window holds x[0][0]
  // and three pads, the next one x[0][0] and x[0][1] and two pads.
  PoolAttrs attrs = poolAttrs({2, 2}, 1, {1, 1, 0, 0});
  Tensor excluded = take(averagePool(x, attrs));
  ASSERT_EQ(excluded.shape, (std::vector<int64_t>{1, 1, 3, 3}));
  EXPECT_EQ(excluded.data[0], 1);
  EXPECT_EQ(excluded.data[1], 1.5f);
  EXPECT_EQ(excluded.data[4], 3); // (1 + 2 + 4 + 5) / 4, no padding
  attrs.countIncludePad = true;
  Tensor included = take(averagePool(x, attrs));
  EXPECT_EQ(included.data[0], 0.25f);
  EXPECT_EQ(included.data[1], 0.75f);
  EXPECT_EQ(included.data[4], 3);
  // In ceil mode a window may reach past the padded input, and only what is
  // inside counts: with an end pad the second window holds 3 and the pad,
  // without one it holds only 3.
  Tensor row({1, 1, 3}, {1, 2, 3});
  EXPECT_EQ(take(averagePool(row, poolAttrs({2}, 2, {0, 1}, true, true))).data,
            (std::vector<float>{1.5f, 1.5f}));
  EXPECT_EQ(take(averagePool(row, poolAttrs({2}, 2, {0, 0}, true, true))).data,
            (std::vector<float>{1.5f, 3}));
  EXPECT_EQ(take(averagePool(row, poolAttrs({2}, 2, {0, 1}, true))).data,
            (std::vector<float>{1.5f, 3}));
}

TEST(ReferenceKernels, GlobalPools) {
  Tensor x = iota({1, 2, 2, 2});
  Tensor average = take(globalAveragePool(x));
  EXPECT_EQ(average.shape, (std::vector<int64_t>{1, 2, 1, 1}));
  EXPECT_EQ(average.data, (std::vector<float>{1.5f, 5.5f}));
  EXPECT_EQ(take(globalMaxPool(x)).data, (std::vector<float>{3, 7}));
  EXPECT_FALSE(errorMessage(globalMaxPool(iota({2, 3}))).empty());
}

TEST(ReferenceKernels, BatchNorm) {
  Tensor x({1, 2, 1, 2}, {1, 2, 3, 4});
  Tensor scale({2}, {2, 1}), bias({2}, {0, 1}), mean({2}, {1, 3});
  Tensor variance({2}, {3.99f, 0.99f});
  // Channel 0: 2 * (x - 1) / 2 + 0; channel 1: (x - 3) / 1 + 1.
  Tensor y = take(batchNorm(x, scale, bias, mean, variance, 0.01f));
  ASSERT_EQ(y.shape, x.shape);
  for (int i = 0; i < 4; ++i)
    EXPECT_FLOAT_EQ(y.data[i], (std::vector<float>{0, 1, 1, 2})[i]) << i;
  EXPECT_FALSE(errorMessage(batchNorm(x, Tensor({3}, {1, 1, 1}), bias, mean,
                                      variance, 0))
                   .empty());
}

TEST(ReferenceKernels, PadModes) {
  Tensor x({2, 3}, {1, 2, 3, 4, 5, 6});
  // Two columns before and one after, one row after.
  std::vector<int64_t> pads = {0, 2, 1, 1};
  Tensor reflected = take(pad(x, pads, "reflect", 0));
  EXPECT_EQ(reflected.shape, (std::vector<int64_t>{3, 6}));
  EXPECT_EQ(reflected.data, (std::vector<float>{3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6,
                                                5, 3, 2, 1, 2, 3, 2}));
  Tensor edge = take(pad(x, pads, "edge", 0));
  EXPECT_EQ(edge.data, (std::vector<float>{1, 1, 1, 2, 3, 3, 4, 4, 4, 5, 6, 6,
                                           4, 4, 4, 5, 6, 6}));
  Tensor constant = take(pad(x, {0, -1, 0, 1}, "constant", 9));
  EXPECT_EQ(constant.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(constant.data, (std::vector<float>{2, 3, 9, 5, 6, 9}));
  // Cropping comes first: [3, 4] is reflected, not [0, 1, 2, 3, 4].
  Tensor cropped = take(pad(iota({5}), {-3, 3}, "reflect", 0));
  EXPECT_EQ(cropped.data, (std::vector<float>{3, 4, 3, 4, 3}));
  // Reflecting further than a dimension reflects again, as numpy does.
  EXPECT_EQ(take(pad(Tensor({2}, {1, 2}), {3, 0}, "reflect", 0)).data,
            (std::vector<float>{2, 1, 2, 1, 2}));
  EXPECT_FALSE(errorMessage(pad(x, {0, 0}, "edge", 0)).empty());
  EXPECT_FALSE(errorMessage(pad(x, {0, -4, 0, 0}, "edge", 0)).empty());
  EXPECT_FALSE(errorMessage(pad(x, pads, "wrap", 0)).empty());
}

TEST(ReferenceKernels, SqueezeAndUnsqueezeShapes) {
  Tensor x = iota({1, 3, 1, 2});
  EXPECT_EQ(take(squeeze(x, {})).shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(take(squeeze(x, {-2})).shape, (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(take(squeeze(x, {2, 0})).data, x.data);
  EXPECT_NE(errorMessage(squeeze(x, {1})).find("not 1"), std::string::npos);
  EXPECT_FALSE(errorMessage(squeeze(x, {0, -4})).empty());
  EXPECT_FALSE(errorMessage(squeeze(x, {4})).empty());
  Tensor y = iota({3, 2});
  EXPECT_EQ(take(unsqueeze(y, {0, -1})).shape,
            (std::vector<int64_t>{1, 3, 2, 1}));
  EXPECT_EQ(take(unsqueeze(y, {3, 1})).shape,
            (std::vector<int64_t>{3, 1, 2, 1}));
  EXPECT_FALSE(errorMessage(unsqueeze(y, {1, -3})).empty());
  EXPECT_FALSE(errorMessage(unsqueeze(y, {4})).empty());
}

TEST(ReferenceKernels, ConcatAtANegativeAxis) {
  Tensor a({2, 1}, {1, 2}), b({2, 2}, {3, 4, 5, 6});
  Tensor y = take(concat({a, b}, -1));
  EXPECT_EQ(y.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(y.data, (std::vector<float>{1, 3, 4, 2, 5, 6}));
  Tensor rows = take(concat({b, b}, -2));
  EXPECT_EQ(rows.shape, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(rows.data, (std::vector<float>{3, 4, 5, 6, 3, 4, 5, 6}));
  EXPECT_FALSE(errorMessage(concat({a, b}, 0)).empty());
  EXPECT_FALSE(errorMessage(concat({a, b}, 2)).empty());
  EXPECT_FALSE(errorMessage(concat({}, 0)).empty());
}

TEST(ReferenceKernels, SlicePositionsClampAndStepBackwards) {
  // [4, 10]: rows from -1 (3) down to before -5 (clamped to -1) by -2: 3, 1;
  // columns 1 to 8 by 3: 1, 4, 7.
  Positions positions = take(slicePositions({4, 10}, {-1, 1}, {-5, 8}, {0, 1}, {-2, 3}));
  EXPECT_EQ(positions, (Positions{{3, 1}, {1, 4, 7}}));
  // Axes default to the first ones, steps to 1; an end past the axis clamps.
  EXPECT_EQ(take(slicePositions({3, 2}, {1}, {100}, {}, {})), (Positions{{1, 2}, {0, 1}}));
  // A negative axis; an end of INT64_MIN walks back to the first element.
  EXPECT_EQ(take(slicePositions({3, 2}, {5}, {std::numeric_limits<int64_t>::min()}, {-2}, {-1})),
            (Positions{{2, 1, 0}, {0, 1}}));
  EXPECT_FALSE(errorMessage(slicePositions({3}, {0}, {1}, {}, {0})).empty());
  EXPECT_FALSE(errorMessage(slicePositions({3}, {0, 0}, {1, 1}, {0, 0}, {})).empty());
  Tensor y = pick(iota({4, 10}), positions);
  EXPECT_EQ(y.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(y.data, (std::vector<float>{31, 34, 37, 11, 14, 17}));
}

TEST(ReferenceKernels, SplitIntoGivenAndEqualLengths) {
  EXPECT_EQ(take(splitLengths(10, {3, 7}, 2)), (std::vector<int64_t>{3, 7}));
  EXPECT_EQ(take(splitLengths(7, {}, 3)), (std::vector<int64_t>{3, 3, 1}));
  EXPECT_FALSE(errorMessage(splitLengths(10, {3, 6}, 2)).empty());
  EXPECT_FALSE(errorMessage(splitLengths(2, {}, 3)).empty());
  std::vector<Tensor> parts = take(split(iota({2, 3}), -1, {1, 2}));
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].shape, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(parts[0].data, (std::vector<float>{0, 3}));
  EXPECT_EQ(parts[1].data, (std::vector<float>{1, 2, 4, 5}));
}

TEST(ReferenceKernels, ResizeLinearAndNearest) {
  // Half-pixel linear, 2 -> 4: output x reads input (x + 0.5) / 2 - 0.5 =
  // -0.25 (clamped to 0), 0.25, 0.75, 1.25 (clamped to 1).
  Tensor x({1, 2}, {1, 3});
  ResizeAttrs linear;
  linear.mode = "linear";
  Tensor y = take(resize(x, {1, 4}, {1, 2}, linear));
  EXPECT_EQ(y.data, (std::vector<float>{1, 1.5f, 2.5f, 3}));
  // Upsample's nearest: asymmetric, rounding down.
  ResizeAttrs nearest;
  nearest.coordinateMode = "asymmetric";
  nearest.nearestMode = "floor";
  EXPECT_EQ(take(resize(x, {1, 4}, {1, 2}, nearest)).data, (std::vector<float>{1, 1, 3, 3}));
  ResizeWeights weights = take(resizeWeights(2, 4, 2, nearest));
  EXPECT_EQ(weights[1], (std::vector<std::pair<int64_t, double>>{{0, 1.0}}));
  ResizeAttrs crop;
  crop.coordinateMode = "tf_crop_and_resize";
  EXPECT_FALSE(errorMessage(resizeWeights(2, 4, 2, crop)).empty());
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
      runWith([](frontend::Model &m) { m.graph.nodes[4].opType = "Einsum"; });
  EXPECT_NE(unsupported.find("Einsum #4"), std::string::npos) << unsupported;
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

/// Node tests of operators the reference interpreter covers. The prefixes
/// "test_conv_" and "test_basic_conv_" leave out ConvInteger; "test_constant" alone is Constant (test_constant_pad is Pad,
/// test_constantofshape_* another operator).
bool isCovered(llvm::StringRef name) {
  static const char *const kPrefixes[] = {
      "test_gemm",          "test_matmul",
      "test_add",           "test_relu",
      "test_sigmoid",       "test_tanh",
      "test_flatten",       "test_reshape",
      "test_identity",      "test_transpose",
      "test_dropout",       "test_conv_",         "test_convtranspose",
      "test_basic_conv_",   "test_maxpool",
      "test_averagepool",   "test_globalaveragepool",
      "test_globalmaxpool", "test_batchnorm",
      "test_concat",        "test_sub",
      "test_mul",           "test_div",
      "test_clip",          "test_leakyrelu",
      "test_constant_pad",  "test_edge_pad",
      "test_reflect_pad",   "test_squeeze",
      "test_unsqueeze",     "test_abs",
      "test_max_",          "test_min_",
      "test_sum_",          "test_mean_",
      "test_prelu",         "test_hardsigmoid",
      "test_hardswish",     "test_reduce_sum_",
      "test_reduce_mean_",  "test_reduce_max_",
      "test_reduce_min_",   "test_reduce_l1_",    "test_reduce_prod_",
      "test_slice",         "test_split",
      "test_gather_0",      "test_gather_1",
      "test_gather_2d",     "test_gather_negative",
      "test_expand",        "test_tile",
      "test_depthtospace",  "test_spacetodepth",
      "test_resize_",       "test_upsample_nearest",
      "test_range_float_type_positive_delta",
      "test_constantofshape_float_ones",
      "test_rnn_",          "test_simple_rnn_",
      "test_gru_",          "test_lstm_"};
  return name == "test_constant" || name == "test_neg" || name == "test_neg_example" ||
         (!name.starts_with("test_matmulinteger") &&
          llvm::any_of(kPrefixes,
                       [&](const char *p) { return name.starts_with(p); }));
}

/// Covered node tests the reference rejects, and what the error must say.
const std::map<std::string, std::string> kExpectedErrors = {
    {"test_add_uint8", "has type uint8"},
    {"test_batchnorm_epsilon_training_mode", "training_mode is unsupported"},
    {"test_batchnorm_example_training_mode", "training_mode is unsupported"},
    {"test_clip_default_int8_inbounds", "has type int8"},
    {"test_clip_default_int8_max", "has type int8"},
    {"test_clip_default_int8_min", "has type int8"},
    {"test_div_uint8", "has type uint8"},
    {"test_dropout_default_mask", "mask output is unsupported"},
    {"test_dropout_default_mask_ratio", "mask output is unsupported"},
    // int32 data in onnx 1.12; PadMatchesIntegerNodeTests checks it.
    {"test_edge_pad", "has type int32"},
    {"test_identity_opt", "is not a tensor"},
    {"test_identity_sequence", "is not a tensor"},
    {"test_maxpool_2d_uint8", "has type uint8"},
    {"test_maxpool_with_argmax_2d_precomputed_pads",
     "Indices output is unsupported"},
    {"test_maxpool_with_argmax_2d_precomputed_strides",
     "Indices output is unsupported"},
    {"test_mul_uint8", "has type uint8"},
    // Its Loop has a graph: control flow is refused as the model is read.
    {"test_range_float_type_positive_delta_expanded",
     "node Loop #8: attribute 'body' is a graph; pimc supports no control flow"},
    {"test_resize_tf_crop_and_resize",
     "coordinate_transformation_mode 'tf_crop_and_resize' is not supported"},
    {"test_reflect_pad", "has type int32"},
    {"test_sub_uint8", "has type uint8"},
    {"test_max_float16", "has type float16"},
    {"test_max_float64", "has type double"},
    {"test_max_int8", "has type int8"},
    {"test_max_int16", "has type int16"},
    {"test_max_int32", "has type int32"},
    {"test_max_int64", "has type int64"},
    {"test_max_uint8", "has type uint8"},
    {"test_max_uint16", "has type uint16"},
    {"test_max_uint32", "has type uint32"},
    {"test_max_uint64", "has type uint64"},
    {"test_min_float16", "has type float16"},
    {"test_min_float64", "has type double"},
    {"test_min_int8", "has type int8"},
    {"test_min_int16", "has type int16"},
    {"test_min_int32", "has type int32"},
    {"test_min_int64", "has type int64"},
    {"test_min_uint8", "has type uint8"},
    {"test_min_uint16", "has type uint16"},
    {"test_min_uint32", "has type uint32"},
    {"test_min_uint64", "has type uint64"}};

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
    // TensorData holds no values of other types (int8 Clip bounds, uint8
    // divisors): they stay graph inputs, which run() rejects by type.
    if (data->dataType != frontend::kFloat && data->dataType != frontend::kInt64 &&
        data->dataType != frontend::kInt32)
      return std::nullopt;
    bound.push_back(k);
    return std::optional<frontend::TensorData>(std::move(*data));
  };
  llvm::Expected<frontend::Model> model =
      frontend::loadModel(dir + "/model.onnx", frontend::foldKnownNode, binder);
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

/// `data` (integer values) as a float tensor.
Tensor toFloat(const frontend::TensorData &data) {
  return Tensor(data.dims,
                std::vector<float>(data.ints.begin(), data.ints.end()));
}

// test_edge_pad and test_reflect_pad pad int32 tensors, which run() rejects;
// their small integers are exact in f32, so the kernel checks them directly.
TEST(ReferenceNodeTests, PadMatchesIntegerNodeTests) {
  for (auto [test, mode] : {std::pair{"test_edge_pad", "edge"},
                            std::pair{"test_reflect_pad", "reflect"}}) {
    std::string dir =
        formatv("{0}/{1}/test_data_set_0", PIMC_ONNX_NODE_TESTS, test).str();
    frontend::TensorData x =
        take(frontend::readTensorFile(dir + "/input_0.pb"));
    frontend::TensorData pads =
        take(frontend::readTensorFile(dir + "/input_1.pb"));
    frontend::TensorData y =
        take(frontend::readTensorFile(dir + "/output_0.pb"));
    ASSERT_EQ(x.dataType, frontend::kInt32) << test;
    Tensor padded = take(pad(toFloat(x), pads.ints, mode, 0));
    Comparison comparison = compare(padded, toFloat(y), 0, 0);
    EXPECT_TRUE(comparison.match) << test << ": " << comparison.message;
  }
}

// A missing test data package leaves the suite empty; say so plainly.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OnnxNodeTest);
TEST(ReferenceNodeTests, AreInstalled) {
  EXPECT_FALSE(coveredNodeTests().empty())
      << "no ONNX node tests under " PIMC_ONNX_NODE_TESTS;
}
} // namespace

namespace {
/// A relu RNN of one unit: W = 2, R = 0.5, Wb = 1 (both directions), over
/// X = [1, 2] (T = 2, B = 1).
RecurrentResult reluRnn(bool forward, bool reverse) {
  RecurrentAttrs attrs;
  attrs.hiddenSize = 1;
  attrs.forward = forward;
  attrs.reverse = reverse;
  int64_t directions = forward + reverse;
  attrs.activations.assign(directions, "Relu");
  Tensor x({2, 1, 1}, {1, 2});
  Tensor w = Tensor::filled({directions, 1, 1}, 2);
  Tensor r = Tensor::filled({directions, 1, 1}, 0.5);
  Tensor b({directions, 2}, std::vector<float>(directions == 2 ? 4 : 2, 0));
  for (int64_t d = 0; d < directions; ++d)
    b.data[2 * d] = 1;
  return take(recurrent(x, w, r, &b, nullptr, nullptr, nullptr, attrs));
}
} // namespace

TEST(ReferenceKernels, RnnForwardReverseAndBidirectional) {
  // Forward: h0 = relu(2 + 1) = 3, h1 = relu(4 + 1 + 0.5 * 3) = 6.5.
  RecurrentResult forward = reluRnn(true, false);
  EXPECT_EQ(forward.y.shape, (std::vector<int64_t>{2, 1, 1, 1}));
  EXPECT_EQ(forward.y.data, (std::vector<float>{3, 6.5}));
  EXPECT_EQ(forward.yH.data, (std::vector<float>{6.5}));
  // Reverse, from the last step: h1 = relu(4 + 1) = 5, h0 = relu(2 + 1 +
  // 0.5 * 5) = 5.5, which is Y_h.
  RecurrentResult reverse = reluRnn(false, true);
  EXPECT_EQ(reverse.y.data, (std::vector<float>{5.5, 5}));
  EXPECT_EQ(reverse.yH.data, (std::vector<float>{5.5}));
  // Both: Y is [T, D, B, H], Y_h [D, B, H].
  RecurrentResult both = reluRnn(true, true);
  EXPECT_EQ(both.y.shape, (std::vector<int64_t>{2, 2, 1, 1}));
  EXPECT_EQ(both.y.data, (std::vector<float>{3, 5.5, 6.5, 5}));
  EXPECT_EQ(both.yH.data, (std::vector<float>{6.5, 5.5}));
}

TEST(ReferenceKernels, GruLinearBeforeResetMovesTheRecurrentBias) {
  // z and r have zero weights: sigmoid(0) = 0.5. The candidate's W = 2,
  // R = 1, Rb = 2; x = 1, h = 2, activations sigmoid and relu.
  RecurrentAttrs attrs;
  attrs.cell = Cell::Gru;
  attrs.hiddenSize = 1;
  attrs.activations = {"Sigmoid", "Relu"};
  Tensor x({1, 1, 1}, {1});
  Tensor w({1, 3, 1}, {0, 0, 2});
  Tensor r({1, 3, 1}, {0, 0, 1});
  Tensor b({1, 6}, {0, 0, 0, 0, 0, 2});
  Tensor h({1, 1, 1}, {2});
  // n = relu(2 + (0.5 * 2) * 1 + 2) = 5; h = 0.5 * 5 + 0.5 * 2 = 3.5.
  RecurrentResult after = take(recurrent(x, w, r, &b, &h, nullptr, nullptr, attrs));
  EXPECT_EQ(after.yH.data, (std::vector<float>{3.5}));
  // n = relu(2 + 0.5 * (2 * 1 + 2)) = 4; h = 0.5 * 4 + 0.5 * 2 = 3.
  attrs.linearBeforeReset = true;
  RecurrentResult before = take(recurrent(x, w, r, &b, &h, nullptr, nullptr, attrs));
  EXPECT_EQ(before.yH.data, (std::vector<float>{3}));
}

TEST(ReferenceKernels, LstmCellStateAndBatchFirstLayout) {
  // Gates i, o, f have zero weights (0.5 each); the candidate's W = 2 with
  // relu: c = 0.5 * c0 + 0.5 * relu(2 x), h = 0.5 * relu(c). Two sequences
  // of one step, batch-first: x = 1 and 3, c0 = 4 and 0.
  RecurrentAttrs attrs;
  attrs.cell = Cell::Lstm;
  attrs.hiddenSize = 1;
  attrs.activations = {"Sigmoid", "Relu", "Relu"};
  attrs.layout = 1;
  Tensor x({2, 1, 1}, {1, 3});
  Tensor w({1, 4, 1}, {0, 0, 0, 2});
  Tensor r = Tensor::filled({1, 4, 1}, 0);
  Tensor c({2, 1, 1}, {4, 0});
  RecurrentResult result = take(recurrent(x, w, r, nullptr, nullptr, &c, nullptr, attrs));
  // c = 2 + 1 = 3 and 0 + 3 = 3; h = 1.5 both.
  EXPECT_EQ(result.y.shape, (std::vector<int64_t>{2, 1, 1, 1}));
  EXPECT_EQ(result.yC.data, (std::vector<float>{3, 3}));
  EXPECT_EQ(result.yH.data, (std::vector<float>{1.5, 1.5}));
  EXPECT_EQ(result.yH.shape, (std::vector<int64_t>{2, 1, 1}));
}

TEST(ReferenceKernels, RecurrentRejectsWrongShapesAndActivations) {
  RecurrentAttrs attrs;
  attrs.hiddenSize = 2;
  Tensor x({1, 1, 1}, {1});
  Tensor w = Tensor::filled({1, 2, 1}, 0), r = Tensor::filled({1, 2, 2}, 0);
  Tensor wrongR = Tensor::filled({1, 2, 1}, 0);
  EXPECT_NE(errorMessage(recurrent(x, w, wrongR, nullptr, nullptr, nullptr, nullptr, attrs))
                .find("R of shape [1, 2, 1] should have shape [1, 2, 2]"),
            std::string::npos);
  attrs.activations = {"Softsign"};
  EXPECT_NE(errorMessage(recurrent(x, w, r, nullptr, nullptr, nullptr, nullptr, attrs))
                .find("the activation Softsign is unsupported"),
            std::string::npos);
}
