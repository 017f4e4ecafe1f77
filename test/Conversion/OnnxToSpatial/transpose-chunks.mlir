// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows --convert-onnx-to-spatial | FileCheck %s --check-prefix=LATENCY
// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows="throughput=true" --convert-onnx-to-spatial="throughput=true" | FileCheck %s --check-prefix=PIPELINE

// The model input's transpose comes before the first layer. For one
// inference its chunks are cut much shorter than a band of that layer, so
// that the bands start early: here chunks of six, six and four rows, each
// reading only its rows. In a pipeline it is a stage's work like any other,
// cut about as long as the slowest band: one gather.
// LATENCY-LABEL: func @input_transpose
// LATENCY-COUNT-2: spat.gather %{{.*}}[0 + lanes [6, 16] * [16, 1]] stride 96 : tensor<1x2x6x16xf32> -> tensor<2xf32>
// LATENCY: spat.gather %{{.*}}[0 + lanes [4, 16] * [16, 1]] stride 64 : tensor<1x2x4x16xf32> -> tensor<2xf32>
// LATENCY-NOT: spat.gather
// PIPELINE-LABEL: func @input_transpose
// PIPELINE: spat.gather %{{.*}}[0 + lanes [16, 16] * [16, 1]] stride 256 : tensor<1x2x16x16xf32> -> tensor<2xf32>
// PIPELINE-NOT: spat.gather
func.func @input_transpose(%x: tensor<1x2x16x16xf32>) -> tensor<1x16x16x3xf32> {
  %t = onnx.Transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x16x16xf32>) -> tensor<1x16x16x2xf32>
  %w = onnx.Constant dense<0.5> : tensor<3x2x3x3xf32> : tensor<3x2x3x3xf32>
  %y = onnx.Conv %t, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x16x2xf32>, tensor<3x2x3x3xf32>) -> tensor<1x16x16x3xf32>
  return %y : tensor<1x16x16x3xf32>
}
