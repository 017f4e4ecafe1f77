// RUN: pimc-opt %s | pimc-opt | FileCheck %s

// The window operators keep their optional attributes as written; an
// absent list means the ONNX default.
// CHECK-LABEL: func @conv
func.func @conv(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x4x4xf32> {
  // CHECK: onnx.Conv %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x4x4xf32>
  %y = onnx.Conv %x, %w, %b {group = 2 : i64, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x4x4xf32>
  return %y : tensor<1x6x4x4xf32>
}

// CHECK-LABEL: func @conv_defaults
func.func @conv_defaults(%x: tensor<1x3x5x5xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x2x5x5xf32> {
  // Without a bias, with auto_pad; the default group is not printed.
  // CHECK: onnx.Conv %{{.*}}, %{{.*}} {auto_pad = "SAME_UPPER"} : (tensor<1x3x5x5xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x5x5xf32>
  %y = onnx.Conv %x, %w {auto_pad = "SAME_UPPER"} : (tensor<1x3x5x5xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x5x5xf32>
  return %y : tensor<1x2x5x5xf32>
}

// channels_last: X [N, H, W, C], Y [N, OH, OW, OC], the weights in ONNX order.
// CHECK-LABEL: func @conv_channels_last
func.func @conv_channels_last(%x: tensor<1x6x6x4xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x3x3x4xf32> {
  // CHECK: onnx.Conv %{{.*}}, %{{.*}} {channels_last, group = 4 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x6x6x4xf32>, tensor<4x1x3x3xf32>) -> tensor<1x3x3x4xf32>
  %y = onnx.Conv %x, %w {channels_last, group = 4 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x6x6x4xf32>, tensor<4x1x3x3xf32>) -> tensor<1x3x3x4xf32>
  return %y : tensor<1x3x3x4xf32>
}

// CHECK-LABEL: func @pools
func.func @pools(%x: tensor<1x4x8x8xf32>, %xl: tensor<1x8x8x4xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x4x5x5xf32>, tensor<1x4x1x1xf32>, tensor<1x1x1x4xf32>, tensor<1x4x4x4xf32>) {
  // CHECK: onnx.MaxPool %{{.*}} {dilations = array<i64: 2, 2>, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x3x3xf32>
  %m = onnx.MaxPool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x3x3xf32>
  // CHECK: onnx.AveragePool %{{.*}} {ceil_mode = 1 : i64, count_include_pad = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x5x5xf32>
  %a = onnx.AveragePool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = 1 : i64, ceil_mode = 1 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x5x5xf32>
  // CHECK: onnx.GlobalAveragePool %{{.*}} : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %g = onnx.GlobalAveragePool %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  // CHECK: onnx.GlobalMaxPool %{{.*}} {channels_last} : (tensor<1x8x8x4xf32>) -> tensor<1x1x1x4xf32>
  %gm = onnx.GlobalMaxPool %xl {channels_last} : (tensor<1x8x8x4xf32>) -> tensor<1x1x1x4xf32>
  // The defaults (ceil_mode 0, count_include_pad 0) are not printed.
  // CHECK: onnx.AveragePool %{{.*}} {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %d = onnx.AveragePool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = 0 : i64, count_include_pad = 0 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %m, %a, %g, %gm, %d : tensor<1x4x3x3xf32>, tensor<1x4x5x5xf32>, tensor<1x4x1x1xf32>, tensor<1x1x1x4xf32>, tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func @batch_norm
func.func @batch_norm(%x: tensor<1x3x2x2xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<1x3x2x2xf32> {
  // CHECK: onnx.BatchNormalization %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32} : (tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
  %y = onnx.BatchNormalization %x, %s, %b, %m, %v {epsilon = 1.0e-3 : f32} : (tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
  return %y : tensor<1x3x2x2xf32>
}

// CHECK-LABEL: func @data_movement
func.func @data_movement(%x: tensor<1x2x3xf32>, %y: tensor<1x4x3xf32>) -> (tensor<1x6x3xf32>, tensor<3x6x4xf32>, tensor<3x6x1xf32>) {
  // CHECK: onnx.Concat %{{.*}}, %{{.*}} {axis = -2 : i64} : (tensor<1x2x3xf32>, tensor<1x4x3xf32>) -> tensor<1x6x3xf32>
  %c = onnx.Concat %x, %y {axis = -2 : i64} : (tensor<1x2x3xf32>, tensor<1x4x3xf32>) -> tensor<1x6x3xf32>
  %pads = onnx.Constant dense<[1, 0, 0, 1, 0, 1]> : tensor<6xi64> : tensor<6xi64>
  %value = onnx.Constant dense<-1.0> : tensor<f32> : tensor<f32>
  // CHECK: onnx.Pad %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x6x3xf32>, tensor<6xi64>, tensor<f32>) -> tensor<3x6x4xf32>
  %p = onnx.Pad %c, %pads, %value : (tensor<1x6x3xf32>, tensor<6xi64>, tensor<f32>) -> tensor<3x6x4xf32>
  // CHECK: onnx.Pad %{{.*}}, %{{.*}} {mode = "edge"} : (tensor<1x6x3xf32>, tensor<6xi64>) -> tensor<3x6x1xf32>
  %pads2 = onnx.Constant dense<[1, 0, 0, 1, 0, -2]> : tensor<6xi64> : tensor<6xi64>
  %e = onnx.Pad %c, %pads2 {mode = "edge"} : (tensor<1x6x3xf32>, tensor<6xi64>) -> tensor<3x6x1xf32>
  return %c, %p, %e : tensor<1x6x3xf32>, tensor<3x6x4xf32>, tensor<3x6x1xf32>
}

// CHECK-LABEL: func @activations
func.func @activations(%x: tensor<2x3xf32>, %lo: tensor<f32>, %hi: tensor<1xf32>) -> tensor<2x3xf32> {
  // CHECK: onnx.Clip %{{.*}} min %{{.*}} : tensor<f32> max %{{.*}} : tensor<1xf32> : tensor<2x3xf32> -> tensor<2x3xf32>
  %a = onnx.Clip %x min %lo : tensor<f32> max %hi : tensor<1xf32> : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: onnx.Clip %{{.*}} max %{{.*}} : tensor<1xf32> : tensor<2x3xf32> -> tensor<2x3xf32>
  %b = onnx.Clip %a max %hi : tensor<1xf32> : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: onnx.Clip %{{.*}} min %{{.*}} : tensor<f32> : tensor<2x3xf32> -> tensor<2x3xf32>
  %c = onnx.Clip %b min %lo : tensor<f32> : tensor<2x3xf32> -> tensor<2x3xf32>
  // Without bounds Clip is the identity, but it still parses.
  // CHECK: onnx.Clip %{{.*}} : tensor<2x3xf32> -> tensor<2x3xf32>
  %d = onnx.Clip %c : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: onnx.LeakyRelu %{{.*}} {alpha = 2.000000e-01 : f32} : tensor<2x3xf32>
  %e = onnx.LeakyRelu %d {alpha = 0.2 : f32} : tensor<2x3xf32>
  // The default alpha (0.01) is not printed.
  // CHECK: onnx.LeakyRelu %{{.*}} : tensor<2x3xf32>
  %f = onnx.LeakyRelu %e : tensor<2x3xf32>
  return %f : tensor<2x3xf32>
}

// CHECK-LABEL: func @transpose
func.func @transpose(%x: tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32> {
  // CHECK: onnx.Transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
  %t = onnx.Transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
  return %t : tensor<1x3x4x2xf32>
}
