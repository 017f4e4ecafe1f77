// RUN: pimc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(onnx-canonicalize,onnx-channels-last,onnx-canonicalize))' | FileCheck %s

// Stage 1 as the driver runs it. A classifier head: the Transpose back to
// NCHW after the global pool only moves unit dimensions, so it is a Reshape
// that joins the Flatten's; the one Transpose left is the model input's.
// CHECK-LABEL: func @classifier_head
// CHECK: %[[X:.*]] = onnx.Transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK: %[[C:.*]] = onnx.Conv %[[X]], %{{.*}} {channels_last, {{.*}}} : (tensor<1x2x2x2xf32>, tensor<3x2x1x1xf32>) -> tensor<1x2x2x3xf32>
// CHECK: %[[G:.*]] = onnx.GlobalAveragePool %[[C]] {channels_last} : (tensor<1x2x2x3xf32>) -> tensor<1x1x1x3xf32>
// CHECK: %[[F:.*]] = onnx.Reshape %[[G]], %{{.*}} : (tensor<1x1x1x3xf32>, tensor<2xi64>) -> tensor<1x3xf32>
// CHECK: onnx.Gemm %[[F]], %{{.*}} : (tensor<1x3xf32>, tensor<3x2xf32>) -> tensor<1x2xf32>
// CHECK-NOT: onnx.Transpose
func.func @classifier_head(%x: tensor<1x2x2x2xf32>) -> tensor<1x2xf32> {
  %w = onnx.Constant dense<1.0> : tensor<3x2x1x1xf32> : tensor<3x2x1x1xf32>
  %y = onnx.Conv %x, %w : (tensor<1x2x2x2xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x2x2xf32>
  %g = onnx.GlobalAveragePool %y : (tensor<1x3x2x2xf32>) -> tensor<1x3x1x1xf32>
  %f = onnx.Flatten %g : (tensor<1x3x1x1xf32>) -> tensor<1x3xf32>
  %b = onnx.Constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32> : tensor<3x2xf32>
  %z = onnx.Gemm %f, %b : (tensor<1x3xf32>, tensor<3x2xf32>) -> tensor<1x2xf32>
  return %z : tensor<1x2xf32>
}

// -----

// Flatten of a feature map with a spatial extent: the Transpose sinks through
// the Relu and is absorbed by the Gemm, whose weight rows are permuted from
// (c, w) to (w, c) order: rows 1 and 2 swap.
// CHECK-LABEL: func @flatten_gemm
// CHECK-DAG: %[[B:.*]] = onnx.Constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [5.000000e+00, 6.000000e+00], [3.000000e+00, 4.000000e+00], [7.000000e+00, 8.000000e+00]]> : tensor<4x2xf32>
// CHECK: %[[C:.*]] = onnx.Conv {{.*}} {channels_last, {{.*}}} : (tensor<1x1x2x1xf32>, tensor<2x1x1x1xf32>) -> tensor<1x1x2x2xf32>
// CHECK: %[[R:.*]] = onnx.Relu %[[C]] : tensor<1x1x2x2xf32>
// CHECK: %[[F:.*]] = onnx.Reshape %[[R]], %{{.*}} : (tensor<1x1x2x2xf32>, tensor<2xi64>) -> tensor<1x4xf32>
// CHECK: onnx.Gemm %[[F]], %[[B]] : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
// CHECK-NOT: onnx.Transpose
func.func @flatten_gemm(%x: tensor<1x1x1x2xf32>) -> tensor<1x2xf32> {
  %w = onnx.Constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32> : tensor<2x1x1x1xf32>
  %b = onnx.Constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32> : tensor<4x2xf32>
  %y = onnx.Conv %x, %w : (tensor<1x1x1x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x1x2xf32>
  %r = onnx.Relu %y : tensor<1x2x1x2xf32>
  %f = onnx.Flatten %r : (tensor<1x2x1x2xf32>) -> tensor<1x4xf32>
  %g = onnx.Gemm %f, %b : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
  return %g : tensor<1x2xf32>
}

// -----

// A conv-BN-relu-pool stem: the BatchNormalization is folded into the conv
// before the layout changes, SAME_UPPER is resolved (3 rows, kernel 2,
// stride 2: 2 outputs need 1 row of padding, at the end), and the pools
// chain channels-last.
// CHECK-LABEL: func @stem
// CHECK-NOT: onnx.BatchNormalization
// CHECK: %[[X:.*]] = onnx.Transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x5x5x2xf32>
// CHECK: %[[C:.*]] = onnx.Conv %[[X]], %{{.*}}, %{{.*}} {channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x5x5x2xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>) -> tensor<1x3x3x2xf32>
// CHECK: %[[R:.*]] = onnx.Relu %[[C]]
// CHECK: %[[M:.*]] = onnx.MaxPool %[[R]] {channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x3x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK: %[[Y:.*]] = onnx.Transpose %[[M]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK: return %[[Y]]
func.func @stem(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x2x2xf32> {
  %w = onnx.Constant dense<1.0> : tensor<2x2x3x3xf32> : tensor<2x2x3x3xf32>
  %scale = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %beta = onnx.Constant dense<[0.5, 0.0]> : tensor<2xf32> : tensor<2xf32>
  %mean = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %var = onnx.Constant dense<[3.75, 0.0]> : tensor<2xf32> : tensor<2xf32>
  %c = onnx.Conv %x, %w {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %n = onnx.BatchNormalization %c, %scale, %beta, %mean, %var {epsilon = 0.25 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %r = onnx.Relu %n : tensor<1x2x3x3xf32>
  %m = onnx.MaxPool %r {auto_pad = "SAME_UPPER", kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>) -> tensor<1x2x2x2xf32>
  return %m : tensor<1x2x2x2xf32>
}
