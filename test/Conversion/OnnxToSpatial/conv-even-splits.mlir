// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows="throughput=true" --convert-onnx-to-spatial="throughput=true" | FileCheck %s --check-prefix=LAST
// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows="throughput=true" --convert-onnx-to-spatial="throughput=true even-splits=true" | FileCheck %s --check-prefix=EVEN

// Ten output rows in four bands of at most three rows. By default the last
// band takes the one row left, a compute with a fraction of the others'
// work that may then share a core with one of them; with even-splits the four
// bands take three or two rows each, as long as before at most.
// LAST-LABEL: func @ten_rows
// LAST-COUNT-3: spat.compute_batch lanes(3) shared(%{{.*}} : tensor<1x3x1x16xf32>)
// LAST-NOT: spat.compute_batch
// LAST: spat.compute(%{{.*}} : tensor<1x1x1x16xf32>)
// EVEN-LABEL: func @ten_rows
// EVEN: spat.compute_batch lanes(2) shared(%{{.*}} : tensor<1x2x1x16xf32>)
// EVEN: spat.compute_batch lanes(3) shared(%{{.*}} : tensor<1x3x1x16xf32>)
// EVEN: spat.compute_batch lanes(2) shared(%{{.*}} : tensor<1x2x1x16xf32>)
// EVEN: spat.compute_batch lanes(3) shared(%{{.*}} : tensor<1x3x1x16xf32>)
// EVEN-NOT: spat.compute
func.func @ten_rows(%x: tensor<1x10x1x16xf32>) -> tensor<1x10x1x16xf32> {
  %w = onnx.Constant dense<0.5> : tensor<16x16x1x1xf32> : tensor<16x16x1x1xf32>
  %y = onnx.Conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x10x1x16xf32>, tensor<16x16x1x1xf32>) -> tensor<1x10x1x16xf32>
  return %y : tensor<1x10x1x16xf32>
}

