// RUN: pimc-opt %s --split-input-file --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows --convert-onnx-to-spatial | FileCheck %s

// Convolutions in their channels-last normal form on the tiny chip (16x16
// crossbars, 4 per core). How many bands of output rows a conv is cut into
// is a scheduling choice (copies of the weights, local memory), so only the
// geometry of a band is checked here: every band is a compute_batch with one
// lane per output pixel of its rows (a plain spat.compute for one pixel),
// reading its input rows (with the halo) whole, or, a compute of some of
// its row tiles, the rows of their kernel rows.

// A 3x3 conv, pads 1: the input is a spat.pad view. The weights become an
// [18, 3] matrix of (kernel position, channel) rows, cut into tiles of 16
// and 2 rows. A lane's window is three kernel rows of 3 pixels x 2 channels
// = 6 contiguous elements, 12 apart (a padded row is 6 x 2); lanes step 12
// per output row and 2 per output column. Tile 0 takes the first 16 elements
// of the window (6 + 6 + 4), tile 1 the last 2. A core issues one mvm at a
// time, so on this chip each tile of a band is a compute of its own (they
// run on two cores at once) and a third adds their partial sums and the
// bias. Tile 1 reads only the last kernel row, so its compute receives
// only that input row, where its elements start at 4.
// CHECK-DAG: spat.global constant @[[W:conv_weights]] : tensor<18x3xf32>
// CHECK-DAG: spat.global constant @[[B:conv_bias]] : tensor<3xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]>
// CHECK-LABEL: func @conv_3x3
// CHECK: %[[P:.*]] = spat.pad %arg0 low [0, 1, 1, 0] high [0, 1, 1, 0] value 0.000000e+00 : tensor<1x4x4x2xf32> to tensor<1x6x6x2xf32>
// CHECK: spat.get_global @[[B]]
// CHECK: %[[P0:.*]] = spat.compute_batch lanes({{[0-9]+}}) shared(%{{.*}} : tensor<1x{{[3-6]}}x6x2xf32>) tiles [#spat.tile<@[[W]][0, 0], [16, 3]>]{{.*}} {
// CHECK: ^bb0(%[[IN:.*]]: tensor<1x{{[3-6]}}x6x2xf32>):
// CHECK: %[[K0:.*]] = spat.lane_slice %[[IN]][0 + lanes [{{[1-4]}}, 4] * [12, 2]] : tensor<1x{{[3-6]}}x6x2xf32> -> tensor<6xf32>
// CHECK: %[[K1:.*]] = spat.lane_slice %[[IN]][12 + lanes [{{[1-4]}}, 4] * [12, 2]] : {{.*}} -> tensor<6xf32>
// CHECK: %[[K2:.*]] = spat.lane_slice %[[IN]][24 + lanes [{{[1-4]}}, 4] * [12, 2]] : {{.*}} -> tensor<4xf32>
// CHECK: %[[T0:.*]] = tensor.concat dim(0) %[[K0]], %[[K1]], %[[K2]] : (tensor<6xf32>, tensor<6xf32>, tensor<4xf32>) -> tensor<16xf32>
// CHECK: %[[M0:.*]] = spat.mvm %[[T0]] tile 0 : tensor<16xf32> -> tensor<3xf32>
// CHECK: spat.yield %[[M0]] : tensor<3xf32>
// CHECK: } -> tensor<{{[0-9]+}}x3xf32>
// CHECK: %[[ROW2:.*]] = tensor.extract_slice %{{.*}}[0, 2, 0, 0] [1, 1, 6, 2] [1, 1, 1, 1] : tensor<1x3x6x2xf32> to tensor<1x1x6x2xf32>
// CHECK: %[[P1:.*]] = spat.compute_batch lanes({{[0-9]+}}) shared(%[[ROW2]] : tensor<1x1x6x2xf32>) tiles [#spat.tile<@[[W]][16, 0], [2, 3]>]{{.*}} {
// CHECK: ^bb0(%[[IN1:.*]]: tensor<1x1x6x2xf32>):
// CHECK: %[[T1:.*]] = spat.lane_slice %[[IN1]][4 + lanes [1, 4] * [12, 2]] : {{.*}} -> tensor<2xf32>
// CHECK: %[[M1:.*]] = spat.mvm %[[T1]] tile 0 : tensor<2xf32> -> tensor<3xf32>
// CHECK: spat.yield %[[M1]] : tensor<3xf32>
// CHECK: spat.compute_batch lanes({{[0-9]+}}) lane(%[[P0]], %[[P1]] : tensor<{{[0-9]+}}x3xf32>, tensor<{{[0-9]+}}x3xf32>) shared(%{{.*}} : tensor<3xf32>){{.*}} {
// CHECK: ^bb0(%[[A:.*]]: tensor<3xf32>, %[[C:.*]]: tensor<3xf32>, %[[BIAS:.*]]: tensor<3xf32>):
// CHECK: %[[S:.*]] = spat.add %[[A]], %[[C]] : tensor<3xf32>
// CHECK: %[[Y:.*]] = spat.add %[[S]], %[[BIAS]] : tensor<3xf32>
// CHECK: spat.yield %[[Y]] : tensor<3xf32>
// CHECK: } -> tensor<{{[0-9]+}}x3xf32>
// The Relu after it reads the conv's result rows (band by band, in place,
// when there are several bands).
// CHECK: spat.compute_batch lanes({{[0-9]+}}) lane(%{{.*}} : tensor<{{[0-9]+}}x3xf32>){{.*}} {
// CHECK: spat.relu %{{.*}} : tensor<3xf32>
// The bands are the rows of the result, in order.
// CHECK: spat.reshape %{{.*}} : tensor<16x3xf32> to tensor<1x4x4x3xf32>
func.func @conv_3x3(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x3xf32> {
  %w = onnx.Constant dense<0.5> : tensor<3x2x3x3xf32> : tensor<3x2x3x3xf32>
  %b = onnx.Constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32> : tensor<3xf32>
  %y = onnx.Conv %x, %w, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  %r = onnx.Relu %y : tensor<1x4x4x3xf32>
  return %r : tensor<1x4x4x3xf32>
}

// -----

// The weight matrix row of kernel position k and channel c is k * C + c:
// W[o][c][0][k] = [[[1, 2]], [[3, 4]]] for o = 0 and [[[5, 6]], [[7, 8]]]
// for o = 1 give rows (k0 c0) = [1, 5], (k0 c1) = [3, 7], (k1 c0) = [2, 6],
// (k1 c1) = [4, 8]. Without padding the input is read as it is. The chip
// has crossbars for more copies than the result has rows, so its one row is
// cut into two bands of one pixel, each reading the input columns of its
// window (2 pixels x 2 channels, contiguous); their results are the row in
// order.
// CHECK: spat.global constant @[[W:.*]] : tensor<4x2xf32> = dense<{{\[\[}}1.000000e+00, 5.000000e+00], [3.000000e+00, 7.000000e+00], [2.000000e+00, 6.000000e+00], [4.000000e+00, 8.000000e+00]]>
// CHECK-LABEL: func @weight_rows
// CHECK-NOT: spat.pad
// CHECK: %[[L:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x1x3x2xf32> to tensor<1x1x2x2xf32>
// CHECK: %[[R:.*]] = tensor.extract_slice %arg0[0, 0, 1, 0] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x1x3x2xf32> to tensor<1x1x2x2xf32>
// CHECK: %[[Y0:.*]] = spat.compute(%[[L]] : tensor<1x1x2x2xf32>) tiles [#spat.tile<@[[W]][0, 0], [4, 2]>]{{.*}} {
// CHECK: %[[X:.*]] = spat.lane_slice %{{.*}}[0 + lanes [1, 1] * [4, 2]] : tensor<1x1x2x2xf32> -> tensor<4xf32>
// CHECK: spat.mvm %[[X]] tile 0 : tensor<4xf32> -> tensor<2xf32>
// CHECK: %[[A:.*]] = spat.reshape %[[Y0]] : tensor<2xf32> to tensor<1x2xf32>
// CHECK: %[[Y1:.*]] = spat.compute(%[[R]] : tensor<1x1x2x2xf32>) tiles [#spat.tile<@[[W]][0, 0], [4, 2]>]{{.*}} {
// CHECK: %[[B:.*]] = spat.reshape %[[Y1]] : tensor<2xf32> to tensor<1x2xf32>
// CHECK: %[[Y:.*]] = tensor.concat dim(0) %[[A]], %[[B]] : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
// CHECK: spat.reshape %[[Y]] : tensor<2x2xf32> to tensor<1x1x2x2xf32>
func.func @weight_rows(%x: tensor<1x1x3x2xf32>) -> tensor<1x1x2x2xf32> {
  %w = onnx.Constant dense<[[[[1.0, 2.0]], [[3.0, 4.0]]], [[[5.0, 6.0]], [[7.0, 8.0]]]]> : tensor<2x2x1x2xf32> : tensor<2x2x1x2xf32>
  %y = onnx.Conv %x, %w {channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x3x2xf32>, tensor<2x2x1x2xf32>) -> tensor<1x1x2x2xf32>
  return %y : tensor<1x1x2x2xf32>
}

// -----

// Dilation 2 separates the kernel positions (offsets 0 and 2 pixels = 4
// elements): the window is two slices, concatenated for the crossbar.
// Stride 2 makes the lanes 2 pixels (4 elements) apart. The row is cut
// into a band of output pixel 0 (input pixels 0-2) and one of pixels 1-2
// (input pixels 2-6, 10 elements a row).
// CHECK-LABEL: func @dilated_strided
// CHECK: %[[R:.*]] = tensor.extract_slice %arg0[0, 0, 2, 0] [1, 1, 5, 2] [1, 1, 1, 1] : tensor<1x1x7x2xf32> to tensor<1x1x5x2xf32>
// CHECK: spat.compute_batch lanes(2) shared(%[[R]] : tensor<1x1x5x2xf32>) tiles [#spat.tile<@{{.*}}[0, 0], [4, 3]>]
// CHECK: %[[A:.*]] = spat.lane_slice %{{.*}}[0 + lanes [1, 2] * [10, 4]] : tensor<1x1x5x2xf32> -> tensor<2xf32>
// CHECK: %[[B:.*]] = spat.lane_slice %{{.*}}[4 + lanes [1, 2] * [10, 4]] : tensor<1x1x5x2xf32> -> tensor<2xf32>
// CHECK: %[[X:.*]] = tensor.concat dim(0) %[[A]], %[[B]] : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
// CHECK: spat.mvm %[[X]] tile 0 : tensor<4xf32> -> tensor<3xf32>
// CHECK: spat.reshape %{{.*}} : tensor<3x3xf32> to tensor<1x1x3x3xf32>
func.func @dilated_strided(%x: tensor<1x1x7x2xf32>) -> tensor<1x1x3x3xf32> {
  %w = onnx.Constant dense<1.0> : tensor<3x2x1x2xf32> : tensor<3x2x1x2xf32>
  %y = onnx.Conv %x, %w {channels_last, dilations = array<i64: 1, 2>, kernel_shape = array<i64: 1, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 2>} : (tensor<1x1x7x2xf32>, tensor<3x2x1x2xf32>) -> tensor<1x1x3x3xf32>
  return %y : tensor<1x1x3x3xf32>
}

// -----

// A grouped conv is one dense conv per group: its own [K * C/g, OC/g]
// weights, its channels of the window (group 1 starts at channel 2), its
// slice of the bias; the groups' outputs are concatenated along channels.
// CHECK-DAG: spat.global constant @[[G1:conv_g1_weights]] : tensor<2x2xf32>
// CHECK-DAG: spat.global constant @[[G0:conv_g0_weights]] : tensor<2x2xf32>
// CHECK-LABEL: func @grouped
// CHECK: %[[BIAS:.*]] = spat.get_global @conv_bias : tensor<4xf32>
// The row is cut into bands of pixel 0 and pixels 1-2.
// CHECK: %[[B0:.*]] = tensor.extract_slice %[[BIAS]][0] [2] [1] : tensor<4xf32> to tensor<2xf32>
// CHECK: %[[Y00:.*]] = spat.compute({{.*}}) tiles [#spat.tile<@[[G0]][0, 0], [2, 2]>]
// CHECK: spat.lane_slice %{{.*}}[0 + lanes [1, 1] * [4, 4]] : tensor<1x1x1x4xf32> -> tensor<2xf32>
// CHECK: %[[Y01:.*]] = spat.compute_batch lanes(2) {{.*}} tiles [#spat.tile<@[[G0]][0, 0], [2, 2]>]
// CHECK: spat.lane_slice %{{.*}}[0 + lanes [1, 2] * [8, 4]] : tensor<1x1x2x4xf32> -> tensor<2xf32>
// CHECK: %[[B1:.*]] = tensor.extract_slice %[[BIAS]][2] [2] [1] : tensor<4xf32> to tensor<2xf32>
// CHECK: %[[Y10:.*]] = spat.compute({{.*}}) tiles [#spat.tile<@[[G1]][0, 0], [2, 2]>]
// CHECK: spat.lane_slice %{{.*}}[2 + lanes [1, 1] * [4, 4]] : tensor<1x1x1x4xf32> -> tensor<2xf32>
// CHECK: %[[Y11:.*]] = spat.compute_batch lanes(2) {{.*}} tiles [#spat.tile<@[[G1]][0, 0], [2, 2]>]
// CHECK: spat.lane_slice %{{.*}}[2 + lanes [1, 2] * [8, 4]] : tensor<1x1x2x4xf32> -> tensor<2xf32>
// CHECK: tensor.concat dim(1) {{.*}} : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x4xf32>
// CHECK: tensor.concat dim(1) {{.*}} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x4xf32>
// CHECK: %[[Y:.*]] = tensor.concat dim(0) {{.*}} -> tensor<3x4xf32>
// CHECK: spat.reshape %[[Y]] : tensor<3x4xf32> to tensor<1x1x3x4xf32>
func.func @grouped(%x: tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32> {
  %w = onnx.Constant dense<1.0> : tensor<4x2x1x1xf32> : tensor<4x2x1x1xf32>
  %b = onnx.Constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> : tensor<4xf32>
  %y = onnx.Conv %x, %w, %b {channels_last, group = 2 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x3x4xf32>, tensor<4x2x1x1xf32>, tensor<4xf32>) -> tensor<1x1x3x4xf32>
  return %y : tensor<1x1x3x4xf32>
}

// -----

// A 3x3 window of 8 channels is 72 rows: 5 row tiles. A compute holds at
// most the 4 crossbars of a core, so the tiles are split 4 + 1, and a third
// compute adds the two partial sums and the bias. With one output pixel the
// computes are plain spat.compute. The padded rows and the 3 pixels of a
// row make the window one contiguous run: tile t reads at 16 t; the last
// compute only the last kernel row, so it receives that input row and
// reads it from 16.
// CHECK-LABEL: func @row_tiles
// CHECK: %[[P:.*]] = spat.pad %arg0 low [0, 1, 0, 0] high [0, 1, 0, 0] value 0.000000e+00 : tensor<1x1x3x8xf32> to tensor<1x3x3x8xf32>
// CHECK: %[[BIAS:.*]] = spat.get_global @conv_bias
// CHECK: %[[A:.*]] = spat.compute(%[[P]] : tensor<1x3x3x8xf32>) tiles [#spat.tile<@[[W:.*]][0, 0], [16, 3]>, #spat.tile<@[[W]][16, 0], [16, 3]>, #spat.tile<@[[W]][32, 0], [16, 3]>, #spat.tile<@[[W]][48, 0], [16, 3]>]{{.*}} {
// CHECK: spat.lane_slice %{{.*}}[0 + lanes [1, 1] * [24, 8]] : tensor<1x3x3x8xf32> -> tensor<16xf32>
// CHECK: spat.lane_slice %{{.*}}[16 + lanes
// CHECK: spat.lane_slice %{{.*}}[32 + lanes
// CHECK: spat.lane_slice %{{.*}}[48 + lanes
// CHECK-COUNT-3: spat.add
// CHECK: } -> tensor<3xf32>
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[P]][0, 2, 0, 0] [1, 1, 3, 8] [1, 1, 1, 1] : tensor<1x3x3x8xf32> to tensor<1x1x3x8xf32>
// CHECK: %[[B:.*]] = spat.compute(%[[ROW]] : tensor<1x1x3x8xf32>) tiles [#spat.tile<@[[W]][64, 0], [8, 3]>]{{.*}} {
// CHECK: spat.lane_slice %{{.*}}[16 + lanes [1, 1] * [24, 8]] : tensor<1x1x3x8xf32> -> tensor<8xf32>
// CHECK: spat.mvm %{{.*}} tile 0 : tensor<8xf32> -> tensor<3xf32>
// CHECK: spat.compute(%{{.*}}, %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>){{.*}} {
// CHECK: ^bb0(%[[S0:.*]]: tensor<3xf32>, %[[S1:.*]]: tensor<3xf32>, %[[SB:.*]]: tensor<3xf32>):
// CHECK: %[[S:.*]] = spat.add %[[S0]], %[[S1]]
// CHECK: spat.add %[[S]], %[[SB]]
// CHECK: spat.reshape %{{.*}} : tensor<1x3xf32> to tensor<1x1x1x3xf32>
func.func @row_tiles(%x: tensor<1x1x3x8xf32>) -> tensor<1x1x1x3xf32> {
  %w = onnx.Constant dense<1.0> : tensor<3x8x3x3xf32> : tensor<3x8x3x3xf32>
  %b = onnx.Constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32> : tensor<3xf32>
  %y = onnx.Conv %x, %w, %b {channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x3x8xf32>, tensor<3x8x3x3xf32>, tensor<3xf32>) -> tensor<1x1x1x3xf32>
  return %y : tensor<1x1x1x3xf32>
}

// -----

// 80 output channels exceed the 64 columns of a core's 4 crossbars: two
// column blocks of about half the width, rounded up to whole crossbars: 48
// (3 crossbars) and 32 (2), concatenated along channels, for each of the
// two bands of one pixel.
// CHECK-LABEL: func @column_blocks
// CHECK: %[[A:.*]] = spat.compute({{.*}}) tiles [#spat.tile<@[[W:.*]][0, 0], [4, 48]>]
// CHECK: spat.mvm %{{.*}} tile 0 : tensor<4xf32> -> tensor<48xf32>
// CHECK: %[[RA:.*]] = spat.reshape %[[A]]
// CHECK: %[[B:.*]] = spat.compute({{.*}}) tiles [#spat.tile<@[[W]][0, 48], [4, 32]>]
// CHECK: spat.mvm %{{.*}} tile 0 : tensor<4xf32> -> tensor<32xf32>
// CHECK: %[[RB:.*]] = spat.reshape %[[B]]
// CHECK: tensor.concat dim(1) %[[RA]], %[[RB]] : (tensor<1x48xf32>, tensor<1x32xf32>) -> tensor<1x80xf32>
// CHECK: tensor.concat dim(0) {{.*}} : (tensor<1x80xf32>, tensor<1x80xf32>) -> tensor<2x80xf32>
func.func @column_blocks(%x: tensor<1x1x2x4xf32>) -> tensor<1x1x2x80xf32> {
  %w = onnx.Constant dense<1.0> : tensor<80x4x1x1xf32> : tensor<80x4x1x1xf32>
  %y = onnx.Conv %x, %w {channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x4xf32>, tensor<80x4x1x1xf32>) -> tensor<1x1x2x80xf32>
  return %y : tensor<1x1x2x80xf32>
}

// -----

// A depthwise conv (one input and one output channel per group) runs on the
// vector unit: no crossbar tiles, the weights as [K, C] rows (position-major:
// W[0] = [1, 2, 3], W[1] = [4, 5, 6] -> [1, 4, 2, 5, 3, 6]), a multiply per
// kernel position and a sum with the bias. Pads 1 on W only.
// CHECK-DAG: spat.global constant @[[K:conv_depthwise]] : tensor<6xf32> = dense<[1.000000e+00, 4.000000e+00, 2.000000e+00, 5.000000e+00, 3.000000e+00, 6.000000e+00]>
// CHECK-DAG: spat.global constant @conv_bias : tensor<2xf32> = dense<[5.000000e-01, -5.000000e-01]>
// CHECK-LABEL: func @depthwise
// CHECK: spat.pad %arg0 low [0, 0, 1, 0] high [0, 0, 1, 0] value 0.000000e+00 : tensor<1x2x4x2xf32> to tensor<1x2x6x2xf32>
// CHECK: spat.get_global @[[K]]
// CHECK-NOT: tiles
// CHECK: spat.compute_batch lanes({{[0-9]+}}) shared(%{{.*}}, %{{.*}}, %{{.*}} : tensor<1x{{[12]}}x6x2xf32>, tensor<6xf32>, tensor<2xf32>){{.*}} {
// CHECK: ^bb0(%[[IN:.*]]: tensor<1x{{[12]}}x6x2xf32>, %[[W:.*]]: tensor<6xf32>, %[[BIAS:.*]]: tensor<2xf32>):
// CHECK: %[[X0:.*]] = spat.lane_slice %[[IN]][0 + lanes [{{[12]}}, 4] * [12, 2]] : {{.*}} -> tensor<2xf32>
// CHECK: %[[W0:.*]] = tensor.extract_slice %[[W]][0] [2] [1] : tensor<6xf32> to tensor<2xf32>
// CHECK: %[[P0:.*]] = spat.mul %[[X0]], %[[W0]] : tensor<2xf32>
// CHECK: %[[X1:.*]] = spat.lane_slice %[[IN]][2 + lanes
// CHECK: %[[W1:.*]] = tensor.extract_slice %[[W]][2] [2] [1]
// CHECK: %[[P1:.*]] = spat.mul %[[X1]], %[[W1]]
// CHECK: %[[X2:.*]] = spat.lane_slice %[[IN]][4 + lanes
// CHECK: %[[W2:.*]] = tensor.extract_slice %[[W]][4] [2] [1]
// CHECK: %[[P2:.*]] = spat.mul %[[X2]], %[[W2]]
// CHECK: %[[S0:.*]] = spat.add %[[P0]], %[[P1]]
// CHECK: %[[S1:.*]] = spat.add %[[S0]], %[[P2]]
// CHECK: %[[S2:.*]] = spat.add %[[S1]], %[[BIAS]]
// CHECK: spat.yield %[[S2]] : tensor<2xf32>
// CHECK-NOT: spat.mvm
// CHECK: spat.reshape %{{.*}} : tensor<8x2xf32> to tensor<1x2x4x2xf32>
func.func @depthwise(%x: tensor<1x2x4x2xf32>) -> tensor<1x2x4x2xf32> {
  %w = onnx.Constant dense<[[[[1.0, 2.0, 3.0]]], [[[4.0, 5.0, 6.0]]]]> : tensor<2x1x1x3xf32> : tensor<2x1x1x3xf32>
  %b = onnx.Constant dense<[0.5, -0.5]> : tensor<2xf32> : tensor<2xf32>
  %y = onnx.Conv %x, %w, %b {channels_last, group = 2 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 3>, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x4x2xf32>, tensor<2x1x1x3xf32>, tensor<2xf32>) -> tensor<1x2x4x2xf32>
  return %y : tensor<1x2x4x2xf32>
}

// -----

// A 1-D conv: the bands and lanes run along W; stride 2 of 2 channels
// puts the lanes 4 elements apart, and a window of 3 pixels is 6 contiguous
// elements.
// CHECK-LABEL: func @conv_1d
// CHECK: spat.pad %arg0 low [0, 1, 0] high [0, 0, 0] value 0.000000e+00 : tensor<1x5x2xf32> to tensor<1x6x2xf32>
// CHECK: spat.lane_slice %{{.*}}[0 + lanes [{{[12]}}] * [4]] : tensor<1x{{[35]}}x2xf32> -> tensor<6xf32>
// CHECK: spat.mvm %{{.*}} tile 0 : tensor<6xf32> -> tensor<3xf32>
// CHECK: spat.reshape %{{.*}} : tensor<2x3xf32> to tensor<1x2x3xf32>
func.func @conv_1d(%x: tensor<1x5x2xf32>) -> tensor<1x2x3xf32> {
  %w = onnx.Constant dense<1.0> : tensor<3x2x3xf32> : tensor<3x2x3xf32>
  %y = onnx.Conv %x, %w {channels_last, dilations = array<i64: 1>, kernel_shape = array<i64: 3>, pads = array<i64: 1, 0>, strides = array<i64: 2>} : (tensor<1x5x2xf32>, tensor<3x2x3xf32>) -> tensor<1x2x3xf32>
  return %y : tensor<1x2x3xf32>
}
