// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows --convert-onnx-to-spatial | FileCheck %s

// A ConvTranspose of stride 2 over 3 rows, kernel [1, 2, 3] (one channel),
// pads 1 at the top: the full output t = 0..6 is t = 2i + k, the result
// t = 1..6. Outputs of even t (phase 0) take kernel positions 2 and 0,
// reading x[j - 1] and x[j]; odd t (phase 1) take position 1, reading x[j].
// Both phases compute j = 0..3 (t = 0..7): phase 0 reads x[-1..3], phase 1
// x[0..3], so the input is padded by one row at either end. Phase 0's
// weights are rows (3, 1), by increasing input position; phase 1's is 2.
// The phases' rows are interleaved into t = 0..7 and rows 1..6 kept.
// CHECK-DAG: spat.global constant @[[P0:convtranspose_p0_weights]] : tensor<2x1xf32> = dense<{{\[}}[3.000000e+00], [1.000000e+00]]>
// CHECK-DAG: spat.global constant @[[P1:convtranspose_p1_weights]] : tensor<1x1xf32> = dense<2.000000e+00>
// CHECK-LABEL: func @conv_transpose
// CHECK: %[[PAD:.*]] = spat.pad %arg0 low [0, 1, 0, 0] high [0, 1, 0, 0] value 0.000000e+00 : tensor<1x3x1x1xf32> to tensor<1x5x1x1xf32>
// CHECK: spat.compute({{.*}} : tensor<1x2x1x1xf32>) tiles [#spat.tile<@[[P0]][0, 0], [2, 1]>]
// CHECK: spat.mvm %{{.*}} tile 0 : tensor<2xf32> -> tensor<1xf32>
// CHECK: %[[EVEN:.*]] = spat.reshape %{{.*}} : tensor<4x1xf32> to tensor<1x4x1x1xf32>
// CHECK: tensor.extract_slice %[[PAD]][0, 1, 0, 0] [1, 4, 1, 1] [1, 1, 1, 1] : tensor<1x5x1x1xf32> to tensor<1x4x1x1xf32>
// CHECK: spat.compute({{.*}} : tensor<1x1x1x1xf32>) tiles [#spat.tile<@[[P1]][0, 0], [1, 1]>]
// CHECK: %[[ODD:.*]] = spat.reshape %{{.*}} : tensor<4x1xf32> to tensor<1x4x1x1xf32>
// CHECK: %[[E:.*]] = spat.reshape %[[EVEN]] : tensor<1x4x1x1xf32> to tensor<1x4x1x1x1xf32>
// CHECK: %[[O:.*]] = spat.reshape %[[ODD]] : tensor<1x4x1x1xf32> to tensor<1x4x1x1x1xf32>
// CHECK: %[[BOTH:.*]] = tensor.concat dim(2) %[[E]], %[[O]] : (tensor<1x4x1x1x1xf32>, tensor<1x4x1x1x1xf32>) -> tensor<1x4x2x1x1xf32>
// CHECK: %[[ROWS:.*]] = spat.reshape %[[BOTH]] : tensor<1x4x2x1x1xf32> to tensor<1x8x1x1xf32>
// CHECK: %[[Y:.*]] = tensor.extract_slice %[[ROWS]][0, 1, 0, 0] [1, 6, 1, 1] [1, 1, 1, 1] : tensor<1x8x1x1xf32> to tensor<1x6x1x1xf32>
// CHECK: return %[[Y]]
func.func @conv_transpose(%x: tensor<1x3x1x1xf32>) -> tensor<1x6x1x1xf32> {
  %w = onnx.Constant dense<[[[[1.0], [2.0], [3.0]]]]> : tensor<1x1x3x1xf32> : tensor<1x1x3x1xf32>
  %y = onnx.ConvTranspose %x, %w {channels_last, pads = array<i64: 1, 0, 0, 0>, strides = array<i64: 2, 1>} : (tensor<1x3x1x1xf32>, tensor<1x1x3x1xf32>) -> tensor<1x6x1x1xf32>
  return %y : tensor<1x6x1x1xf32>
}
