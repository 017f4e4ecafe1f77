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

// -----

// The verifiers of the CNN operators.

func.func @conv_weights_rank(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{weights need one dimension per spatial dimension, plus two}}
  %y = onnx.Conv %x, %w : (tensor<1x4x8x8xf32>, tensor<6x4x3xf32>) -> tensor<1x6x6x6xf32>
  return %y : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_group(%x: tensor<1x4x8x8xf32>, %w: tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{group 3 must divide the 4 input and 6 output channels}}
  %y = onnx.Conv %x, %w {group = 3 : i64} : (tensor<1x4x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %y : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_group_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{weights take 4 channels per group, the input has 4 in 2 groups}}
  %y = onnx.Conv %x, %w {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %y : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_kernel_shape(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{kernel_shape differs from the weights}}
  %y = onnx.Conv %x, %w {kernel_shape = array<i64: 3, 2>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %y : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_bias(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{bias needs one value per output channel}}
  %y = onnx.Conv %x, %w, %b : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>, tensor<4xf32>) -> tensor<1x6x6x6xf32>
  return %y : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_out_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x5x6x6xf32> {
  // expected-error @+1 {{result has 5 channels, expected 6}}
  %y = onnx.Conv %x, %w : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x5x6x6xf32>
  return %y : tensor<1x5x6x6xf32>
}

// -----

// channels_last moves the channels (and the check) to the last dimension.
func.func @conv_out_channels_last(%x: tensor<1x8x8x4xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x5xf32> {
  // expected-error @+1 {{result has 5 channels, expected 6}}
  %y = onnx.Conv %x, %w {channels_last} : (tensor<1x8x8x4xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x5xf32>
  return %y : tensor<1x6x6x5xf32>
}

// -----

func.func @conv_batch(%x: tensor<2x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{keeps the batch size}}
  %y = onnx.Conv %x, %w : (tensor<2x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %y : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_strides(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{strides needs 2 entries}}
  %y = onnx.Conv %x, %w {strides = array<i64: 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %y : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_pads(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // expected-error @+1 {{pads needs 4 entries}}
  %y = onnx.Conv %x, %w {pads = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %y : tensor<1x6x8x8xf32>
}

// -----

func.func @conv_dilations(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x4x4xf32> {
  // expected-error @+1 {{dilations needs 2 entries}}
  %y = onnx.Conv %x, %w {dilations = array<i64: 2, 2, 2>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x4x4xf32>
  return %y : tensor<1x6x4x4xf32>
}

// -----

func.func @conv_auto_pad(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32> {
  // expected-error @+1 {{unknown auto_pad 'SAME'}}
  %y = onnx.Conv %x, %w {auto_pad = "SAME"} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
  return %y : tensor<1x6x8x8xf32>
}

// -----

func.func @conv_rank(%x: tensor<1x4xf32>, %w: tensor<6x4xf32>) -> tensor<1x6xf32> {
  // expected-error @+1 {{needs a batch, a channel and spatial dimensions}}
  %y = onnx.Conv %x, %w : (tensor<1x4xf32>, tensor<6x4xf32>) -> tensor<1x6xf32>
  return %y : tensor<1x6xf32>
}

// -----

func.func @conv_result_rank(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x36xf32> {
  // expected-error @+1 {{result rank differs from the input's}}
  %y = onnx.Conv %x, %w : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x36xf32>
  return %y : tensor<1x6x36xf32>
}

// -----

func.func @max_pool_kernel(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{needs kernel_shape}}
  %y = onnx.MaxPool %x {strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

func.func @max_pool_kernel_rank(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x7x7xf32> {
  // expected-error @+1 {{kernel_shape needs 2 entries}}
  %y = onnx.MaxPool %x {kernel_shape = array<i64: 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x7x7xf32>
  return %y : tensor<1x4x7x7xf32>
}

// -----

// Pooling keeps the channels.
func.func @max_pool_channels(%x: tensor<1x8x8x4xf32>) -> tensor<1x4x4x3xf32> {
  // expected-error @+1 {{result has 3 channels, expected 4}}
  %y = onnx.MaxPool %x {channels_last, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x3xf32>
  return %y : tensor<1x4x4x3xf32>
}

// -----

func.func @average_pool_kernel(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{needs kernel_shape}}
  %y = onnx.AveragePool %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

func.func @average_pool_dilations(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{has no dilations}}
  %y = onnx.AveragePool %x {kernel_shape = array<i64: 2, 2>, dilations = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

func.func @average_pool_auto_pad(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{unknown auto_pad 'same_upper'}}
  %y = onnx.AveragePool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, auto_pad = "same_upper"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

func.func @global_pool_spatial(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x2x1xf32> {
  // expected-error @+1 {{reduces every spatial dimension to 1}}
  %y = onnx.GlobalAveragePool %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x2x1xf32>
  return %y : tensor<1x4x2x1xf32>
}

// -----

func.func @global_pool_channels(%x: tensor<1x8x8x4xf32>) -> tensor<1x1x1x2xf32> {
  // expected-error @+1 {{reduces every spatial dimension to 1}}
  %y = onnx.GlobalMaxPool %x {channels_last} : (tensor<1x8x8x4xf32>) -> tensor<1x1x1x2xf32>
  return %y : tensor<1x1x1x2xf32>
}

// -----

func.func @global_pool_rank(%x: tensor<1x4x8x8xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{keeps the rank of an [N, C, D...] input}}
  %y = onnx.GlobalMaxPool %x : (tensor<1x4x8x8xf32>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

func.func @batch_norm_rank(%x: tensor<4xf32>, %p: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{needs a channel dimension}}
  %y = onnx.BatchNormalization %x, %p, %p, %p, %p : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @batch_norm_params(%x: tensor<1x3x2x2xf32>, %p: tensor<3xf32>, %v: tensor<2xf32>) -> tensor<1x3x2x2xf32> {
  // expected-error @+1 {{needs one scale, bias, mean and variance per channel}}
  %y = onnx.BatchNormalization %x, %p, %p, %p, %v : (tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2xf32>) -> tensor<1x3x2x2xf32>
  return %y : tensor<1x3x2x2xf32>
}

// -----

func.func @batch_norm_shape(%x: tensor<1x3x2x2xf32>, %p: tensor<3xf32>) -> tensor<1x3x4xf32> {
  // expected-error @+1 {{result shape [1, 3, 4] differs from the expected [1, 3, 2, 2]}}
  %y = onnx.BatchNormalization %x, %p, %p, %p, %p : (tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4xf32>
  return %y : tensor<1x3x4xf32>
}

// -----

func.func @concat_axis(%x: tensor<1x2x3xf32>) -> tensor<1x2x6xf32> {
  // expected-error @+1 {{axis 3 is outside [-3, 3)}}
  %y = onnx.Concat %x, %x {axis = 3 : i64} : (tensor<1x2x3xf32>, tensor<1x2x3xf32>) -> tensor<1x2x6xf32>
  return %y : tensor<1x2x6xf32>
}

// -----

func.func @concat_rank(%x: tensor<1x2x3xf32>, %y: tensor<2x3xf32>) -> tensor<1x4x3xf32> {
  // expected-error @+1 {{inputs must have one rank}}
  %c = onnx.Concat %x, %y {axis = 1 : i64} : (tensor<1x2x3xf32>, tensor<2x3xf32>) -> tensor<1x4x3xf32>
  return %c : tensor<1x4x3xf32>
}

// -----

func.func @concat_other_dims(%x: tensor<1x2x3xf32>, %y: tensor<1x2x4xf32>) -> tensor<1x4x3xf32> {
  // expected-error @+1 {{inputs differ outside the concatenation axis}}
  %c = onnx.Concat %x, %y {axis = 1 : i64} : (tensor<1x2x3xf32>, tensor<1x2x4xf32>) -> tensor<1x4x3xf32>
  return %c : tensor<1x4x3xf32>
}

// -----

func.func @concat_shape(%x: tensor<1x2x3xf32>, %y: tensor<1x5x3xf32>) -> tensor<1x6x3xf32> {
  // expected-error @+1 {{result shape [1, 6, 3] differs from the expected [1, 7, 3]}}
  %c = onnx.Concat %x, %y {axis = -2 : i64} : (tensor<1x2x3xf32>, tensor<1x5x3xf32>) -> tensor<1x6x3xf32>
  return %c : tensor<1x6x3xf32>
}

// -----

func.func @concat_empty() -> tensor<1x2xf32> {
  // expected-error @+1 {{needs inputs}}
  %c = onnx.Concat {axis = 0 : i64} : () -> tensor<1x2xf32>
  return %c : tensor<1x2xf32>
}

// -----

func.func @pad_count(%x: tensor<2x3xf32>, %p: tensor<2xi64>) -> tensor<4x5xf32> {
  // expected-error @+1 {{pads needs two entries per dimension}}
  %y = onnx.Pad %x, %p : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

func.func @pad_mode(%x: tensor<2x3xf32>, %p: tensor<4xi64>) -> tensor<4x5xf32> {
  // expected-error @+1 {{unknown mode 'wrap'}}
  %y = onnx.Pad %x, %p {mode = "wrap"} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

func.func @pad_value(%x: tensor<2x3xf32>, %p: tensor<4xi64>, %v: tensor<2xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{the constant value is a scalar}}
  %y = onnx.Pad %x, %p, %v : (tensor<2x3xf32>, tensor<4xi64>, tensor<2xf32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

func.func @pad_rank(%x: tensor<2x3xf32>, %p: tensor<4xi64>) -> tensor<20xf32> {
  // expected-error @+1 {{keeps the rank}}
  %y = onnx.Pad %x, %p : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<20xf32>
  return %y : tensor<20xf32>
}

// -----

func.func @clip_bounds(%x: tensor<2x3xf32>, %lo: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{bounds must be scalars}}
  %y = onnx.Clip %x min %lo : tensor<3xf32> : tensor<2x3xf32> -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

func.func @clip_type(%x: tensor<2x3xf32>, %hi: tensor<f32>) -> tensor<6xf32> {
  // expected-error @+1 {{keeps the type of its input}}
  %y = onnx.Clip %x max %hi : tensor<f32> : tensor<2x3xf32> -> tensor<6xf32>
  return %y : tensor<6xf32>
}

// -----

func.func @leaky_relu_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{attribute 'alpha' failed to satisfy constraint: 32-bit float attribute}}
  %y = onnx.LeakyRelu %x {alpha = 1 : i64} : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

func.func @transpose_rank(%x: tensor<2x4xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{perm must have one entry per dimension}}
  %t = onnx.Transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  return %t : tensor<4x2xf32>
}

// -----

func.func @transpose_shape(%x: tensor<1x2x3xf32>) -> tensor<1x2x3xf32> {
  // expected-error @+1 {{result shape [1, 2, 3] differs from the expected [1, 3, 2]}}
  %t = onnx.Transpose %x {perm = array<i64: 0, 2, 1>} : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  return %t : tensor<1x2x3xf32>
}

// -----

// A vector has no channel and spatial dimensions (this once crashed).
func.func @global_pool_rank_1(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{keeps the rank of an [N, C, D...] input}}
  %y = onnx.GlobalMaxPool %x : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @conv_rank_1(%x: tensor<4xf32>, %w: tensor<6x4xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{needs a batch, a channel and spatial dimensions}}
  %y = onnx.Conv %x, %w : (tensor<4xf32>, tensor<6x4xf32>) -> tensor<6xf32>
  return %y : tensor<6xf32>
}

// -----

// A 3x3 window over 8x8 gives 6x6.
func.func @conv_output_size(%x: tensor<1x8x8x4xf32>, %w: tensor<2x4x3x3xf32>) -> tensor<1x9x5x2xf32> {
  // expected-error @+1 {{result has spatial sizes [9, 5], the window gives [6, 6]}}
  %y = onnx.Conv %x, %w {channels_last} : (tensor<1x8x8x4xf32>, tensor<2x4x3x3xf32>) -> tensor<1x9x5x2xf32>
  return %y : tensor<1x9x5x2xf32>
}

// -----

func.func @pool_zero_stride(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+1 {{strides [0, 2] should be at least 1}}
  %y = onnx.MaxPool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 0, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

func.func @pad_output_size(%x: tensor<2x3xf32>) -> tensor<7x7xf32> {
  %p = onnx.Constant dense<[1, 1, 1, 1]> : tensor<4xi64> : tensor<4xi64>
  // expected-error @+1 {{result dimension 0 is 7, the pads give 4}}
  %y = onnx.Pad %x, %p : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<7x7xf32>
  return %y : tensor<7x7xf32>
}

// -----

// Stride 2 over 3 rows, kernel 3: 2 * 2 + 3 = 7 full rows, 6 after a pad of 1.
func.func @conv_transpose_output_size(%x: tensor<1x2x3x3xf32>, %w: tensor<2x4x3x3xf32>) -> tensor<1x4x7x7xf32> {
  // expected-error @+1 {{result has spatial sizes [7, 7], the window gives [6, 6]}}
  %y = onnx.ConvTranspose %x, %w {pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<2x4x3x3xf32>) -> tensor<1x4x7x7xf32>
  return %y : tensor<1x4x7x7xf32>
}

// -----

func.func @slice_wrong_size(%x: tensor<4x10xf32>) -> tensor<4x3xf32> {
  %starts = onnx.Constant dense<[1]> : tensor<1xi64> : tensor<1xi64>
  %ends = onnx.Constant dense<[8]> : tensor<1xi64> : tensor<1xi64>
  %axes = onnx.Constant dense<[1]> : tensor<1xi64> : tensor<1xi64>
  %steps = onnx.Constant dense<[2]> : tensor<1xi64> : tensor<1xi64>
  // expected-error @+1 {{result shape [4, 3] differs from the expected [4, 4]}}
  %s = onnx.Slice %x, %starts, %ends axes %axes steps %steps : (tensor<4x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x3xf32>
  return %s : tensor<4x3xf32>
}

// -----

// W is [C, M / group, K...]: 4 input channels in 2 groups, 3 x 2 outputs.
func.func @conv_transpose_channels(%x: tensor<1x4x3x3xf32>, %w: tensor<4x3x1x1xf32>) -> tensor<1x3x3x3xf32> {
  // expected-error @+1 {{result has 3 channels, expected 6}}
  %y = onnx.ConvTranspose %x, %w {group = 2 : i64} : (tensor<1x4x3x3xf32>, tensor<4x3x1x1xf32>) -> tensor<1x3x3x3xf32>
  return %y : tensor<1x3x3x3xf32>
}

// -----

func.func @slice_zero_step(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %zero = onnx.Constant dense<[0]> : tensor<1xi64> : tensor<1xi64>
  // expected-error @+1 {{a step of 0}}
  %s = onnx.Slice %x, %zero, %zero steps %zero : (tensor<4x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x10xf32>
  return %s : tensor<4x10xf32>
}

// -----

func.func @split_short(%x: tensor<4x10xf32>) -> (tensor<4x3xf32>, tensor<4x6xf32>) {
  // expected-error @+1 {{the parts cover 9 of the 10 elements along axis 1}}
  %a, %b = onnx.Split %x {axis = 1 : i64} : (tensor<4x10xf32>) -> (tensor<4x3xf32>, tensor<4x6xf32>)
  return %a, %b : tensor<4x3xf32>, tensor<4x6xf32>
}

// -----

func.func @split_lengths_differ(%x: tensor<4x10xf32>) -> (tensor<4x3xf32>, tensor<4x7xf32>) {
  %lengths = onnx.Constant dense<[4, 6]> : tensor<2xi64> : tensor<2xi64>
  // expected-error @+1 {{split differs from the lengths of the results}}
  %a, %b = onnx.Split %x, %lengths {axis = 1 : i64} : (tensor<4x10xf32>, tensor<2xi64>) -> (tensor<4x3xf32>, tensor<4x7xf32>)
  return %a, %b : tensor<4x3xf32>, tensor<4x7xf32>
}
