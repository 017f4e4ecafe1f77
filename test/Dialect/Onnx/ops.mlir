// RUN: pimc-opt %s | pimc-opt | FileCheck %s

// CHECK-LABEL: func @mlp
func.func @mlp(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  // CHECK: onnx.Constant dense<1.000000e+00> : tensor<4x3xf32> : tensor<4x3xf32>
  %w = onnx.Constant dense<1.0> : tensor<4x3xf32> : tensor<4x3xf32>
  %b = onnx.Constant dense<0.5> : tensor<3xf32> : tensor<3xf32>
  // CHECK: onnx.Gemm %{{.*}}, %{{.*}}, %{{.*}} {alpha = 2.000000e+00 : f32} : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %g = onnx.Gemm %x, %w, %b {alpha = 2.0 : f32} : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: onnx.Relu %{{.*}} : tensor<2x3xf32>
  %r = onnx.Relu %g : tensor<2x3xf32>
  %s = onnx.Sigmoid %r : tensor<2x3xf32>
  %t = onnx.Tanh %s : tensor<2x3xf32>
  %i = onnx.Identity %t : tensor<2x3xf32>
  // CHECK: onnx.Add
  %a = onnx.Add %i, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %m = onnx.MatMul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %f = onnx.Flatten %a {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<1x6xf32>
  %shape = onnx.Constant dense<[3, 2]> : tensor<2xi64> : tensor<2xi64>
  // CHECK: onnx.Reshape
  %rs = onnx.Reshape %f, %shape : (tensor<1x6xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  // CHECK: onnx.Transpose %{{.*}} {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %tr = onnx.Transpose %rs {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  return %tr : tensor<2x3xf32>
}

