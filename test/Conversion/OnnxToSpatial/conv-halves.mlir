// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows --convert-onnx-to-spatial | FileCheck %s --check-prefix=LATENCY
// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows="throughput=true" --convert-onnx-to-spatial="throughput=true" | FileCheck %s --check-prefix=PIPELINE

// A 3x3 conv of 18 channels has 162 weight rows: 11 row tiles of the tiny
// chip's 16x16 crossbars, 11 of its 16 crossbars, so one copy, in three
// pieces of at most a core's 4 crossbars. Its one output row of 16 pixels
// takes 176 mvms. For one inference the row runs as two halves of 8 pixels
// on that copy (each reading its 10 input columns), so that what comes
// after can start on the first half: each piece of the second half has the
// spat.copy of the first's. When the programs loop, the row is one band.
// LATENCY-LABEL: func @halves
// LATENCY: %[[L:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 3, 10, 18]
// LATENCY: %[[R:.*]] = tensor.extract_slice %{{.*}}[0, 0, 8, 0] [1, 3, 10, 18]
// Each piece receives only the input rows of its kernel rows: tiles 0-3
// are kernel positions 0-3 (rows 0-1), tiles 4-7 positions 3-7 (rows 1-2),
// tiles 8-10 positions 7-8 (row 2).
// LATENCY: %[[L0:.*]] = tensor.extract_slice %[[L]][0, 0, 0, 0] [1, 2, 10, 18]
// LATENCY: spat.compute_batch lanes(8) shared(%[[L0]] {{.*}} attributes {spat.copy = [[P0:[0-9]+]] : i64{{.*}}}
// LATENCY: %[[L1:.*]] = tensor.extract_slice %[[L]][0, 1, 0, 0] [1, 2, 10, 18]
// LATENCY: spat.compute_batch lanes(8) shared(%[[L1]] {{.*}} attributes {spat.copy = [[P1:[0-9]+]] : i64{{.*}}}
// LATENCY: %[[L2:.*]] = tensor.extract_slice %[[L]][0, 2, 0, 0] [1, 1, 10, 18]
// LATENCY: spat.compute_batch lanes(8) shared(%[[L2]] {{.*}} attributes {spat.copy = [[P2:[0-9]+]] : i64{{.*}}}
// LATENCY: %[[R0:.*]] = tensor.extract_slice %[[R]][0, 0, 0, 0] [1, 2, 10, 18]
// LATENCY: spat.compute_batch lanes(8) shared(%[[R0]] {{.*}} attributes {spat.copy = [[P0]] : i64{{.*}}}
// LATENCY: %[[R1:.*]] = tensor.extract_slice %[[R]][0, 1, 0, 0] [1, 2, 10, 18]
// LATENCY: spat.compute_batch lanes(8) shared(%[[R1]] {{.*}} attributes {spat.copy = [[P1]] : i64{{.*}}}
// LATENCY: %[[R2:.*]] = tensor.extract_slice %[[R]][0, 2, 0, 0] [1, 1, 10, 18]
// LATENCY: spat.compute_batch lanes(8) shared(%[[R2]] {{.*}} attributes {spat.copy = [[P2]] : i64{{.*}}}
// PIPELINE-LABEL: func @halves
// PIPELINE-NOT: spat.copy
// PIPELINE: spat.compute_batch lanes(16)
// PIPELINE-NOT: spat.copy
func.func @halves(%x: tensor<1x3x16x18xf32>) -> tensor<1x1x16x4xf32> {
  %w = onnx.Constant dense<0.5> : tensor<4x18x3x3xf32> : tensor<4x18x3x3xf32>
  %y = onnx.Conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x16x18xf32>, tensor<4x18x3x3xf32>) -> tensor<1x1x16x4xf32>
  return %y : tensor<1x1x16x4xf32>
}
