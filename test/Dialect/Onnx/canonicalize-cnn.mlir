// RUN: pimc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(onnx-canonicalize))' | FileCheck %s

// The BN parameters are chosen so that every value is exact in binary:
// epsilon 0.25 and var [3.75, 0] give sqrt(var + eps) = [2, 0.5], so the
// per-channel factor s = scale / sqrt(var + eps) = [1 / 2, 2 / 0.5] = [0.5, 4].
// Folded into the conv: w' = w * s = [[1, 2] * 0.5, [3, -1] * 4]
// = [[0.5, 1], [12, -4]], and b' = (b - mean) * s + beta
// = [(1 - 1) * 0.5 + 0.5, (-1 - 2) * 4 + 0] = [0.5, -12].
// CHECK-LABEL: func @fold_batch_norm_into_conv
// CHECK-DAG: %[[W:.*]] = onnx.Constant dense<{{\[\[\[\[}}5.000000e-01, 1.000000e+00]]], {{\[\[\[}}1.200000e+01, -4.000000e+00]]]]> : tensor<2x1x1x2xf32>
// CHECK-DAG: %[[B:.*]] = onnx.Constant dense<[5.000000e-01, -1.200000e+01]> : tensor<2xf32>
// CHECK: %[[Y:.*]] = onnx.Conv %arg0, %[[W]], %[[B]] {{.*}} : (tensor<1x1x3x3xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x2x3x2xf32>
// CHECK-NOT: onnx.BatchNormalization
// CHECK: return %[[Y]]
func.func @fold_batch_norm_into_conv(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x3x2xf32> {
  %w = onnx.Constant dense<[[[[1.0, 2.0]]], [[[3.0, -1.0]]]]> : tensor<2x1x1x2xf32> : tensor<2x1x1x2xf32>
  %b = onnx.Constant dense<[1.0, -1.0]> : tensor<2xf32> : tensor<2xf32>
  %scale = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %beta = onnx.Constant dense<[0.5, 0.0]> : tensor<2xf32> : tensor<2xf32>
  %mean = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %var = onnx.Constant dense<[3.75, 0.0]> : tensor<2xf32> : tensor<2xf32>
  %c = onnx.Conv %x, %w, %b : (tensor<1x1x3x3xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x2x3x2xf32>
  %y = onnx.BatchNormalization %c, %scale, %beta, %mean, %var {epsilon = 0.25 : f32} : (tensor<1x2x3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x2xf32>
  return %y : tensor<1x2x3x2xf32>
}

// -----

// A conv without a bias gets one: b' = beta - mean * s = [0, -8]. Each
// output channel is scaled on its own, also in a grouped (depthwise) conv,
// whose group survives the rewrite.
// CHECK-LABEL: func @fold_batch_norm_into_grouped_conv
// CHECK-DAG: %[[W:.*]] = onnx.Constant dense<{{\[\[\[\[}}5.000000e-01]]], {{\[\[\[}}1.200000e+01]]]]> : tensor<2x1x1x1xf32>
// CHECK-DAG: %[[B:.*]] = onnx.Constant dense<[0.000000e+00, -8.000000e+00]> : tensor<2xf32>
// CHECK: onnx.Conv %arg0, %[[W]], %[[B]] {{{.*}}group = 2 : i64{{.*}}} : (tensor<1x2x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NOT: onnx.BatchNormalization
func.func @fold_batch_norm_into_grouped_conv(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = onnx.Constant dense<[[[[1.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32> : tensor<2x1x1x1xf32>
  %scale = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %beta = onnx.Constant dense<[0.5, 0.0]> : tensor<2xf32> : tensor<2xf32>
  %mean = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %var = onnx.Constant dense<[3.75, 0.0]> : tensor<2xf32> : tensor<2xf32>
  %c = onnx.Conv %x, %w {group = 2 : i64} : (tensor<1x2x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %y = onnx.BatchNormalization %c, %scale, %beta, %mean, %var {epsilon = 0.25 : f32} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// A BatchNormalization of anything but a conv is x * s + t per channel, with
// s = [0.5, 4] as above and t = beta - mean * s = [0.5 - 0.5, 0 - 8] = [0, -8],
// as [C, 1, 1] constants that broadcast over H and W.
// CHECK-LABEL: func @batch_norm_to_affine
// CHECK-DAG: %[[S:.*]] = onnx.Constant dense<{{\[\[\[}}5.000000e-01]], {{\[\[}}4.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK-DAG: %[[T:.*]] = onnx.Constant dense<{{\[\[\[}}0.000000e+00]], {{\[\[}}-8.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK: %[[M:.*]] = onnx.Mul %arg0, %[[S]] : (tensor<1x2x2x2xf32>, tensor<2x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK: %[[A:.*]] = onnx.Add %[[M]], %[[T]] : (tensor<1x2x2x2xf32>, tensor<2x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK: return %[[A]]
func.func @batch_norm_to_affine(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %scale = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %beta = onnx.Constant dense<[0.5, 0.0]> : tensor<2xf32> : tensor<2xf32>
  %mean = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %var = onnx.Constant dense<[3.75, 0.0]> : tensor<2xf32> : tensor<2xf32>
  %y = onnx.BatchNormalization %x, %scale, %beta, %mean, %var {epsilon = 0.25 : f32} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// Of an [N, C] input the constants are plain [C] rows.
// CHECK-LABEL: func @batch_norm_2d
// CHECK-DAG: %[[S:.*]] = onnx.Constant dense<[5.000000e-01, 4.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[T:.*]] = onnx.Constant dense<[0.000000e+00, -8.000000e+00]> : tensor<2xf32>
// CHECK: %[[M:.*]] = onnx.Mul %arg0, %[[S]] : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
// CHECK: onnx.Add %[[M]], %[[T]] : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
func.func @batch_norm_2d(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %scale = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %beta = onnx.Constant dense<[0.5, 0.0]> : tensor<2xf32> : tensor<2xf32>
  %mean = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %var = onnx.Constant dense<[3.75, 0.0]> : tensor<2xf32> : tensor<2xf32>
  %y = onnx.BatchNormalization %x, %scale, %beta, %mean, %var {epsilon = 0.25 : f32} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// A conv whose result is also used elsewhere keeps its weights: the
// BatchNormalization becomes the affine form after it.
// CHECK-LABEL: func @batch_norm_of_shared_conv
// CHECK-DAG: %[[W:.*]] = onnx.Constant dense<{{\[\[\[\[}}1.000000e+00]]], {{\[\[\[}}3.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK: %[[C:.*]] = onnx.Conv %arg0, %[[W]] {{.*}} -> tensor<1x2x2x2xf32>
// CHECK: %[[M:.*]] = onnx.Mul %[[C]], %{{.*}} : (tensor<1x2x2x2xf32>, tensor<2x1x1xf32>)
// CHECK: %[[A:.*]] = onnx.Add %[[M]], %{{.*}} : (tensor<1x2x2x2xf32>, tensor<2x1x1xf32>)
// CHECK: return %[[A]], %[[C]]
func.func @batch_norm_of_shared_conv(%x: tensor<1x1x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = onnx.Constant dense<[[[[1.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32> : tensor<2x1x1x1xf32>
  %scale = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %beta = onnx.Constant dense<[0.5, 0.0]> : tensor<2xf32> : tensor<2xf32>
  %mean = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %var = onnx.Constant dense<[3.75, 0.0]> : tensor<2xf32> : tensor<2xf32>
  %c = onnx.Conv %x, %w : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %y = onnx.BatchNormalization %c, %scale, %beta, %mean, %var {epsilon = 0.25 : f32} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %y, %c : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// The instruction set has no division: x / c is x * (1 / c).
// CHECK-LABEL: func @divide_by_constant
// CHECK: %[[R:.*]] = onnx.Constant dense<[5.000000e-01, 2.500000e-01, -2.000000e+00]> : tensor<3xf32>
// CHECK: %[[M:.*]] = onnx.Mul %arg0, %[[R]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: onnx.Div
// CHECK: return %[[M]]
func.func @divide_by_constant(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = onnx.Constant dense<[2.0, 4.0, -0.5]> : tensor<3xf32> : tensor<3xf32>
  %y = onnx.Div %x, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// A constant divided by computed data has no reciprocal to take: it stays a
// Div (which lowering then rejects).
// CHECK-LABEL: func @divide_constant_by_data
// CHECK: onnx.Div %{{.*}}, %arg0 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @divide_constant_by_data(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = onnx.Constant dense<[2.0, 4.0, -0.5]> : tensor<3xf32> : tensor<3xf32>
  %y = onnx.Div %c, %x : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Every window attribute is made explicit: the kernel from the weights,
// strides and dilations 1, pads 0.
// CHECK-LABEL: func @conv_defaults
// CHECK: onnx.Conv %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x5x6xf32>, tensor<1x1x3x2xf32>) -> tensor<1x1x3x5xf32>
func.func @conv_defaults(%x: tensor<1x1x5x6xf32>, %w: tensor<1x1x3x2xf32>) -> tensor<1x1x3x5xf32> {
  %y = onnx.Conv %x, %w : (tensor<1x1x5x6xf32>, tensor<1x1x3x2xf32>) -> tensor<1x1x3x5xf32>
  return %y : tensor<1x1x3x5xf32>
}

// -----

// SAME_UPPER: ceil(in / stride) outputs; the padding they need, odd ones
// with the extra at the end. H: 5 rows, kernel 3, stride 2: 3 outputs need
// (3 - 1) * 2 + 3 - 5 = 2 -> 1 + 1. W: 6, kernel 2, stride 2: 3 outputs
// need (3 - 1) * 2 + 2 - 6 = 0.
// CHECK-LABEL: func @same_upper
// CHECK: onnx.Conv {{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 2>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 2, 2>} : (tensor<1x1x5x6xf32>, tensor<1x1x3x2xf32>) -> tensor<1x1x3x3xf32>
// CHECK-NOT: auto_pad
func.func @same_upper(%x: tensor<1x1x5x6xf32>, %w: tensor<1x1x3x2xf32>) -> tensor<1x1x3x3xf32> {
  %y = onnx.Conv %x, %w {auto_pad = "SAME_UPPER", strides = array<i64: 2, 2>} : (tensor<1x1x5x6xf32>, tensor<1x1x3x2xf32>) -> tensor<1x1x3x3xf32>
  return %y : tensor<1x1x3x3xf32>
}

// -----

// SAME_LOWER puts the odd extra at the beginning. H: kernel 2 over 4 rows
// needs 1 -> (1, 0); W: kernel 4 needs 3 -> (2, 1).
// CHECK-LABEL: func @same_lower
// CHECK: onnx.MaxPool %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 4>, pads = array<i64: 1, 2, 0, 1>, strides = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
func.func @same_lower(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %y = onnx.MaxPool %x {auto_pad = "SAME_LOWER", kernel_shape = array<i64: 2, 4>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %y : tensor<1x1x4x4xf32>
}

// -----

// The extent of a dilated kernel counts: H: kernel 2, dilation 2 spans 3
// rows and needs 2 -> (1, 1); W: kernel 2 needs 1 -> (0, 1).
// CHECK-LABEL: func @same_upper_dilated
// CHECK: onnx.Conv {{.*}} {dilations = array<i64: 2, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 1>, strides = array<i64: 1, 1>}
func.func @same_upper_dilated(%x: tensor<1x1x5x5xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x1x5x5xf32> {
  %y = onnx.Conv %x, %w {auto_pad = "SAME_UPPER", dilations = array<i64: 2, 1>} : (tensor<1x1x5x5xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x5x5xf32>
  return %y : tensor<1x1x5x5xf32>
}

// -----

// The spatial sizes of a channels_last window are the middle dimensions.
// CHECK-LABEL: func @same_upper_channels_last
// CHECK: onnx.MaxPool %{{.*}} {channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 2>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 2, 2>} : (tensor<1x5x6x2xf32>) -> tensor<1x3x3x2xf32>
func.func @same_upper_channels_last(%x: tensor<1x5x6x2xf32>) -> tensor<1x3x3x2xf32> {
  %y = onnx.MaxPool %x {auto_pad = "SAME_UPPER", channels_last, kernel_shape = array<i64: 3, 2>, strides = array<i64: 2, 2>} : (tensor<1x5x6x2xf32>) -> tensor<1x3x3x2xf32>
  return %y : tensor<1x3x3x2xf32>
}

// -----

// VALID is no padding; AveragePool gets no dilations.
// CHECK-LABEL: func @valid
// CHECK: onnx.AveragePool %{{.*}} {kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
func.func @valid(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %y = onnx.AveragePool %x {auto_pad = "VALID", kernel_shape = array<i64: 3, 3>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %y : tensor<1x1x2x2xf32>
}

// -----

// Weights that are not constants cannot absorb the normalization: it
// becomes the multiplication and addition by s = [0.5, 4] and
// beta - mean * s = [0, -8] instead.
// CHECK-LABEL: func @batch_norm_after_conv_with_variable_weights
// CHECK-DAG: %[[S:.*]] = onnx.Constant dense<{{\[\[\[}}5.000000e-01]], {{\[\[}}4.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK-DAG: %[[T:.*]] = onnx.Constant dense<{{\[\[\[}}0.000000e+00]], {{\[\[}}-8.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK: %[[C:.*]] = onnx.Conv %arg0, %arg1
// CHECK: %[[M:.*]] = onnx.Mul %[[C]], %[[S]]
// CHECK: onnx.Add %[[M]], %[[T]]
// CHECK-NOT: onnx.BatchNormalization
func.func @batch_norm_after_conv_with_variable_weights(%x: tensor<1x1x3x3xf32>, %w: tensor<2x1x1x2xf32>) -> tensor<1x2x3x2xf32> {
  %scale = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %beta = onnx.Constant dense<[0.5, 0.0]> : tensor<2xf32> : tensor<2xf32>
  %mean = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %var = onnx.Constant dense<[3.75, 0.0]> : tensor<2xf32> : tensor<2xf32>
  %c = onnx.Conv %x, %w : (tensor<1x1x3x3xf32>, tensor<2x1x1x2xf32>) -> tensor<1x2x3x2xf32>
  %y = onnx.BatchNormalization %c, %scale, %beta, %mean, %var {epsilon = 0.25 : f32} : (tensor<1x2x3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x2xf32>
  return %y : tensor<1x2x3x2xf32>
}
