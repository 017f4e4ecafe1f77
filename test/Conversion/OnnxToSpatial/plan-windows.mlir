// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows="copy-budget=0.25" | FileCheck %s --check-prefix=QUARTER
// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows | FileCheck %s --check-prefix=MOST
// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows="throughput=true" | FileCheck %s --check-prefix=PIPELINE
// RUN: not pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --convert-onnx-to-spatial 2>&1 | FileCheck %s --check-prefix=UNPLANNED

// A 3x3 conv of 2 channels has 18 weight rows: a copy is two row tiles of
// the tiny chip's 16x16 crossbars, 2 of its 16. With a quarter of them
// (4), one more copy fits: two bands of 4 output rows. With the default
// 90% (14.4), four copies (bands of 2 rows, half as long); the next step,
// a band a row, would take 16 crossbars.
// QUARTER: module attributes {pim.arch = #pim.arch<{{.*}}>, spat.band_plan = #spat.band_plan<slowest_ns = [[NS:.*]] : f64>}
// QUARTER: onnx.Conv {{.*}}spat.bands = #spat.bands<count = 2, ns = [[NS]] : f64>
// MOST: module attributes {pim.arch = #pim.arch<{{.*}}>, spat.band_plan = #spat.band_plan<slowest_ns = [[HALF:.*]] : f64>}
// MOST: onnx.Conv {{.*}}spat.bands = #spat.bands<count = 4, ns = [[HALF]] : f64>
// Looping programs: the four cores of the tiny chip, one copy each.
// PIPELINE: onnx.Conv {{.*}}spat.bands = #spat.bands<count = 4,
// ONNX-to-Spatial only reads the plan.
// UNPLANNED: error: the convolutions and pooling have no band plan (run onnx-plan-windows first)
func.func @plan(%x: tensor<1x8x2x2xf32>) -> tensor<1x8x2x3xf32> {
  %w = onnx.Constant dense<0.5> : tensor<3x2x3x3xf32> : tensor<3x2x3x3xf32>
  %y = onnx.Conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x2x2xf32>, tensor<3x2x3x3xf32>) -> tensor<1x8x2x3xf32>
  return %y : tensor<1x8x2x3xf32>
}
