// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows --convert-onnx-to-spatial | FileCheck %s

// Every compute carries the number of the model node it computes part of,
// by the node's place in the model (the constants count): the Gemm's tiles
// and their sum are node 2, the Relu node 3, the second Gemm node 5. Two
// nodes are told apart by their locations, as the importer gives them.
// CHECK-LABEL: func @layers
// CHECK-COUNT-2: tiles [#spat.tile<{{.*}}>] attributes {spat.layer = 2 : i64}
// CHECK: spat.compute_batch lanes(2) lane({{.*}}) shared({{.*}}) attributes {spat.layer = 2 : i64}
// CHECK: spat.compute_batch lanes(2) lane({{.*}}) attributes {spat.layer = 3 : i64}
// CHECK: spat.relu
// CHECK: tiles [#spat.tile<{{.*}}>] attributes {spat.layer = 5 : i64}
func.func @layers(%a: tensor<2x20xf32>) -> tensor<2x8xf32> {
  %w = onnx.Constant dense<0.5> : tensor<20x16xf32> : tensor<20x16xf32> loc("w")
  %b = onnx.Constant dense<1.0> : tensor<16xf32> : tensor<16xf32> loc("b")
  %y = onnx.Gemm %a, %w, %b : (tensor<2x20xf32>, tensor<20x16xf32>, tensor<16xf32>) -> tensor<2x16xf32> loc("fc1")
  %r = onnx.Relu %y : tensor<2x16xf32> loc("relu")
  %v = onnx.Constant dense<0.25> : tensor<16x8xf32> : tensor<16x8xf32> loc("v")
  %z = onnx.Gemm %r, %v : (tensor<2x16xf32>, tensor<16x8xf32>) -> tensor<2x8xf32> loc("fc2")
  return %z : tensor<2x8xf32>
}
