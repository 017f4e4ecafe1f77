// RUN: pimc-opt %s --split-input-file --verify-diagnostics --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows --convert-onnx-to-spatial

// Windows must be in the normal form stage 1 makes.
func.func @conv_not_channels_last(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = onnx.Constant dense<1.0> : tensor<2x2x1x1xf32> : tensor<2x2x1x1xf32>
  // expected-error @+2 {{Conv is not in channels-last normal form (run onnx-canonicalize and onnx-channels-last)}}
  // expected-error @+1 {{failed to legalize operation 'onnx.Conv'}}
  %y = onnx.Conv %x, %w {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

func.func @conv_computed_weights(%x: tensor<1x3x3x2xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x3x3x2xf32> {
  // expected-error @+2 {{the weights (input W) must be a constant}}
  // expected-error @+1 {{failed to legalize operation 'onnx.Conv'}}
  %y = onnx.Conv %x, %w {channels_last, kernel_shape = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x3x3x2xf32>
  return %y : tensor<1x3x3x2xf32>
}

// -----

func.func @conv_computed_bias(%x: tensor<1x3x3x2xf32>, %b: tensor<2xf32>) -> tensor<1x3x3x2xf32> {
  %w = onnx.Constant dense<1.0> : tensor<2x2x1x1xf32> : tensor<2x2x1x1xf32>
  // expected-error @+2 {{the bias (input B) must be a constant}}
  // expected-error @+1 {{failed to legalize operation 'onnx.Conv'}}
  %y = onnx.Conv %x, %w, %b {channels_last, kernel_shape = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x3x3x2xf32>
  return %y : tensor<1x3x3x2xf32>
}

// -----

// auto_pad is resolved by onnx-canonicalize, not here.
func.func @pool_auto_pad(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  // expected-error @+2 {{pooling is not in channels-last normal form (run onnx-canonicalize and onnx-channels-last)}}
  // expected-error @+1 {{failed to legalize operation 'onnx.MaxPool'}}
  %y = onnx.MaxPool %x {channels_last, auto_pad = "SAME_UPPER", kernel_shape = array<i64: 3, 3>} : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  return %y : tensor<1x3x3x2xf32>
}

// -----

func.func @global_pool_not_channels_last(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32> {
  // expected-error @+2 {{global pooling is not channels-last (run onnx-channels-last)}}
  // expected-error @+1 {{failed to legalize operation 'onnx.GlobalAveragePool'}}
  %y = onnx.GlobalAveragePool %x : (tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32>
  return %y : tensor<1x2x1x1xf32>
}

// -----

func.func @pad_edge(%x: tensor<2x3xf32>) -> tensor<3x3xf32> {
  %p = onnx.Constant dense<[1, 0, 0, 0]> : tensor<4xi64> : tensor<4xi64>
  // expected-error @+2 {{Pad mode 'edge' is not supported (only constant padding)}}
  // expected-error @+1 {{failed to legalize operation 'onnx.Pad'}}
  %y = onnx.Pad %x, %p {mode = "edge"} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<3x3xf32>
  return %y : tensor<3x3xf32>
}

// -----

func.func @pad_computed_pads(%x: tensor<2x3xf32>, %p: tensor<4xi64>) -> tensor<3x3xf32> {
  // expected-error @+2 {{Pad needs constant pads}}
  // expected-error @+1 {{failed to legalize operation 'onnx.Pad'}}
  %y = onnx.Pad %x, %p : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<3x3xf32>
  return %y : tensor<3x3xf32>
}

// -----

func.func @pad_computed_value(%x: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<3x3xf32> {
  %p = onnx.Constant dense<[1, 0, 0, 0]> : tensor<4xi64> : tensor<4xi64>
  // expected-error @+2 {{Pad needs a constant padding value}}
  // expected-error @+1 {{failed to legalize operation 'onnx.Pad'}}
  %y = onnx.Pad %x, %p, %v : (tensor<2x3xf32>, tensor<4xi64>, tensor<f32>) -> tensor<3x3xf32>
  return %y : tensor<3x3xf32>
}

// -----

func.func @pad_negative(%x: tensor<2x3xf32>) -> tensor<1x3xf32> {
  %p = onnx.Constant dense<[-1, 0, 0, 0]> : tensor<4xi64> : tensor<4xi64>
  // expected-error @+2 {{negative pads (cropping) are not supported}}
  // expected-error @+1 {{failed to legalize operation 'onnx.Pad'}}
  %y = onnx.Pad %x, %p : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<1x3xf32>
  return %y : tensor<1x3xf32>
}

// -----

func.func @clip_computed_bound(%x: tensor<2x3xf32>, %m: tensor<f32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{Clip bounds must be constants}}
  // expected-error @+1 {{failed to legalize operation 'onnx.Clip'}}
  %y = onnx.Clip %x min %m : tensor<f32> : tensor<2x3xf32> -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// onnx-canonicalize rewrites every BatchNormalization with constant
// parameters; there is no lowering for one left over.
func.func @batch_norm(%x: tensor<1x2x3x3xf32>, %p: tensor<2xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+1 {{failed to legalize operation 'onnx.BatchNormalization'}}
  %y = onnx.BatchNormalization %x, %p, %p, %p, %p : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}
