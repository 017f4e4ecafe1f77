// RUN: pimc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(onnx-pack-pixels))' | FileCheck %s

// Two pixels of a 1x2 kernel share one matrix over their 1x3 window union:
// the second pixel's copy of the weights is shifted by the stride, the bias
// is repeated, and a Reshape gives back the pixels.
// CHECK-LABEL: func @shifted
// CHECK-DAG: %[[SHAPE:.*]] = onnx.Constant dense<[1, 1, 2, 1]> : tensor<4xi64>
// CHECK-DAG: %[[W:.*]] = onnx.Constant dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00, 0.000000e+00]]], {{\[\[\[}}0.000000e+00, 1.000000e+00, 2.000000e+00]]]]> : tensor<2x1x1x3xf32>
// CHECK-DAG: %[[B:.*]] = onnx.Constant dense<3.000000e+00> : tensor<2xf32>
// CHECK: %[[Y:.*]] = onnx.Conv %arg0, %[[W]], %[[B]] {channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 3>, pads = array<i64: 0, 0, 0, 1>, pimc.packed_pixels = 2 : i64, strides = array<i64: 1, 2>} : (tensor<1x1x2x1xf32>, tensor<2x1x1x3xf32>, tensor<2xf32>) -> tensor<1x1x1x2xf32>
// CHECK: %[[R:.*]] = onnx.Reshape %[[Y]], %[[SHAPE]] : (tensor<1x1x1x2xf32>, tensor<4xi64>) -> tensor<1x1x2x1xf32>
// CHECK: return %[[R]]
func.func @shifted(%x: tensor<1x1x2x1xf32>) -> tensor<1x1x2x1xf32> {
  %w = onnx.Constant dense<[[[[1.0, 2.0]]]]> : tensor<1x1x1x2xf32> : tensor<1x1x1x2xf32>
  %b = onnx.Constant dense<[3.0]> : tensor<1xf32> : tensor<1xf32>
  %y = onnx.Conv %x, %w, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 2>, pads = array<i64: 0, 0, 0, 1>, strides = array<i64: 1, 1>} : (tensor<1x1x2x1xf32>, tensor<1x1x1x2xf32>, tensor<1xf32>) -> tensor<1x1x2x1xf32>
  return %y : tensor<1x1x2x1xf32>
}

// -----

// A batch packs the pixels of every sample alike: the Reshape keeps the
// batch dimension.
// CHECK-LABEL: func @batch
// CHECK-DAG: %[[SHAPE:.*]] = onnx.Constant dense<[3, 1, 2, 1]> : tensor<4xi64>
// CHECK: %[[Y:.*]] = onnx.Conv %arg0, %{{.*}}, %{{.*}} {channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 3>, pads = array<i64: 0, 0, 0, 1>, pimc.packed_pixels = 2 : i64, strides = array<i64: 1, 2>} : (tensor<3x1x2x1xf32>, tensor<2x1x1x3xf32>, tensor<2xf32>) -> tensor<3x1x1x2xf32>
// CHECK: %[[R:.*]] = onnx.Reshape %[[Y]], %[[SHAPE]] : (tensor<3x1x1x2xf32>, tensor<4xi64>) -> tensor<3x1x2x1xf32>
// CHECK: return %[[R]]
func.func @batch(%x: tensor<3x1x2x1xf32>) -> tensor<3x1x2x1xf32> {
  %w = onnx.Constant dense<[[[[1.0, 2.0]]]]> : tensor<1x1x1x2xf32> : tensor<1x1x1x2xf32>
  %b = onnx.Constant dense<[3.0]> : tensor<1xf32> : tensor<1xf32>
  %y = onnx.Conv %x, %w, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 2>, pads = array<i64: 0, 0, 0, 1>, strides = array<i64: 1, 1>} : (tensor<3x1x2x1xf32>, tensor<1x1x1x2xf32>, tensor<1xf32>) -> tensor<3x1x2x1xf32>
  return %y : tensor<3x1x2x1xf32>
}

// -----

// 3x3, 64 -> 64 on 128x128 crossbars: a pixel reads 5 crossbars of 64
// columns, a pair 6 of 128 (3 a pixel). The sum with the skip input and the
// ReLU run on pairs too (the skip input regrouped), and one Reshape is left.
// CHECK-LABEL: func @residual
// CHECK: %[[C:.*]] = onnx.Conv %arg0, %{{.*}} {channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 4>, pads = array<i64: 1, 1, 1, 1>, pimc.packed_pixels = 2 : i64, strides = array<i64: 1, 2>} : (tensor<1x4x8x64xf32>, tensor<128x64x3x4xf32>) -> tensor<1x4x4x128xf32>
// CHECK: %[[X:.*]] = onnx.Reshape %arg0, %{{.*}} -> tensor<1x4x4x128xf32>
// CHECK: %[[S:.*]] = onnx.Add %[[C]], %[[X]] : (tensor<1x4x4x128xf32>, tensor<1x4x4x128xf32>) -> tensor<1x4x4x128xf32>
// CHECK: %[[R:.*]] = onnx.Relu %[[S]] : tensor<1x4x4x128xf32>
// CHECK: %[[Y:.*]] = onnx.Reshape %[[R]], %{{.*}} -> tensor<1x4x8x64xf32>
// CHECK: return %[[Y]]
func.func @residual(%x: tensor<1x4x8x64xf32>) -> tensor<1x4x8x64xf32> {
  %w = onnx.Constant dense<0.5> : tensor<64x64x3x3xf32> : tensor<64x64x3x3xf32>
  %a = onnx.Conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x64xf32>, tensor<64x64x3x3xf32>) -> tensor<1x4x8x64xf32>
  %s = onnx.Add %a, %x : (tensor<1x4x8x64xf32>, tensor<1x4x8x64xf32>) -> tensor<1x4x8x64xf32>
  %r = onnx.Relu %s : tensor<1x4x8x64xf32>
  return %r : tensor<1x4x8x64xf32>
}

// -----

// Two residual blocks: the second sum reads the first block's pairs
// themselves, not a Reshape back of their Reshape (a pipeline passes a skip
// input on only when the layer between reads that same value).
// CHECK-LABEL: func @blocks
// CHECK: %[[R:.*]] = onnx.Relu %{{.*}} : tensor<1x4x4x128xf32>
// CHECK: %[[X:.*]] = onnx.Reshape %[[R]], %{{.*}} -> tensor<1x4x8x64xf32>
// CHECK: %[[C:.*]] = onnx.Conv %[[X]], %{{.*}} -> tensor<1x4x4x128xf32>
// CHECK-NOT: onnx.Reshape
// CHECK: onnx.Add %[[C]], %[[R]] : (tensor<1x4x4x128xf32>, tensor<1x4x4x128xf32>) -> tensor<1x4x4x128xf32>
func.func @blocks(%x: tensor<1x4x8x64xf32>) -> tensor<1x4x8x64xf32> {
  %w = onnx.Constant dense<0.5> : tensor<64x64x3x3xf32> : tensor<64x64x3x3xf32>
  %a = onnx.Conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x64xf32>, tensor<64x64x3x3xf32>) -> tensor<1x4x8x64xf32>
  %s = onnx.Add %a, %x : (tensor<1x4x8x64xf32>, tensor<1x4x8x64xf32>) -> tensor<1x4x8x64xf32>
  %r = onnx.Relu %s : tensor<1x4x8x64xf32>
  %v = onnx.Constant dense<0.25> : tensor<64x64x3x3xf32> : tensor<64x64x3x3xf32>
  %b = onnx.Conv %r, %v {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x64xf32>, tensor<64x64x3x3xf32>) -> tensor<1x4x8x64xf32>
  %t = onnx.Add %b, %r : (tensor<1x4x8x64xf32>, tensor<1x4x8x64xf32>) -> tensor<1x4x8x64xf32>
  %q = onnx.Relu %t : tensor<1x4x8x64xf32>
  return %q : tensor<1x4x8x64xf32>
}

// -----

// A 1x1 convolution of 16 -> 64 channels fills 16 rows of a crossbar: 8
// pixels fill all 128, with 512 columns on 4 crossbars (half a crossbar a
// pixel instead of one).
// CHECK-LABEL: func @pointwise
// CHECK: onnx.Conv %arg0, %{{.*}} {channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 8>, pads = array<i64: 0, 0, 0, 0>, pimc.packed_pixels = 8 : i64, strides = array<i64: 1, 8>} : (tensor<1x2x8x16xf32>, tensor<512x16x1x8xf32>) -> tensor<1x2x1x512xf32>
func.func @pointwise(%x: tensor<1x2x8x16xf32>) -> tensor<1x2x8x64xf32> {
  %w = onnx.Constant dense<0.5> : tensor<64x16x1x1xf32> : tensor<64x16x1x1xf32>
  %y = onnx.Conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x8x16xf32>, tensor<64x16x1x1xf32>) -> tensor<1x2x8x64xf32>
  return %y : tensor<1x2x8x64xf32>
}

// -----

// What stays: 128 -> 128 channels fill the crossbars' columns already (a
// pair would read 24 crossbars instead of 18); a width of 7 has no divisor
// that reads fewer; a depthwise convolution runs on the vector unit.
// CHECK-LABEL: func @stays
// CHECK-NOT: onnx.Reshape
// CHECK: kernel_shape = array<i64: 3, 3>{{.*}} -> tensor<1x4x8x128xf32>
// CHECK: kernel_shape = array<i64: 3, 3>{{.*}} -> tensor<1x4x7x64xf32>
// CHECK: kernel_shape = array<i64: 3, 3>{{.*}} -> tensor<1x4x8x16xf32>
// CHECK-NOT: onnx.Reshape
func.func @stays(%x: tensor<1x4x8x128xf32>, %y: tensor<1x4x7x64xf32>, %z: tensor<1x4x8x16xf32>) -> (tensor<1x4x8x128xf32>, tensor<1x4x7x64xf32>, tensor<1x4x8x16xf32>) {
  %w = onnx.Constant dense<0.5> : tensor<128x128x3x3xf32> : tensor<128x128x3x3xf32>
  %a = onnx.Conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x128xf32>, tensor<128x128x3x3xf32>) -> tensor<1x4x8x128xf32>
  %v = onnx.Constant dense<0.5> : tensor<64x64x3x3xf32> : tensor<64x64x3x3xf32>
  %b = onnx.Conv %y, %v {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x7x64xf32>, tensor<64x64x3x3xf32>) -> tensor<1x4x7x64xf32>
  %d = onnx.Constant dense<0.5> : tensor<16x1x3x3xf32> : tensor<16x1x3x3xf32>
  %c = onnx.Conv %z, %d {channels_last, dilations = array<i64: 1, 1>, group = 16 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x16xf32>, tensor<16x1x3x3xf32>) -> tensor<1x4x8x16xf32>
  return %a, %b, %c : tensor<1x4x8x128xf32>, tensor<1x4x7x64xf32>, tensor<1x4x8x16xf32>
}
