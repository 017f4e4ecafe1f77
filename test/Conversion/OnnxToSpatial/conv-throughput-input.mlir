// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows="throughput=true" --convert-onnx-to-spatial="throughput=true" | FileCheck %s

// Two 1x1 convolutions of as many output pixels and mvms; the second reads
// four times the input (stride 2). When the programs loop, a core spends
// its round on receiving and copying its band's input too, so the second
// is the slower layer and takes the second band the chip has a core for.
// CHECK-LABEL: func @input_cost
// CHECK: spat.compute_batch lanes(4) shared(%{{.*}} : tensor<1x4x1x16xf32>) tiles [#spat.tile<@conv_weights[0, 0]
// CHECK-NOT: @conv_weights[0, 0]
// CHECK: spat.compute_batch lanes(2) shared(%{{.*}} : tensor<1x3x2x16xf32>) tiles [#spat.tile<@conv_weights_1[0, 0]
// CHECK: spat.compute_batch lanes(2) shared(%{{.*}} : tensor<1x3x2x16xf32>) tiles [#spat.tile<@conv_weights_1[0, 0]
func.func @input_cost(%x1: tensor<1x4x1x16xf32>, %x2: tensor<1x8x2x16xf32>, %v: tensor<1x16xf32>) -> (tensor<1x4x1x16xf32>, tensor<1x4x1x16xf32>, tensor<1x16xf32>) {
  %w = onnx.Constant dense<0.5> : tensor<16x16x1x1xf32> : tensor<16x16x1x1xf32>
  %small = onnx.Conv %x1, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x1x16xf32>, tensor<16x16x1x1xf32>) -> tensor<1x4x1x16xf32>
  %w2 = onnx.Constant dense<0.25> : tensor<16x16x1x1xf32> : tensor<16x16x1x1xf32>
  %large = onnx.Conv %x2, %w2 {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x2x16xf32>, tensor<16x16x1x1xf32>) -> tensor<1x4x1x16xf32>
  %wg = onnx.Constant dense<0.25> : tensor<16x16xf32> : tensor<16x16xf32>
  %g = onnx.Gemm %v, %wg : (tensor<1x16xf32>, tensor<16x16xf32>) -> tensor<1x16xf32>
  return %small, %large, %g : tensor<1x4x1x16xf32>, tensor<1x4x1x16xf32>, tensor<1x16xf32>
}
