// RUN: pimc-opt %s --pass-pipeline='builtin.module(pimc-set-arch{arch=%inputs/tiny-arch.json},func.func(onnx-canonicalize,onnx-channels-last,onnx-canonicalize),onnx-plan-windows,convert-onnx-to-spatial)' | FileCheck %s

// A small CNN through stages 1 and 2 as the driver runs them: conv + BN +
// relu, max pool, global average pool, flatten and a classifier. The BN is
// folded into the conv (b' = [0, -8, 0, -8], see
// Dialect/Onnx/canonicalize-cnn.mlir), the only data movement left is the
// input's NCHW -> NHWC gather, and no onnx op remains.
// CHECK-DAG: spat.global constant @[[CW:conv_weights]] : tensor<18x4xf32>
// CHECK-DAG: spat.global constant @conv_bias : tensor<4xf32> = dense<[0.000000e+00, -8.000000e+00, 0.000000e+00, -8.000000e+00]>
// CHECK-DAG: spat.global constant @pool_scale : tensor<4xf32> = dense<2.500000e-01>
// CHECK-DAG: spat.global constant @[[FC:.*]] : tensor<4x3xf32> = dense<2.500000e-01>
// CHECK-LABEL: func @cnn
// CHECK-NOT: onnx.
// Output pixel (h, w) gathers its 2 channels, in two chunks of two rows
// (transpose-chunks.mlir), each reading its rows of the input.
// CHECK: %[[T0:.*]] = spat.compute_batch lanes(8) shared(%{{.*}} : tensor<1x2x2x4xf32>){{.*}} {
// CHECK: spat.gather %{{.*}}[0 + lanes [2, 4] * [4, 1]] stride 8 : tensor<1x2x2x4xf32> -> tensor<2xf32>
// CHECK: %[[T1:.*]] = spat.compute_batch lanes(8) shared(%{{.*}} : tensor<1x2x2x4xf32>){{.*}} {
// CHECK: %[[T:.*]] = tensor.concat dim(0) %[[T0]], %[[T1]]
// CHECK: %[[X:.*]] = spat.reshape %[[T]] : tensor<16x2xf32> to tensor<1x4x4x2xf32>
// CHECK: spat.pad %[[X]] low [0, 1, 1, 0] high [0, 1, 1, 0] value 0.000000e+00 : tensor<1x4x4x2xf32> to tensor<1x6x6x2xf32>
// The conv's two row tiles run as computes of their own, their partial
// sums added after.
// CHECK: spat.compute_batch {{.*}} tiles [#spat.tile<@[[CW]][0, 0], [16, 4]>]
// CHECK: spat.compute_batch {{.*}} tiles [#spat.tile<@[[CW]][16, 0], [2, 4]>]
// CHECK: spat.add
// CHECK: spat.relu
// The 2x2 max pool of stride 2 needs no padding. It has no weights, so for
// one inference it is cut into a band per output pixel (half a row), each
// reading its 2x2 window of the conv's result.
// CHECK: %[[R:.*]] = spat.reshape %{{.*}} : tensor<16x4xf32> to tensor<1x4x4x4xf32>
// CHECK: %[[R0:.*]] = tensor.extract_slice %[[R]][0, 0, 0, 0] [1, 2, 2, 4]
// CHECK: %[[R1:.*]] = tensor.extract_slice %[[R]][0, 0, 2, 0] [1, 2, 2, 4]
// CHECK: %[[R2:.*]] = tensor.extract_slice %[[R]][0, 2, 0, 0] [1, 2, 2, 4]
// CHECK: %[[R3:.*]] = tensor.extract_slice %[[R]][0, 2, 2, 0] [1, 2, 2, 4]
// CHECK: spat.compute(%[[R0]] : tensor<1x2x2x4xf32>){{.*}} {
// CHECK-COUNT-3: spat.max
// CHECK: spat.compute(%[[R1]] : tensor<1x2x2x4xf32>){{.*}} {
// CHECK: spat.compute(%[[R2]] : tensor<1x2x2x4xf32>){{.*}} {
// CHECK: spat.compute(%[[R3]] : tensor<1x2x2x4xf32>){{.*}} {
// CHECK-COUNT-3: spat.max
// CHECK: %[[M:.*]] = tensor.concat dim(0) {{.*}} : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<4x4xf32>
// CHECK: %[[MP:.*]] = spat.reshape %[[M]] : tensor<4x4xf32> to tensor<1x2x2x4xf32>
// CHECK: %[[G:.*]] = spat.compute(%[[MP]], %{{.*}} : tensor<1x2x2x4xf32>, tensor<4xf32>){{.*}} {
// CHECK-COUNT-3: spat.add
// CHECK: spat.mul
// CHECK: spat.compute(%{{.*}} : tensor<4xf32>) tiles [#spat.tile<@[[FC]][0, 0], [4, 3]>]
// CHECK: spat.mvm %{{.*}} tile 0 : tensor<4xf32> -> tensor<3xf32>
// CHECK-NOT: onnx.
func.func @cnn(%x: tensor<1x2x4x4xf32>) -> tensor<1x3xf32> {
  %w = onnx.Constant dense<0.5> : tensor<4x2x3x3xf32> : tensor<4x2x3x3xf32>
  %scale = onnx.Constant dense<[1.0, 2.0, 1.0, 2.0]> : tensor<4xf32> : tensor<4xf32>
  %beta = onnx.Constant dense<[0.5, 0.0, 0.5, 0.0]> : tensor<4xf32> : tensor<4xf32>
  %mean = onnx.Constant dense<[1.0, 2.0, 1.0, 2.0]> : tensor<4xf32> : tensor<4xf32>
  %var = onnx.Constant dense<[3.75, 0.0, 3.75, 0.0]> : tensor<4xf32> : tensor<4xf32>
  %c = onnx.Conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  %n = onnx.BatchNormalization %c, %scale, %beta, %mean, %var {epsilon = 0.25 : f32} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %r = onnx.Relu %n : tensor<1x4x4x4xf32>
  %m = onnx.MaxPool %r {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32>
  %g = onnx.GlobalAveragePool %m : (tensor<1x4x2x2xf32>) -> tensor<1x4x1x1xf32>
  %f = onnx.Flatten %g : (tensor<1x4x1x1xf32>) -> tensor<1x4xf32>
  %fc = onnx.Constant dense<0.25> : tensor<4x3xf32> : tensor<4x3xf32>
  %y = onnx.Gemm %f, %fc : (tensor<1x4xf32>, tensor<4x3xf32>) -> tensor<1x3xf32>
  return %y : tensor<1x3xf32>
}
