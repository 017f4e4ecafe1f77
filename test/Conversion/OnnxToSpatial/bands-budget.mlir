// RUN: pimc-opt %s --pass-pipeline='builtin.module(pimc-set-arch{arch=%inputs/tiny-arch.json},onnx-plan-windows,convert-onnx-to-spatial,spat-merge-computes,spat-peft-schedule)' | FileCheck %s

// Copies of a conv's weights (bands of its output rows) take only the
// crossbars the other layers leave. The tiny chip has 16 crossbars; the
// classifier's 12 row tiles take 12 of them, the conv 2 per copy: the conv
// keeps the 2 copies its local memory needs, and every compute is placed on
// a core (counting only the conv layers, it got 6 copies and the chip would
// need 24 crossbars). For one inference each copy runs its 8 rows one after
// another, each row tile's computes on the core that holds the tile
// (spat.copy), so that the next layer can start on its first rows.
// CHECK-LABEL: func @conv_then_gemm
// CHECK: tiles [#spat.tile<@conv_weights[0, 0], [16, 3]>] attributes {spat.copy = [[T0:[0-9]+]] : i64, spat.core = [[C0:[0-9]+]] : i64
// CHECK: tiles [#spat.tile<@conv_weights[16, 0], [2, 3]>] attributes {spat.copy = [[T1:[0-9]+]] : i64, spat.core = [[C1:[0-9]+]] : i64
// CHECK: compute_batch lanes(4) {{.*}} tiles [#spat.tile<@conv_weights[0, 0], [16, 3]>] attributes {spat.copy = [[T0]] : i64, spat.core = [[C0]] : i64
// CHECK: compute_batch lanes(4) {{.*}} tiles [#spat.tile<@conv_weights[16, 0], [2, 3]>] attributes {spat.copy = [[T1]] : i64, spat.core = [[C1]] : i64
// CHECK-COUNT-6: tiles [#spat.tile<@conv_weights[0, 0], [16, 3]>] attributes {spat.copy = [[T0]] : i64, spat.core = [[C0]] : i64
// The second copy, on other cores.
// CHECK: tiles [#spat.tile<@conv_weights[0, 0], [16, 3]>] attributes {spat.copy = [[U0:[0-9]+]] : i64, spat.core = [[D0:[0-9]+]] : i64
// CHECK-COUNT-7: tiles [#spat.tile<@conv_weights[0, 0], [16, 3]>] attributes {spat.copy = [[U0]] : i64, spat.core = [[D0]] : i64
// CHECK-NOT: @conv_weights[0, 0]
// CHECK-COUNT-12: spat.compute({{.*}}) tiles [#spat.tile<@{{.*}}, [16, 8]>] attributes {spat.core
func.func @conv_then_gemm(%x: tensor<1x16x4x2xf32>) -> tensor<1x8xf32> {
  %w = onnx.Constant dense<0.5> : tensor<3x2x3x3xf32> : tensor<3x2x3x3xf32>
  %b = onnx.Constant dense<1.0> : tensor<3xf32> : tensor<3xf32>
  %y = onnx.Conv %x, %w, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x4x2xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x16x4x3xf32>
  %f = onnx.Flatten %y {axis = 1 : i64} : (tensor<1x16x4x3xf32>) -> tensor<1x192xf32>
  %wg = onnx.Constant dense<0.25> : tensor<192x8xf32> : tensor<192x8xf32>
  %g = onnx.Gemm %f, %wg : (tensor<1x192xf32>, tensor<192x8xf32>) -> tensor<1x8xf32>
  return %g : tensor<1x8xf32>
}
