// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows="throughput=true" --convert-onnx-to-spatial="throughput=true" | FileCheck %s --check-prefix=LAST
// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows="throughput=true" --convert-onnx-to-spatial="throughput=true even-splits=true" | FileCheck %s --check-prefix=EVEN

// A copy of nine row tiles on cores of four crossbars: by default computes
// of four, four and one tile, the first two cores each taking four ninths
// of every round; with even-splits three computes of three tiles.
// LAST-LABEL: func @nine_tiles
// LAST: spat.compute_batch lanes(2) shared({{.*}}) tiles [#spat.tile<@{{.*}}[0, 0], [16, 16]>, #spat.tile<@{{.*}}[16, 0], [16, 16]>, #spat.tile<@{{.*}}[32, 0], [16, 16]>, #spat.tile<@{{.*}}[48, 0], [16, 16]>]{{.*}} {
// LAST: spat.compute_batch lanes(2) shared({{.*}}) tiles [#spat.tile<@{{.*}}[64, 0], [16, 16]>, #spat.tile<@{{.*}}[80, 0], [16, 16]>, #spat.tile<@{{.*}}[96, 0], [16, 16]>, #spat.tile<@{{.*}}[112, 0], [16, 16]>]{{.*}} {
// LAST: spat.compute_batch lanes(2) shared({{.*}}) tiles [#spat.tile<@{{.*}}[128, 0], [16, 16]>]{{.*}} {
// EVEN-LABEL: func @nine_tiles
// EVEN: spat.compute_batch lanes(2) shared({{.*}}) tiles [#spat.tile<@{{.*}}[0, 0], [16, 16]>, #spat.tile<@{{.*}}[16, 0], [16, 16]>, #spat.tile<@{{.*}}[32, 0], [16, 16]>]{{.*}} {
// EVEN: spat.compute_batch lanes(2) shared({{.*}}) tiles [#spat.tile<@{{.*}}[48, 0], [16, 16]>, #spat.tile<@{{.*}}[64, 0], [16, 16]>, #spat.tile<@{{.*}}[80, 0], [16, 16]>]{{.*}} {
// EVEN: spat.compute_batch lanes(2) shared({{.*}}) tiles [#spat.tile<@{{.*}}[96, 0], [16, 16]>, #spat.tile<@{{.*}}[112, 0], [16, 16]>, #spat.tile<@{{.*}}[128, 0], [16, 16]>]{{.*}} {
func.func @nine_tiles(%x: tensor<1x2x1x16xf32>) -> tensor<1x2x1x16xf32> {
  %w = onnx.Constant dense<0.5> : tensor<16x16x3x3xf32> : tensor<16x16x3x3xf32>
  %y = onnx.Conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x1x16xf32>, tensor<16x16x3x3xf32>) -> tensor<1x2x1x16xf32>
  return %y : tensor<1x2x1x16xf32>
}
