// RUN: pimc-opt %s --split-input-file --onnx-plan-windows --convert-onnx-to-spatial | FileCheck %s

// Element-wise work has one lane per row of the last dimension; an operand
// repeating one row is shared by the lanes.
// CHECK-LABEL: func @add_rows
// CHECK: %[[X:.*]] = spat.reshape %arg0 : tensor<3x4x5xf32> to tensor<12x5xf32>
// CHECK: spat.compute_batch lanes(12) lane(%[[X]] : tensor<12x5xf32>) shared(%arg1 : tensor<5xf32>){{.*}} {
// CHECK: ^bb0(%[[ROW:.*]]: tensor<5xf32>, %[[SHARED:.*]]: tensor<5xf32>):
// CHECK: spat.add %[[ROW]], %[[SHARED]] : tensor<5xf32>
// CHECK: spat.reshape %{{.*}} : tensor<12x5xf32> to tensor<3x4x5xf32>
func.func @add_rows(%x: tensor<3x4x5xf32>, %y: tensor<5xf32>) -> tensor<3x4x5xf32> {
  %a = onnx.Add %x, %y : (tensor<3x4x5xf32>, tensor<5xf32>) -> tensor<3x4x5xf32>
  return %a : tensor<3x4x5xf32>
}

// -----

// A constant broadcast along another dimension is expanded at compile time.
// CHECK: spat.global constant @{{.*}}broadcast : tensor<2x3xf32> = dense<{{\[}}[1.000000e+00, 1.000000e+00, 1.000000e+00], [2.000000e+00, 2.000000e+00, 2.000000e+00]]>
func.func @add_column_constant(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-LABEL: func @add_column_constant
  %c = onnx.Constant dense<[[1.0], [2.0]]> : tensor<2x1xf32> : tensor<2x1xf32>
  %a = onnx.Add %x, %c : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %a : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @unary
// CHECK: spat.compute(%{{.*}} : tensor<6xf32>){{.*}} {
// CHECK: spat.sigmoid
// CHECK: spat.compute(%{{.*}} : tensor<6xf32>){{.*}} {
// CHECK: spat.tanh
func.func @unary(%x: tensor<1x6xf32>) -> tensor<1x6xf32> {
  %s = onnx.Sigmoid %x : tensor<1x6xf32>
  %t = onnx.Tanh %s : tensor<1x6xf32>
  return %t : tensor<1x6xf32>
}

// -----

// A transpose gathers each output row: lane (i, j) of a [2, 3, 4] -> [4, 2, 3]
// transpose (perm 2, 0, 1) starts at input element i * 12 + j * 4 ... of
// output row (a, b) = input[b, c, a] over c with stride 4.
// CHECK-LABEL: func @transpose
// CHECK: spat.compute_batch lanes(8) shared(%arg0 : tensor<2x3x4xf32>){{.*}} {
// CHECK: spat.gather %{{.*}}[0 + lanes [4, 2] * [1, 12]] stride 4 : tensor<2x3x4xf32> -> tensor<3xf32>
// CHECK: spat.reshape %{{.*}} : tensor<8x3xf32> to tensor<4x2x3xf32>
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %t = onnx.Transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %t : tensor<4x2x3xf32>
}

// -----

// A transpose that keeps the order of the elements is a reshape.
// CHECK-LABEL: func @transpose_unit
// CHECK-NOT: spat.gather
// CHECK: spat.reshape %arg0 : tensor<1x5xf32> to tensor<5x1xf32>
func.func @transpose_unit(%x: tensor<1x5xf32>) -> tensor<5x1xf32> {
  %t = onnx.Transpose %x {perm = array<i64: 1, 0>} : (tensor<1x5xf32>) -> tensor<5x1xf32>
  return %t : tensor<5x1xf32>
}

// -----

// Max shares a broadcast row like the other binary operators.
// CHECK-LABEL: func @max_rows
// CHECK: spat.compute_batch lanes(12) lane(%{{.*}} : tensor<12x5xf32>) shared(%arg1 : tensor<5xf32>){{.*}} {
// CHECK: spat.max %{{.*}}, %{{.*}} : tensor<5xf32>
func.func @max_rows(%x: tensor<3x4x5xf32>, %y: tensor<5xf32>) -> tensor<3x4x5xf32> {
  %m = onnx.Max %x, %y : (tensor<3x4x5xf32>, tensor<5xf32>) -> tensor<3x4x5xf32>
  return %m : tensor<3x4x5xf32>
}
