// RUN: pimc-opt %s -split-input-file -verify-diagnostics


func.func @gemm_inner_mismatch(%x: tensor<2x4xf32>, %w: tensor<5x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{inner dimensions differ: 4 and 5}}
  %g = onnx.Gemm %x, %w : (tensor<2x4xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

func.func @gemm_bad_bias(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>, %c: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{C of shape [2] does not broadcast to [2, 3]}}
  %g = onnx.Gemm %x, %w, %c : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

func.func @matmul_shape(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{result shape [2, 4] differs from the expected [2, 3]}}
  %m = onnx.MatMul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  return %m : tensor<2x4xf32>
}

// -----

func.func @add_broadcast(%x: tensor<2x4xf32>, %y: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{shapes [2, 4] and [3] do not broadcast}}
  %a = onnx.Add %x, %y : (tensor<2x4xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return %a : tensor<2x4xf32>
}

// -----

func.func @flatten_axis(%x: tensor<2x4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{axis 3 is outside [-2, 2]}}
  %f = onnx.Flatten %x {axis = 3 : i64} : (tensor<2x4xf32>) -> tensor<8xf32>
  return %f : tensor<8xf32>
}

// -----

func.func @reshape_count(%x: tensor<2x4xf32>, %s: tensor<2xi64>) -> tensor<3x3xf32> {
  // expected-error @+1 {{cannot reshape 8 elements into 9}}
  %r = onnx.Reshape %x, %s : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}

// -----

func.func @transpose_perm(%x: tensor<2x4xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{perm is not a permutation}}
  %t = onnx.Transpose %x {perm = array<i64: 0, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  return %t : tensor<4x2xf32>
}
