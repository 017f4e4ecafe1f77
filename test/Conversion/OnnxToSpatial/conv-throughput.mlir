// RUN: pimc-opt %s --split-input-file --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows="throughput=true" --convert-onnx-to-spatial="throughput=true" | FileCheck %s

// For programs that loop, the round is bound by all the work and transfers,
// not by how soon one band is done: the row tiles of a band stay in one
// compute (see conv.mlir for the split that one inference gets), which also
// adds the bias.
// CHECK-LABEL: func @conv_3x3
// CHECK: spat.compute_batch lanes({{[0-9]+}}) shared(%{{.*}}, %{{.*}} : tensor<1x{{[3-6]}}x6x2xf32>, tensor<3xf32>) tiles [#spat.tile<@conv_weights[0, 0], [16, 3]>, #spat.tile<@conv_weights[16, 0], [2, 3]>]{{.*}} {
// CHECK: spat.mvm %{{.*}} tile 0 : tensor<16xf32> -> tensor<3xf32>
// CHECK: spat.mvm %{{.*}} tile 1 : tensor<2xf32> -> tensor<3xf32>
// CHECK: spat.add
// CHECK: spat.add
func.func @conv_3x3(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x3xf32> {
  %w = onnx.Constant dense<0.5> : tensor<3x2x3x3xf32> : tensor<3x2x3x3xf32>
  %b = onnx.Constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32> : tensor<3xf32>
  %y = onnx.Conv %x, %w, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  return %y : tensor<1x4x4x3xf32>
}

// -----

// A band runs in parallel with the others of its layer only on a core of
// its own, pooling included: the four cores of the chip go to the slowest
// layer, one band at a time. The conv and the pool take two bands of two rows
// each, not the eight half rows the crossbars would allow.
// CHECK-LABEL: func @conv_pool
// CHECK-COUNT-2: spat.compute_batch lanes(8) shared(%{{.*}}, %{{.*}} : tensor<1x4x6x1xf32>, tensor<2xf32>) tiles
// CHECK-COUNT-2: spat.compute_batch lanes(8) shared(%{{.*}} : tensor<1x4x6x2xf32>){{.*}} {
// CHECK-NOT: spat.compute_batch
func.func @conv_pool(%x: tensor<1x4x4x1xf32>) -> tensor<1x4x4x2xf32> {
  %w = onnx.Constant dense<0.5> : tensor<2x1x3x3xf32> : tensor<2x1x3x3xf32>
  %b = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %y = onnx.Conv %x, %w, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x1xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  %p = onnx.MaxPool %y {channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %p : tensor<1x4x4x2xf32>
}
