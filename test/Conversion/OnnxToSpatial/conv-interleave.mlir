// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows="copy-budget=0.25" --convert-onnx-to-spatial | FileCheck %s --check-prefix=TURNS
// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows="copy-budget=0.25" --convert-onnx-to-spatial="interleave-rows=false" | FileCheck %s --check-prefix=RUNS
// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows="copy-budget=0.25 throughput=true" --convert-onnx-to-spatial="throughput=true" | FileCheck %s --check-prefix=PIPELINE

// A 3x3 conv of 2 channels has 18 weight rows, two row tiles of the tiny
// chip's 16x16 crossbars; a quarter of its 16 crossbars holds two copies, so
// its 8 output rows are two bands of 4 rows, each row a compute of each row
// tile (spat.copy: the crossbars it runs on). For one inference the rows go
// to the copies in turn, so that each copy's first row is done before the
// next layer needs it for its second: row r on copy r mod 2.
// The module says so, for the driver to compile again without it when a
// core's local memory overflows.
// TURNS: module attributes {{.*}}spat.interleaved_rows
// TURNS-LABEL: func @interleaved
// TURNS: [0, 0], [16, 3]>] attributes {spat.copy = [[A0:[0-9]+]] : i64{{.*}}}
// TURNS: [16, 0], [2, 3]>] attributes {spat.copy = [[A1:[0-9]+]] : i64{{.*}}}
// TURNS: [0, 0], [16, 3]>] attributes {spat.copy = [[B0:[0-9]+]] : i64{{.*}}}
// TURNS: [16, 0], [2, 3]>] attributes {spat.copy = [[B1:[0-9]+]] : i64{{.*}}}
// TURNS: [0, 0], [16, 3]>] attributes {spat.copy = [[A0]] : i64{{.*}}}
// TURNS: [16, 0], [2, 3]>] attributes {spat.copy = [[A1]] : i64{{.*}}}
// TURNS: [0, 0], [16, 3]>] attributes {spat.copy = [[B0]] : i64{{.*}}}
// TURNS: [16, 0], [2, 3]>] attributes {spat.copy = [[B1]] : i64{{.*}}}
// TURNS: [0, 0], [16, 3]>] attributes {spat.copy = [[A0]] : i64{{.*}}}
// TURNS: [16, 0], [2, 3]>] attributes {spat.copy = [[A1]] : i64{{.*}}}
// TURNS: [0, 0], [16, 3]>] attributes {spat.copy = [[B0]] : i64{{.*}}}
// TURNS: [16, 0], [2, 3]>] attributes {spat.copy = [[B1]] : i64{{.*}}}
// TURNS: [0, 0], [16, 3]>] attributes {spat.copy = [[A0]] : i64{{.*}}}
// TURNS: [16, 0], [2, 3]>] attributes {spat.copy = [[A1]] : i64{{.*}}}
// TURNS: [0, 0], [16, 3]>] attributes {spat.copy = [[B0]] : i64{{.*}}}
// TURNS: [16, 0], [2, 3]>] attributes {spat.copy = [[B1]] : i64{{.*}}}
// TURNS-NOT: spat.copy
// Without it, rows 0 to 3 on one copy and 4 to 7 on the other.
// RUNS-NOT: spat.interleaved_rows
// RUNS-LABEL: func @interleaved
// RUNS-COUNT-4: tiles [#spat.tile<@conv_weights[0, 0], [16, 3]>] attributes {spat.copy = [[A0:[0-9]+]] : i64{{.*}}}
// RUNS-COUNT-4: tiles [#spat.tile<@conv_weights[0, 0], [16, 3]>] attributes {spat.copy = [[B0:[0-9]+]] : i64{{.*}}}
// RUNS-NOT: spat.copy = [[A0]] :
// Looping programs run a band's rows as one compute.
// PIPELINE-LABEL: func @interleaved
// PIPELINE-NOT: spat.copy
func.func @interleaved(%x: tensor<1x8x2x2xf32>) -> tensor<1x8x2x3xf32> {
  %w = onnx.Constant dense<0.5> : tensor<3x2x3x3xf32> : tensor<3x2x3x3xf32>
  %y = onnx.Conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x2x2xf32>, tensor<3x2x3x3xf32>) -> tensor<1x8x2x3xf32>
  return %y : tensor<1x8x2x3xf32>
}
