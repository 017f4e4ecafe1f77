// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows | FileCheck %s --check-prefix=PLAN
// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows --convert-onnx-to-spatial | FileCheck %s

// A batch of 2 through a 3x3 conv (the geometry of conv.mlir's conv_3x3)
// and a global average pooling. The plan counts the rows of both samples:
// its 4 bands are shared out, 2 per sample, each sample on copies of the
// weights of its own (copies 0 and 2 for sample 0's two bands of two rows,
// 4 and 6 for sample 1's; their second tile on copies 1, 3, 5, 7). A band's
// rows run one after the other on its copy, so they share it.
// PLAN: onnx.Conv {{.*}}spat.bands = #spat.bands<count = 4,
// CHECK-LABEL: func @conv_batch
// CHECK: %[[P:.*]] = spat.pad %arg0 low [0, 1, 1, 0] high [0, 1, 1, 0] value 0.000000e+00 : tensor<2x4x4x2xf32> to tensor<2x6x6x2xf32>
// CHECK: %[[S0R0:.*]] = tensor.extract_slice %[[P]][0, 0, 0, 0] [1, 3, 6, 2]
// CHECK: %[[S1R0:.*]] = tensor.extract_slice %[[P]][1, 0, 0, 0] [1, 3, 6, 2]
// CHECK: spat.compute_batch lanes(4) shared(%[[S0R0]] : tensor<1x3x6x2xf32>) tiles [#spat.tile<@conv_weights[0, 0], [16, 3]>] attributes {spat.copy = 0 : i64{{.*}}}
// CHECK: spat.compute_batch lanes(4) shared({{.*}}) tiles [#spat.tile<@conv_weights[16, 0], [2, 3]>] attributes {spat.copy = 1 : i64{{.*}}}
// CHECK: attributes {spat.copy = 0 : i64{{.*}}}
// CHECK: attributes {spat.copy = 2 : i64{{.*}}}
// CHECK: attributes {spat.copy = 2 : i64{{.*}}}
// CHECK: spat.compute_batch lanes(4) shared(%[[S1R0]] : tensor<1x3x6x2xf32>) tiles [#spat.tile<@conv_weights[0, 0], [16, 3]>] attributes {spat.copy = 4 : i64{{.*}}}
// CHECK: attributes {spat.copy = 4 : i64{{.*}}}
// CHECK: attributes {spat.copy = 6 : i64{{.*}}}
// CHECK: attributes {spat.copy = 6 : i64{{.*}}}
// The bands' rows, sample after sample, are the [2, 4, 4, 3] result.
// CHECK: %[[Y:.*]] = spat.reshape %{{.*}} : tensor<32x3xf32> to tensor<2x4x4x3xf32>
// Global pooling reduces each sample's 16 pixels by a compute of its own.
// CHECK: %[[ROWS:.*]] = spat.reshape %[[Y]] : tensor<2x4x4x3xf32> to tensor<32x3xf32>
// CHECK: %[[X0:.*]] = tensor.extract_slice %[[ROWS]][0, 0] [16, 3] [1, 1] : tensor<32x3xf32> to tensor<16x3xf32>
// CHECK: %[[SCALE:.*]] = spat.get_global @pool_scale : tensor<3xf32>
// CHECK: %[[G0:.*]] = spat.compute(%[[X0]], %[[SCALE]] : tensor<16x3xf32>, tensor<3xf32>)
// CHECK: %[[R0:.*]] = spat.reshape %[[G0]] : tensor<3xf32> to tensor<1x3xf32>
// CHECK: %[[X1:.*]] = tensor.extract_slice %[[ROWS]][16, 0] [16, 3] [1, 1] : tensor<32x3xf32> to tensor<16x3xf32>
// CHECK: %[[G1:.*]] = spat.compute(%[[X1]], %[[SCALE]] : tensor<16x3xf32>, tensor<3xf32>)
// CHECK: %[[R1:.*]] = spat.reshape %[[G1]] : tensor<3xf32> to tensor<1x3xf32>
// CHECK: %[[BOTH:.*]] = tensor.concat dim(0) %[[R0]], %[[R1]] : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[G:.*]] = spat.reshape %[[BOTH]] : tensor<2x3xf32> to tensor<2x1x1x3xf32>
// CHECK: return %[[G]]
func.func @conv_batch(%x: tensor<2x4x4x2xf32>) -> tensor<2x1x1x3xf32> {
  %w = onnx.Constant dense<0.5> : tensor<3x2x3x3xf32> : tensor<3x2x3x3xf32>
  %y = onnx.Conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x4x4x2xf32>, tensor<3x2x3x3xf32>) -> tensor<2x4x4x3xf32>
  %g = onnx.GlobalAveragePool %y {channels_last} : (tensor<2x4x4x3xf32>) -> tensor<2x1x1x3xf32>
  return %g : tensor<2x1x1x3xf32>
}
