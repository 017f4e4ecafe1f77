// RUN: pimc-opt %s --split-input-file --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows --convert-onnx-to-spatial | FileCheck %s

// Constant padding is a view (spat.pad) that its consumers read as filled
// data; the padding value comes from the scalar constant.
// CHECK-LABEL: func @pad
// CHECK: %[[P:.*]] = spat.pad %arg0 low [0, 1, 0] high [0, 2, 1] value -1.500000e+00 : tensor<1x2x3xf32> to tensor<1x5x4xf32>
// CHECK: %[[R:.*]] = spat.reshape %[[P]] : tensor<1x5x4xf32> to tensor<5x4xf32>
// CHECK: spat.compute_batch lanes(5) lane(%[[R]] : tensor<5x4xf32>){{.*}} {
// CHECK: spat.relu
func.func @pad(%x: tensor<1x2x3xf32>) -> tensor<1x5x4xf32> {
  %p = onnx.Constant dense<[0, 1, 0, 0, 2, 1]> : tensor<6xi64> : tensor<6xi64>
  %v = onnx.Constant dense<-1.5> : tensor<f32> : tensor<f32>
  %y = onnx.Pad %x, %p, %v : (tensor<1x2x3xf32>, tensor<6xi64>, tensor<f32>) -> tensor<1x5x4xf32>
  %r = onnx.Relu %y : tensor<1x5x4xf32>
  return %r : tensor<1x5x4xf32>
}

// -----

// Without a value the padding is 0; no compute is needed.
// CHECK-LABEL: func @pad_zero
// CHECK-NEXT: %[[P:.*]] = spat.pad %arg0 low [1, 0] high [0, 0] value 0.000000e+00 : tensor<2x3xf32> to tensor<3x3xf32>
// CHECK-NEXT: return %[[P]]
func.func @pad_zero(%x: tensor<2x3xf32>) -> tensor<3x3xf32> {
  %p = onnx.Constant dense<[1, 0, 0, 0]> : tensor<4xi64> : tensor<4xi64>
  %y = onnx.Pad %x, %p : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<3x3xf32>
  return %y : tensor<3x3xf32>
}

// -----

// A concatenation is a view too (the negative axis normalized); consumers
// read the parts where they are.
// CHECK-LABEL: func @concat
// CHECK: %[[C:.*]] = tensor.concat dim(2) %arg0, %arg1 : (tensor<1x2x3xf32>, tensor<1x2x5xf32>) -> tensor<1x2x8xf32>
// CHECK: %[[R:.*]] = spat.reshape %[[C]] : tensor<1x2x8xf32> to tensor<2x8xf32>
// CHECK: spat.compute_batch lanes(2) lane(%[[R]] : tensor<2x8xf32>)
func.func @concat(%x: tensor<1x2x3xf32>, %y: tensor<1x2x5xf32>) -> tensor<1x2x8xf32> {
  %c = onnx.Concat %x, %y {axis = -1 : i64} : (tensor<1x2x3xf32>, tensor<1x2x5xf32>) -> tensor<1x2x8xf32>
  %r = onnx.Relu %c : tensor<1x2x8xf32>
  return %r : tensor<1x2x8xf32>
}

// -----

// A concatenation of one input is the input.
// CHECK-LABEL: func @concat_one
// CHECK-NEXT: return %arg0
func.func @concat_one(%x: tensor<1x2x3xf32>) -> tensor<1x2x3xf32> {
  %c = onnx.Concat %x {axis = 0 : i64} : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  return %c : tensor<1x2x3xf32>
}

// -----

// Clip clamps each row by one-element bounds every lane reads as they are
// (a rank-0 bound becomes a [1] global): ReLU6 is clamp_min 0, clamp_max 6.
// CHECK-DAG: spat.global constant @[[LO:clip_min]] : tensor<1xf32> = dense<0.000000e+00>
// CHECK-DAG: spat.global constant @[[HI:clip_max]] : tensor<1xf32> = dense<6.000000e+00>
// CHECK-LABEL: func @clip
// CHECK: %[[L:.*]] = spat.get_global @[[LO]] : tensor<1xf32>
// CHECK: %[[H:.*]] = spat.get_global @[[HI]] : tensor<1xf32>
// CHECK: spat.compute_batch lanes(3) lane(%arg0 : tensor<3x4xf32>) shared(%[[L]], %[[H]] : tensor<1xf32>, tensor<1xf32>){{.*}} {
// CHECK: ^bb0(%[[X:.*]]: tensor<4xf32>, %[[A:.*]]: tensor<1xf32>, %[[B:.*]]: tensor<1xf32>):
// CHECK: %[[Y:.*]] = spat.clamp_min %[[X]], %[[A]] : tensor<4xf32>, tensor<1xf32>
// CHECK: %[[Z:.*]] = spat.clamp_max %[[Y]], %[[B]] : tensor<4xf32>, tensor<1xf32>
// CHECK: spat.yield %[[Z]]
func.func @clip(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %lo = onnx.Constant dense<0.0> : tensor<f32> : tensor<f32>
  %hi = onnx.Constant dense<6.0> : tensor<1xf32> : tensor<1xf32>
  %y = onnx.Clip %x min %lo : tensor<f32> max %hi : tensor<1xf32> : tensor<3x4xf32> -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

// A Clip with one bound clamps on that side only; one without bounds only
// copies.
// CHECK-LABEL: func @clip_one_bound
// CHECK: spat.compute_batch lanes(3) lane(%arg0 : tensor<3x4xf32>) shared(%{{.*}} : tensor<1xf32>){{.*}} {
// CHECK-NOT: spat.clamp_min
// CHECK: spat.clamp_max
// CHECK: spat.compute_batch lanes(3) lane(%{{.*}} : tensor<3x4xf32>){{.*}} {
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4xf32>):
// CHECK-NEXT: spat.yield %[[X]] : tensor<4xf32>
func.func @clip_one_bound(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %hi = onnx.Constant dense<6.0> : tensor<f32> : tensor<f32>
  %y = onnx.Clip %x max %hi : tensor<f32> : tensor<3x4xf32> -> tensor<3x4xf32>
  %z = onnx.Clip %y : tensor<3x4xf32> -> tensor<3x4xf32>
  return %z : tensor<3x4xf32>
}

// -----

// LeakyRelu with alpha <= 1 is max(x, alpha x), alpha a shared row.
// CHECK-DAG: spat.global constant @[[A:leaky_alpha]] : tensor<4xf32> = dense<2.500000e-01>
// CHECK-LABEL: func @leaky_relu
// CHECK: spat.compute_batch lanes(3) lane(%arg0 : tensor<3x4xf32>) shared(%{{.*}} : tensor<4xf32>){{.*}} {
// CHECK: ^bb0(%[[X:.*]]: tensor<4xf32>, %[[ALPHA:.*]]: tensor<4xf32>):
// CHECK: %[[S:.*]] = spat.mul %[[X]], %[[ALPHA]] : tensor<4xf32>
// CHECK: %[[Y:.*]] = spat.max %[[X]], %[[S]] : tensor<4xf32>
// CHECK: spat.yield %[[Y]]
func.func @leaky_relu(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %y = onnx.LeakyRelu %x {alpha = 0.25 : f32} : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

// With alpha > 1 the max would pick alpha x for x > 0: it is
// alpha x + (1 - alpha) relu(x) instead, 1 - alpha = -1 another shared row.
// CHECK-DAG: spat.global constant @[[A:leaky_alpha]] : tensor<4xf32> = dense<2.000000e+00>
// CHECK-DAG: spat.global constant @[[B:leaky_beta]] : tensor<4xf32> = dense<-1.000000e+00>
// CHECK-LABEL: func @leaky_relu_steep
// CHECK: ^bb0(%[[X:.*]]: tensor<4xf32>, %[[ALPHA:.*]]: tensor<4xf32>, %[[BETA:.*]]: tensor<4xf32>):
// CHECK: %[[S:.*]] = spat.mul %[[X]], %[[ALPHA]]
// CHECK: %[[R:.*]] = spat.relu %[[X]]
// CHECK: %[[T:.*]] = spat.mul %[[R]], %[[BETA]]
// CHECK: %[[Y:.*]] = spat.add %[[S]], %[[T]]
// CHECK: spat.yield %[[Y]]
func.func @leaky_relu_steep(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %y = onnx.LeakyRelu %x {alpha = 2.0 : f32} : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}
