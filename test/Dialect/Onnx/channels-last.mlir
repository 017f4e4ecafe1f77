// RUN: pimc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(onnx-channels-last))' | FileCheck %s

// A conv runs channels-last between a Transpose of its input to [N, H, W, C]
// and one of its result back to [N, C, H, W]; the weights keep their layout.
// CHECK-LABEL: func @conv
// CHECK: %[[X:.*]] = onnx.Transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x4x4x2xf32>
// CHECK: %[[C:.*]] = onnx.Conv %[[X]], %{{.*}} {channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x2x1x1xf32>) -> tensor<1x4x4x3xf32>
// CHECK: %[[Y:.*]] = onnx.Transpose %[[C]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x3xf32>) -> tensor<1x3x4x4xf32>
// CHECK: return %[[Y]]
func.func @conv(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %w = onnx.Constant dense<1.0> : tensor<3x2x1x1xf32> : tensor<3x2x1x1xf32>
  %y = onnx.Conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

// A 1-D conv: [N, C, W] <-> [N, W, C].
// CHECK-LABEL: func @conv_1d
// CHECK: onnx.Transpose %arg0 {perm = array<i64: 0, 2, 1>} : (tensor<1x2x5xf32>) -> tensor<1x5x2xf32>
// CHECK: onnx.Conv %{{.*}} {channels_last} : (tensor<1x5x2xf32>, tensor<3x2x1xf32>) -> tensor<1x5x3xf32>
// CHECK: onnx.Transpose %{{.*}} {perm = array<i64: 0, 2, 1>} : (tensor<1x5x3xf32>) -> tensor<1x3x5xf32>
func.func @conv_1d(%x: tensor<1x2x5xf32>) -> tensor<1x3x5xf32> {
  %w = onnx.Constant dense<1.0> : tensor<3x2x1xf32> : tensor<3x2x1xf32>
  %y = onnx.Conv %x, %w : (tensor<1x2x5xf32>, tensor<3x2x1xf32>) -> tensor<1x3x5xf32>
  return %y : tensor<1x3x5xf32>
}

// -----

// Two convs in a row: the Transpose back to NCHW after the first and the one
// to NHWC before the second are inverses and cancel.
// CHECK-LABEL: func @conv_conv
// CHECK: %[[X:.*]] = onnx.Transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT: %[[A:.*]] = onnx.Conv %[[X]], %{{.*}} {channels_last} : (tensor<1x3x3x2xf32>, tensor<4x2x1x1xf32>) -> tensor<1x3x3x4xf32>
// CHECK-NEXT: %[[B:.*]] = onnx.Conv %[[A]], %{{.*}} {channels_last} : (tensor<1x3x3x4xf32>, tensor<2x4x1x1xf32>) -> tensor<1x3x3x2xf32>
// CHECK-NEXT: %[[Y:.*]] = onnx.Transpose %[[B]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT: return %[[Y]]
func.func @conv_conv(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w1 = onnx.Constant dense<1.0> : tensor<4x2x1x1xf32> : tensor<4x2x1x1xf32>
  %w2 = onnx.Constant dense<1.0> : tensor<2x4x1x1xf32> : tensor<2x4x1x1xf32>
  %a = onnx.Conv %x, %w1 : (tensor<1x2x3x3xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x3x3xf32>
  %b = onnx.Conv %a, %w2 : (tensor<1x4x3x3xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %b : tensor<1x2x3x3xf32>
}

// -----

// Between two convs the Transposes sink through the Relu and the Add of a
// constant until the inverse pair meets and cancels: one Transpose is left at
// each end (each op reads the previous one directly). The [C, 1, 1] constant is transposed at compile time to
// [1, 1, 1, C].
// CHECK-LABEL: func @two_convs
// CHECK-DAG: %[[K:.*]] = onnx.Constant dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00]]]]> : tensor<1x1x1x3xf32>
// CHECK: %[[X:.*]] = onnx.Transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[A:.*]] = onnx.Conv %[[X]], %{{.*}} {channels_last} : (tensor<1x4x4x2xf32>, tensor<3x2x1x1xf32>) -> tensor<1x4x4x3xf32>
// CHECK: %[[R:.*]] = onnx.Relu %[[A]] : tensor<1x4x4x3xf32>
// CHECK: %[[S:.*]] = onnx.Add %[[R]], %[[K]] : (tensor<1x4x4x3xf32>, tensor<1x1x1x3xf32>) -> tensor<1x4x4x3xf32>
// CHECK: %[[B:.*]] = onnx.Conv %[[S]], %{{.*}}, %{{.*}} {channels_last} : (tensor<1x4x4x3xf32>, tensor<3x3x1x1xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
// CHECK: %[[Y:.*]] = onnx.Transpose %[[B]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: return %[[Y]]
func.func @two_convs(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %w = onnx.Constant dense<1.0> : tensor<3x2x1x1xf32> : tensor<3x2x1x1xf32>
  %w2 = onnx.Constant dense<1.0> : tensor<3x3x1x1xf32> : tensor<3x3x1x1xf32>
  %b = onnx.Constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32> : tensor<3xf32>
  %c = onnx.Constant dense<[[[1.0]], [[2.0]], [[3.0]]]> : tensor<3x1x1xf32> : tensor<3x1x1xf32>
  %y = onnx.Conv %x, %w : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  %r = onnx.Relu %y : tensor<1x3x4x4xf32>
  %a = onnx.Add %r, %c : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  %z = onnx.Conv %a, %w2, %b : (tensor<1x3x4x4xf32>, tensor<3x3x1x1xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  return %z : tensor<1x3x4x4xf32>
}

// -----

// A constant operand is brought into the channels-last order: [C, H, W] =
// [2, 2, 1] right-aligned to [1, 2, 2, 1], transposed to [1, H, W, C] =
// [1, 2, 1, 2]: c[ch][h] = [[1, 2], [3, 4]] becomes [h][ch] = [[1, 3], [2, 4]].
// CHECK-LABEL: func @mul_constant
// CHECK-DAG: %[[K:.*]] = onnx.Constant dense<{{\[\[\[\[}}1.000000e+00, 3.000000e+00]], {{\[\[}}2.000000e+00, 4.000000e+00]]]]> : tensor<1x2x1x2xf32>
// CHECK: %[[A:.*]] = onnx.Conv {{.*}} {channels_last} : (tensor<1x2x1x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x1x2xf32>
// CHECK: %[[M:.*]] = onnx.Mul %[[A]], %[[K]] : (tensor<1x2x1x2xf32>, tensor<1x2x1x2xf32>) -> tensor<1x2x1x2xf32>
// CHECK: onnx.Conv %[[M]], %{{.*}} {channels_last}
func.func @mul_constant(%x: tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32> {
  %w = onnx.Constant dense<1.0> : tensor<2x2x1x1xf32> : tensor<2x2x1x1xf32>
  %c = onnx.Constant dense<[[[1.0], [2.0]], [[3.0], [4.0]]]> : tensor<2x2x1xf32> : tensor<2x2x1xf32>
  %y = onnx.Conv %x, %w : (tensor<1x2x2x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x1xf32>
  %m = onnx.Mul %y, %c : (tensor<1x2x2x1xf32>, tensor<2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %z = onnx.Conv %m, %w : (tensor<1x2x2x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x1xf32>
  return %z : tensor<1x2x2x1xf32>
}

// -----

// A residual block: the Add of two transposed values, the LeakyRelu and the
// Clip (its scalar bounds untouched) are done channels-last, and so are the
// pools after them.
// CHECK-LABEL: func @residual_and_pools
// CHECK: %[[X:.*]] = onnx.Transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[A:.*]] = onnx.Conv %[[X]], %{{.*}} {channels_last}
// CHECK: %[[L:.*]] = onnx.LeakyRelu %[[A]] {alpha = 5.000000e-01 : f32} : tensor<1x3x3x2xf32>
// CHECK: %[[B:.*]] = onnx.Conv %[[L]], %{{.*}} {channels_last}
// CHECK: %[[S:.*]] = onnx.Add %[[A]], %[[B]] : (tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
// CHECK: %[[C:.*]] = onnx.Clip %[[S]] min %{{.*}} : tensor<f32> max %{{.*}} : tensor<f32> : tensor<1x3x3x2xf32> -> tensor<1x3x3x2xf32>
// CHECK: %[[M:.*]] = onnx.MaxPool %[[C]] {channels_last, kernel_shape = array<i64: 2, 2>} : (tensor<1x3x3x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK: %[[V:.*]] = onnx.AveragePool %[[M]] {channels_last, kernel_shape = array<i64: 2, 2>} : (tensor<1x2x2x2xf32>) -> tensor<1x1x1x2xf32>
// Between the pools of one pixel the pair of Transposes keeps the order of
// the elements: at most Reshapes are left (onnx-canonicalize folds them).
// CHECK-NOT: onnx.Transpose
// CHECK: %[[G:.*]] = onnx.GlobalMaxPool %{{.*}} {channels_last} : (tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
// The last Transpose, [1, 1, 1, C] -> [1, C, 1, 1], is a Reshape too.
// CHECK: %[[Y:.*]] = onnx.Reshape %[[G]], %{{.*}} : (tensor<1x1x1x2xf32>, tensor<4xi64>) -> tensor<1x2x1x1xf32>
// CHECK: return %[[Y]]
func.func @residual_and_pools(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32> {
  %w = onnx.Constant dense<1.0> : tensor<2x2x1x1xf32> : tensor<2x2x1x1xf32>
  %a = onnx.Conv %x, %w : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %l = onnx.LeakyRelu %a {alpha = 0.5 : f32} : tensor<1x2x3x3xf32>
  %b = onnx.Conv %l, %w : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %s = onnx.Add %a, %b : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %lo = onnx.Constant dense<0.0> : tensor<f32> : tensor<f32>
  %hi = onnx.Constant dense<6.0> : tensor<f32> : tensor<f32>
  %c = onnx.Clip %s min %lo : tensor<f32> max %hi : tensor<f32> : tensor<1x2x3x3xf32> -> tensor<1x2x3x3xf32>
  %m = onnx.MaxPool %c {kernel_shape = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>) -> tensor<1x2x2x2xf32>
  %v = onnx.AveragePool %m {kernel_shape = array<i64: 2, 2>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x1x1xf32>
  %g = onnx.GlobalMaxPool %v : (tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  return %g : tensor<1x2x1x1xf32>
}

// -----

// Transposes sink through a Concat (the channel axis 1 becomes axis 3) and a
// Pad (the pads of N, C, H, W become those of N, H, W, C: begins
// [0, 0, 1, 2] -> [0, 1, 2, 0], ends [0, 0, 2, 5] -> [0, 2, 5, 0]), so the
// windows around them meet without Transposes in between.
// CHECK-LABEL: func @concat_pad
// CHECK-DAG: %[[P:.*]] = onnx.Constant dense<[0, 1, 2, 0, 0, 2, 5, 0]> : tensor<8xi64>
// CHECK: %[[A:.*]] = onnx.Conv {{.*}} {channels_last} : (tensor<1x3x3x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x3x3x2xf32>
// CHECK: %[[B:.*]] = onnx.MaxPool {{.*}} {channels_last, kernel_shape = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
// CHECK: %[[C:.*]] = onnx.Concat %[[A]], %[[B]] {axis = 3 : i64} : (tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>) -> tensor<1x3x3x4xf32>
// CHECK: %[[D:.*]] = onnx.Pad %[[C]], %[[P]], %{{.*}} : (tensor<1x3x3x4xf32>, tensor<8xi64>, tensor<f32>) -> tensor<1x6x10x4xf32>
// CHECK: %[[E:.*]] = onnx.Conv %[[D]], %{{.*}} {channels_last} : (tensor<1x6x10x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x6x10x4xf32>
// CHECK: onnx.Transpose %[[E]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x6x10x4xf32>) -> tensor<1x4x6x10xf32>
func.func @concat_pad(%x: tensor<1x2x3x3xf32>) -> tensor<1x4x6x10xf32> {
  %w = onnx.Constant dense<1.0> : tensor<2x2x1x1xf32> : tensor<2x2x1x1xf32>
  %a = onnx.Conv %x, %w : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %b = onnx.MaxPool %x {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %c = onnx.Concat %a, %b {axis = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  %p = onnx.Constant dense<[0, 0, 1, 2, 0, 0, 2, 5]> : tensor<8xi64> : tensor<8xi64>
  %v = onnx.Constant dense<-1.0> : tensor<f32> : tensor<f32>
  %d = onnx.Pad %c, %p, %v : (tensor<1x4x3x3xf32>, tensor<8xi64>, tensor<f32>) -> tensor<1x4x6x10xf32>
  %w2 = onnx.Constant dense<1.0> : tensor<4x4x1x1xf32> : tensor<4x4x1x1xf32>
  %z = onnx.Conv %d, %w2 : (tensor<1x4x6x10xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x10xf32>
  return %z : tensor<1x4x6x10xf32>
}

// -----

// A negative concatenation axis is permuted too (-3 of rank 4 is C).
// CHECK-LABEL: func @concat_negative_axis
// CHECK: onnx.Concat %{{.*}}, %{{.*}} {axis = 3 : i64} : (tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>) -> tensor<1x3x3x4xf32>
func.func @concat_negative_axis(%x: tensor<1x2x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %w = onnx.Constant dense<1.0> : tensor<2x2x1x1xf32> : tensor<2x2x1x1xf32>
  %a = onnx.Conv %x, %w : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %b = onnx.Conv %a, %w : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %c = onnx.Concat %a, %b {axis = -3 : i64} : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %c : tensor<1x4x3x3xf32>
}

// -----

// Sinking through an op with a constant is only done when it saves a
// Transpose: here the transposed conv result is also returned, so the Add
// stays in NCHW with its constant as it was.
// CHECK-LABEL: func @no_sinking_for_shared_transpose
// CHECK: %[[T:.*]] = onnx.Transpose %{{.*}} {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x3x3x2xf32>) -> tensor<1x2x3x3xf32>
// CHECK: %[[S:.*]] = onnx.Add %[[T]], %{{.*}} : (tensor<1x2x3x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x3x3xf32>
// CHECK: return %[[S]], %[[T]]
func.func @no_sinking_for_shared_transpose(%x: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %w = onnx.Constant dense<1.0> : tensor<2x2x1x1xf32> : tensor<2x2x1x1xf32>
  %c = onnx.Constant dense<[[[1.0]], [[2.0]]]> : tensor<2x1x1xf32> : tensor<2x1x1xf32>
  %a = onnx.Conv %x, %w : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %s = onnx.Add %a, %c : (tensor<1x2x3x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %s, %a : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

// Gemm(Reshape(Transpose(z)), B): the Gemm reads z (channels-last) flattened
// as it is, and B's rows are permuted to match. The conv result [C, H, W] =
// [2, 1, 2] flattened in NCHW order has rows (c, w) = (0,0), (0,1), (1,0),
// (1,1); channels-last [H, W, C] it is (0,0), (1,0), (0,1), (1,1). So rows
// 1 and 2 of B swap: [[1, 2], [3, 4], [5, 6], [7, 8]] ->
// [[1, 2], [5, 6], [3, 4], [7, 8]]. The input of a single channel needs no
// Transpose either: moving a unit dimension is a Reshape.
// CHECK-LABEL: func @gemm_absorbs_transpose
// CHECK-DAG: %[[B:.*]] = onnx.Constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [5.000000e+00, 6.000000e+00], [3.000000e+00, 4.000000e+00], [7.000000e+00, 8.000000e+00]]> : tensor<4x2xf32>
// CHECK: %[[X:.*]] = onnx.Reshape %arg0, %{{.*}} : (tensor<1x1x1x2xf32>, tensor<4xi64>) -> tensor<1x1x2x1xf32>
// CHECK: %[[C:.*]] = onnx.Conv %[[X]], %{{.*}} {channels_last} : (tensor<1x1x2x1xf32>, tensor<2x1x1x1xf32>) -> tensor<1x1x2x2xf32>
// CHECK: %[[F:.*]] = onnx.Reshape %[[C]], %{{.*}} : (tensor<1x1x2x2xf32>, tensor<2xi64>) -> tensor<1x4xf32>
// CHECK: onnx.Gemm %[[F]], %[[B]] : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
// CHECK-NOT: onnx.Transpose
func.func @gemm_absorbs_transpose(%x: tensor<1x1x1x2xf32>) -> tensor<1x2xf32> {
  %w = onnx.Constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32> : tensor<2x1x1x1xf32>
  %b = onnx.Constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32> : tensor<4x2xf32>
  %y = onnx.Conv %x, %w : (tensor<1x1x1x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x1x2xf32>
  %s = onnx.Constant dense<[1, 4]> : tensor<2xi64> : tensor<2xi64>
  %f = onnx.Reshape %y, %s : (tensor<1x2x1x2xf32>, tensor<2xi64>) -> tensor<1x4xf32>
  %g = onnx.Gemm %f, %b : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
  return %g : tensor<1x2xf32>
}

// -----

// Squeeze-and-excitation: the scale [1, C, 1, 1] the network computes from
// the pooled conv output is, channels-last, the [1, 1, 1, C] row it came
// from; the Mul runs channels-last and reads it (the Reshape that brings it
// back cancels the one SimplifyTranspose made).
// CHECK-LABEL: func @squeeze_excitation
// CHECK: %[[A:.*]] = onnx.Conv {{.*}} {channels_last} : (tensor<1x4x4x3xf32>, tensor<3x3x1x1xf32>) -> tensor<1x4x4x3xf32>
// CHECK: %[[P:.*]] = onnx.GlobalAveragePool %[[A]] {channels_last} : (tensor<1x4x4x3xf32>) -> tensor<1x1x1x3xf32>
// CHECK: %[[S:.*]] = onnx.Sigmoid %[[P]] : tensor<1x1x1x3xf32>
// CHECK: %[[M:.*]] = onnx.Mul %[[A]], %[[S]] : (tensor<1x4x4x3xf32>, tensor<1x1x1x3xf32>) -> tensor<1x4x4x3xf32>
// CHECK: onnx.Conv %[[M]], %{{.*}} {channels_last}
func.func @squeeze_excitation(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %w = onnx.Constant dense<1.0> : tensor<3x3x1x1xf32> : tensor<3x3x1x1xf32>
  %y = onnx.Conv %x, %w : (tensor<1x3x4x4xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x4x4xf32>
  %p = onnx.GlobalAveragePool %y : (tensor<1x3x4x4xf32>) -> tensor<1x3x1x1xf32>
  %s = onnx.Sigmoid %p : tensor<1x3x1x1xf32>
  %m = onnx.Mul %y, %s : (tensor<1x3x4x4xf32>, tensor<1x3x1x1xf32>) -> tensor<1x3x4x4xf32>
  %z = onnx.Conv %m, %w : (tensor<1x3x4x4xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x4x4xf32>
  return %z : tensor<1x3x4x4xf32>
}

// -----

// Weights the IR owns, read by that Gemm alone, are permuted in place: the
// resource keeps its name and holds the rows of @gemm_absorbs_transpose in
// their new order (1 and 2 swapped).
// CHECK-LABEL: func @gemm_permutes_its_own_weights_in_place
// CHECK: %[[B:.*]] = onnx.Constant dense_resource<fc> : tensor<4x2xf32>
// CHECK: onnx.Gemm %{{.*}}, %[[B]] : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
// CHECK: fc: "0x040000000000803F000000400000A0400000C04000004040000080400000E04000000041"
func.func @gemm_permutes_its_own_weights_in_place(%x: tensor<1x1x1x2xf32>) -> tensor<1x2xf32> {
  %w = onnx.Constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32> : tensor<2x1x1x1xf32>
  %b = onnx.Constant dense_resource<fc> : tensor<4x2xf32> : tensor<4x2xf32>
  %y = onnx.Conv %x, %w : (tensor<1x1x1x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x1x2xf32>
  %s = onnx.Constant dense<[1, 4]> : tensor<2xi64> : tensor<2xi64>
  %f = onnx.Reshape %y, %s : (tensor<1x2x1x2xf32>, tensor<2xi64>) -> tensor<1x4xf32>
  %g = onnx.Gemm %f, %b : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
  return %g : tensor<1x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      fc: "0x040000000000803F0000004000004040000080400000A0400000C0400000E04000000041"
    }
  }
#-}

// -----

// Weights another op reads keep their order; the Gemm gets a permuted copy
// (inline, as small constants are).
// CHECK-LABEL: func @gemm_copies_shared_weights
// CHECK-DAG: %[[P:.*]] = onnx.Constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [5.000000e+00, 6.000000e+00], [3.000000e+00, 4.000000e+00], [7.000000e+00, 8.000000e+00]]> : tensor<4x2xf32>
// CHECK-DAG: %[[B:.*]] = onnx.Constant dense_resource<fc> : tensor<4x2xf32>
// CHECK: onnx.Gemm %{{.*}}, %[[P]] : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
// CHECK: return %{{.*}}, %[[B]]
// CHECK: fc: "0x040000000000803F0000004000004040000080400000A0400000C0400000E04000000041"
func.func @gemm_copies_shared_weights(%x: tensor<1x1x1x2xf32>) -> (tensor<1x2xf32>, tensor<4x2xf32>) {
  %w = onnx.Constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32> : tensor<2x1x1x1xf32>
  %b = onnx.Constant dense_resource<fc> : tensor<4x2xf32> : tensor<4x2xf32>
  %y = onnx.Conv %x, %w : (tensor<1x1x1x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x1x2xf32>
  %s = onnx.Constant dense<[1, 4]> : tensor<2xi64> : tensor<2xi64>
  %f = onnx.Reshape %y, %s : (tensor<1x2x1x2xf32>, tensor<2xi64>) -> tensor<1x4xf32>
  %g = onnx.Gemm %f, %b : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
  return %g, %b : tensor<1x2xf32>, tensor<4x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      fc: "0x040000000000803F0000004000004040000080400000A0400000C0400000E04000000041"
    }
  }
#-}
