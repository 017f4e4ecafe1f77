// RUN: pimc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(onnx-canonicalize))' | FileCheck %s

// transB and alpha are folded into the weights, beta and the broadcast of a
// [1, N] bias into a [N] bias.
// CHECK-LABEL: func @gemm_normal_form
func.func @gemm_normal_form(%a: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %b = onnx.Constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> : tensor<2x3xf32>
  %c = onnx.Constant dense<[[1.0, -1.0]]> : tensor<1x2xf32> : tensor<1x2xf32>
  // CHECK-DAG: %[[W:.*]] = onnx.Constant dense<{{\[}}[2.000000e+00, 8.000000e+00], [4.000000e+00, 1.000000e+01], [6.000000e+00, 1.200000e+01]]> : tensor<3x2xf32>
  // CHECK-DAG: %[[C:.*]] = onnx.Constant dense<[5.000000e-01, -5.000000e-01]> : tensor<2xf32>
  // CHECK: onnx.Gemm %{{.*}}, %[[W]], %[[C]] : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %y = onnx.Gemm %a, %b, %c {alpha = 2.0 : f32, beta = 0.5 : f32, transB = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// transA becomes an explicit Transpose of the activations.
// CHECK-LABEL: func @gemm_trans_a
func.func @gemm_trans_a(%a: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %b = onnx.Constant dense<1.0> : tensor<3x2xf32> : tensor<3x2xf32>
  // CHECK: %[[T:.*]] = onnx.Transpose %{{.*}} {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  // CHECK: onnx.Gemm %[[T]], %{{.*}} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %y = onnx.Gemm %a, %b {transA = 1 : i64} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// A MatMul by constant weights and the Add of a bias after it become one Gemm
// over the rows of every batch.
// CHECK-LABEL: func @matmul_add
func.func @matmul_add(%a: tensor<2x3x4xf32>) -> tensor<2x3x5xf32> {
  %w = onnx.Constant dense<0.25> : tensor<4x5xf32> : tensor<4x5xf32>
  %b = onnx.Constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32> : tensor<5xf32>
  // CHECK: %[[A:.*]] = onnx.Reshape %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  // CHECK: %[[G:.*]] = onnx.Gemm %[[A]], %{{.*}}, %{{.*}} : (tensor<6x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<6x5xf32>
  // CHECK: onnx.Reshape %[[G]], %{{.*}} : (tensor<6x5xf32>, tensor<3xi64>) -> tensor<2x3x5xf32>
  // CHECK-NOT: onnx.Add
  %m = onnx.MatMul %a, %w : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %y = onnx.Add %m, %b : (tensor<2x3x5xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// Identity folds away, Flatten is a Reshape, chains of reshapes collapse.
// CHECK-LABEL: func @reshapes
func.func @reshapes(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  // CHECK-NOT: onnx.Identity
  // CHECK-NOT: onnx.Flatten
  // CHECK: %[[R:.*]] = onnx.Reshape %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  // CHECK-NEXT: return %[[R]]
  %i = onnx.Identity %x : tensor<2x3x4xf32>
  %f = onnx.Flatten %i {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %s = onnx.Constant dense<[4, 6]> : tensor<2xi64> : tensor<2xi64>
  %r = onnx.Reshape %f, %s : (tensor<2x12xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

// Operations on constants only are evaluated at compile time.
// CHECK-LABEL: func @fold_constants
func.func @fold_constants() -> tensor<2xf32> {
  // relu(a + b) = [0, 3], then + a + b three times: [-1.5, 12].
  // CHECK: %[[C:.*]] = onnx.Constant dense<[-1.500000e+00, 1.200000e+01]> : tensor<2xf32>
  // CHECK-NEXT: return %[[C]]
  %a = onnx.Constant dense<[-1.0, 1.0]> : tensor<2xf32> : tensor<2xf32>
  %b = onnx.Constant dense<[0.5, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %s = onnx.Add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %r = onnx.Relu %s : tensor<2xf32>
  %t = onnx.Add %r, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %u = onnx.Add %t, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %v = onnx.Add %u, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %w = onnx.Add %v, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %x = onnx.Add %w, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %y = onnx.Add %x, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// A Slice and a Split of constants are folded: columns 2, 0 (start -1, step
// -2) of [[1, 2, 3], [4, 5, 6]], then its rows.
// CHECK-LABEL: func @fold_slice_split
// CHECK-DAG: %[[A:.*]] = onnx.Constant dense<{{\[}}[3.000000e+00, 1.000000e+00]]> : tensor<1x2xf32>
// CHECK-DAG: %[[B:.*]] = onnx.Constant dense<{{\[}}[6.000000e+00, 4.000000e+00]]> : tensor<1x2xf32>
// CHECK-NOT: onnx.Slice
// CHECK-NOT: onnx.Split
// CHECK: return %[[A]], %[[B]]
func.func @fold_slice_split() -> (tensor<1x2xf32>, tensor<1x2xf32>) {
  %c = onnx.Constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> : tensor<2x3xf32>
  %starts = onnx.Constant dense<[-1]> : tensor<1xi64> : tensor<1xi64>
  %ends = onnx.Constant dense<[-10]> : tensor<1xi64> : tensor<1xi64>
  %axes = onnx.Constant dense<[1]> : tensor<1xi64> : tensor<1xi64>
  %steps = onnx.Constant dense<[-2]> : tensor<1xi64> : tensor<1xi64>
  %s = onnx.Slice %c, %starts, %ends axes %axes steps %steps : (tensor<2x3xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x2xf32>
  %a, %b = onnx.Split %s {axis = 0 : i64} : (tensor<2x2xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>)
  return %a, %b : tensor<1x2xf32>, tensor<1x2xf32>
}
