// RUN: pimc-opt %s --split-input-file --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows --convert-onnx-to-spatial | FileCheck %s

// Pooling runs on the vector unit over a padded view, one lane per output
// pixel (see conv.mlir for the geometry of a band). These pools are one band
// each: for one inference, work without weights is cut as finely as the
// slowest band with weights sets, and here there is none (cnn-pipeline.mlir
// has the cut into rows; pipeline-bands.mlir the cut of looping programs).

// Max pooling pads with the smallest value lldi can write, -2^31, only as far
// as the last window reads (the declared end pads of 1). A 2x2 window of 2
// channels is four slices: pixel offsets 0, 1 (2 elements) and one padded
// row down (4 x 2 = 8 elements), 8 and 10; stride 2 puts the lanes 16 and 4
// elements apart.
// CHECK-LABEL: func @max_pool
// CHECK: %[[P:.*]] = spat.pad %arg0 low [0, 0, 0, 0] high [0, 1, 1, 0] value -2.14748365E+9 : tensor<1x3x3x2xf32> to tensor<1x4x4x2xf32>
// CHECK: %[[Y:.*]] = spat.compute_batch lanes(4) shared(%[[P]] : tensor<1x4x4x2xf32>){{.*}} {
// CHECK: %[[A:.*]] = spat.lane_slice %{{.*}}[0 + lanes [2, 2] * [16, 4]] : tensor<1x4x4x2xf32> -> tensor<2xf32>
// CHECK: %[[B:.*]] = spat.lane_slice %{{.*}}[2 + lanes [2, 2] * [16, 4]]
// CHECK: %[[M0:.*]] = spat.max %[[A]], %[[B]] : tensor<2xf32>
// CHECK: %[[C:.*]] = spat.lane_slice %{{.*}}[8 + lanes [2, 2] * [16, 4]]
// CHECK: %[[M1:.*]] = spat.max %[[M0]], %[[C]]
// CHECK: %[[D:.*]] = spat.lane_slice %{{.*}}[10 + lanes [2, 2] * [16, 4]]
// CHECK: %[[M2:.*]] = spat.max %[[M1]], %[[D]]
// CHECK: spat.yield %[[M2]] : tensor<2xf32>
// CHECK: } -> tensor<4x2xf32>
// CHECK: spat.reshape %[[Y]] : tensor<4x2xf32> to tensor<1x2x2x2xf32>
func.func @max_pool(%x: tensor<1x3x3x2xf32>) -> tensor<1x2x2x2xf32> {
  %y = onnx.MaxPool %x {channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x3x2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// Average pooling pads with 0 and multiplies the sum by 1 / count. Without
// count_include_pad the count is the window's pixels inside the input: 4, 2,
// 2 and 1 for the 4 output pixels of a 3x3 input, so every lane reads its
// own row of scales.
// CHECK: spat.global constant @[[S:.*]] : tensor<4x2xf32> = dense<{{\[\[}}2.500000e-01, 2.500000e-01], [5.000000e-01, 5.000000e-01], [5.000000e-01, 5.000000e-01], [1.000000e+00, 1.000000e+00]]>
// CHECK-LABEL: func @average_pool
// CHECK: %[[P:.*]] = spat.pad %arg0 low [0, 0, 0, 0] high [0, 1, 1, 0] value 0.000000e+00 : tensor<1x3x3x2xf32> to tensor<1x4x4x2xf32>
// CHECK: %[[SCALE:.*]] = spat.get_global @[[S]] : tensor<4x2xf32>
// CHECK: spat.compute_batch lanes(4) lane(%[[SCALE]] : tensor<4x2xf32>) shared(%[[P]] : tensor<1x4x4x2xf32>){{.*}} {
// CHECK: ^bb0(%[[R:.*]]: tensor<2xf32>, %{{.*}}: tensor<1x4x4x2xf32>):
// CHECK-COUNT-3: spat.add
// CHECK: %[[Y:.*]] = spat.mul %{{.*}}, %[[R]] : tensor<2xf32>
// CHECK: spat.yield %[[Y]]
func.func @average_pool(%x: tensor<1x3x3x2xf32>) -> tensor<1x2x2x2xf32> {
  %y = onnx.AveragePool %x {channels_last, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x3x2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// Padding at both ends, as in a 3x3 stride-1 "same" average pool: corners
// average 4 pixels, edges 6, the centre 9.
// CHECK: spat.global constant @{{.*}} : tensor<9x1xf32> = dense<{{\[\[}}2.500000e-01], [0.166666672], [2.500000e-01], [0.166666672], [0.111111112], [0.166666672], [2.500000e-01], [0.166666672], [2.500000e-01]]>
// CHECK-LABEL: func @average_pool_same
// CHECK: spat.pad %arg0 low [0, 1, 1, 0] high [0, 1, 1, 0] value 0.000000e+00 : tensor<1x3x3x1xf32> to tensor<1x5x5x1xf32>
// CHECK: spat.compute_batch lanes(9) lane(%{{.*}} : tensor<9x1xf32>)
// CHECK-COUNT-8: spat.add
// CHECK: spat.mul
func.func @average_pool_same(%x: tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32> {
  %y = onnx.AveragePool %x {channels_last, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32>
  return %y : tensor<1x3x3x1xf32>
}

// -----

// With count_include_pad the declared pads count: every window has 4
// elements, and one shared row of 1/4 does.
// CHECK: spat.global constant @[[S:.*]] : tensor<2xf32> = dense<2.500000e-01>
// CHECK-LABEL: func @average_pool_include_pad
// CHECK: %[[P:.*]] = spat.pad
// CHECK: %[[SCALE:.*]] = spat.get_global @[[S]] : tensor<2xf32>
// CHECK: spat.compute_batch lanes(4) shared(%[[P]], %[[SCALE]] : tensor<1x4x4x2xf32>, tensor<2xf32>){{.*}} {
// CHECK: spat.mul
func.func @average_pool_include_pad(%x: tensor<1x3x3x2xf32>) -> tensor<1x2x2x2xf32> {
  %y = onnx.AveragePool %x {channels_last, count_include_pad = 1 : i64, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x3x2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// ceil_mode reads past the input without declared pads: the padding view
// grows to what the last window reads, but that padding is not counted even
// with count_include_pad (as in ONNX), so the scales are 1/4, 1/2, 1/2, 1.
// CHECK: spat.global constant @[[S:.*]] : tensor<4x2xf32> = dense<{{\[\[}}2.500000e-01, 2.500000e-01], [5.000000e-01, 5.000000e-01], [5.000000e-01, 5.000000e-01], [1.000000e+00, 1.000000e+00]]>
// CHECK-LABEL: func @average_pool_ceil_mode
// CHECK: spat.pad %arg0 low [0, 0, 0, 0] high [0, 1, 1, 0] value 0.000000e+00 : tensor<1x3x3x2xf32> to tensor<1x4x4x2xf32>
// CHECK: spat.compute_batch lanes(4) lane(%{{.*}} : tensor<4x2xf32>)
func.func @average_pool_ceil_mode(%x: tensor<1x3x3x2xf32>) -> tensor<1x2x2x2xf32> {
  %y = onnx.AveragePool %x {channels_last, ceil_mode = 1 : i64, count_include_pad = 1 : i64, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x3x2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// A band's input and output take at most a quarter of the 1 KiB local
// memory: a padded row of this 3x3 pool is 10 x 4 = 40 bytes, so a band
// has at most 2 output rows (4 input rows with the halo, 224 bytes), and the
// bands' input slices overlap by the 2 halo rows.
// CHECK-LABEL: func @banded_pool
// CHECK: %[[P:.*]] = spat.pad %arg0 low [0, 1, 1, 0] high [0, 1, 1, 0] value -2.14748365E+9 : tensor<1x8x8x4xf32> to tensor<1x10x10x4xf32>
// CHECK: tensor.extract_slice %[[P]][0, 0, 0, 0] [1, {{[34]}}, 10, 4] [1, 1, 1, 1]
// CHECK: tensor.extract_slice %[[P]][0, {{[12]}}, 0, 0] [1, {{[34]}}, 10, 4] [1, 1, 1, 1]
// CHECK: spat.compute_batch lanes({{8|16}}) shared(%{{.*}} : tensor<1x{{[34]}}x10x4xf32>){{.*}} {
// CHECK: spat.lane_slice %{{.*}}[0 + lanes [{{[12]}}, 8] * [40, 4]] : tensor<1x{{[34]}}x10x4xf32> -> tensor<4xf32>
// CHECK-COUNT-8: spat.max
// CHECK: spat.reshape %{{.*}} : tensor<64x4xf32> to tensor<1x8x8x4xf32>
func.func @banded_pool(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %y = onnx.MaxPool %x {channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  return %y : tensor<1x8x8x4xf32>
}

// -----

// Global average pooling of 6 pixels: one compute sums them and multiplies
// by 1/6.
// CHECK: spat.global constant @[[S:.*]] : tensor<4xf32> = dense<0.166666672>
// CHECK-LABEL: func @global_average_pool
// CHECK: %[[SCALE:.*]] = spat.get_global @[[S]]
// CHECK: %[[Y:.*]] = spat.compute(%arg0, %[[SCALE]] : tensor<1x2x3x4xf32>, tensor<4xf32>){{.*}} {
// CHECK: spat.lane_slice %{{.*}}[0 + lanes [] * []] : tensor<1x2x3x4xf32> -> tensor<4xf32>
// CHECK-COUNT-5: spat.add
// CHECK: spat.mul
// CHECK: } -> tensor<4xf32>
// CHECK: spat.reshape %[[Y]] : tensor<4xf32> to tensor<1x1x1x4xf32>
func.func @global_average_pool(%x: tensor<1x2x3x4xf32>) -> tensor<1x1x1x4xf32> {
  %y = onnx.GlobalAveragePool %x {channels_last} : (tensor<1x2x3x4xf32>) -> tensor<1x1x1x4xf32>
  return %y : tensor<1x1x1x4xf32>
}

// -----

// Global max pooling of 100 pixels: two computes reduce 50 pixels each (the
// largest divisor of 100 up to 64), each reading its rows of the pixels, so
// that they can run on two cores; a third reduces their 2 results.
// CHECK-LABEL: func @global_max_pool
// CHECK: %[[ROWS:.*]] = spat.reshape %arg0 : tensor<1x10x10x2xf32> to tensor<100x2xf32>
// CHECK: %[[P0:.*]] = tensor.extract_slice %[[ROWS]][0, 0] [50, 2] [1, 1]
// CHECK: %[[A0:.*]] = spat.compute(%[[P0]] : tensor<50x2xf32>){{.*}} {
// CHECK: spat.lane_slice %{{.*}}[0 + lanes [] * []] : tensor<50x2xf32> -> tensor<2xf32>
// CHECK-COUNT-49: spat.max
// CHECK-NOT: spat.max
// CHECK: } -> tensor<2xf32>
// CHECK: %[[R0:.*]] = spat.reshape %[[A0]] : tensor<2xf32> to tensor<1x2xf32>
// CHECK: %[[P1:.*]] = tensor.extract_slice %[[ROWS]][50, 0] [50, 2] [1, 1]
// CHECK: %[[A1:.*]] = spat.compute(%[[P1]] : tensor<50x2xf32>){{.*}} {
// CHECK: %[[R1:.*]] = spat.reshape %[[A1]]
// CHECK: %[[PART:.*]] = tensor.concat dim(0) %[[R0]], %[[R1]] : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
// CHECK: %[[Y:.*]] = spat.compute(%[[PART]] : tensor<2x2xf32>){{.*}} {
// CHECK: %[[A:.*]] = spat.lane_slice %{{.*}}[0 + lanes [] * []] : tensor<2x2xf32> -> tensor<2xf32>
// CHECK: %[[B:.*]] = spat.lane_slice %{{.*}}[2 + lanes [] * []] : tensor<2x2xf32> -> tensor<2xf32>
// CHECK: spat.max %[[A]], %[[B]]
// CHECK: spat.reshape %[[Y]] : tensor<2xf32> to tensor<1x1x1x2xf32>
func.func @global_max_pool(%x: tensor<1x10x10x2xf32>) -> tensor<1x1x1x2xf32> {
  %y = onnx.GlobalMaxPool %x {channels_last} : (tensor<1x10x10x2xf32>) -> tensor<1x1x1x2xf32>
  return %y : tensor<1x1x1x2xf32>
}
