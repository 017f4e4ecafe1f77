// RUN: pimc-opt %s --split-input-file --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows="throughput=true" --convert-onnx-to-spatial="throughput=true" | FileCheck %s --check-prefix=PIPELINE
// RUN: pimc-opt %s --split-input-file --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows --convert-onnx-to-spatial | FileCheck %s --check-prefix=LATENCY
// RUN: pimc-opt %s --split-input-file --pass-pipeline='builtin.module(pimc-set-arch{arch=%inputs/tiny-arch.json},func.func(onnx-pack-pixels),onnx-plan-windows{throughput=true},convert-onnx-to-spatial{throughput=true})' | FileCheck %s --check-prefix=PACKED

// A residual block as a pipeline: the sum would read its skip input from
// the stage before the first convolution, two stages back, and hold that
// stage a round long. The first convolution reads those pixels anyway, so
// each of its band computes also yields its own pixels (the centre of its
// window), and the sum reads them there. One inference needs no such thing.
// PIPELINE-LABEL: func @residual
// PIPELINE: %[[A:.*]]:2 = spat.compute_batch lanes(8) shared(%{{.*}} : tensor<1x4x6x2xf32>) tiles [#spat.tile<@conv_weights[0, 0]
// PIPELINE: %[[CENTRE:.*]] = spat.lane_slice %{{.*}}[14 + lanes [2, 4] * [12, 2]] : tensor<1x4x6x2xf32> -> tensor<2xf32>
// PIPELINE: spat.yield %{{.*}}, %[[CENTRE]] : tensor<2xf32>, tensor<2xf32>
// PIPELINE: %[[B:.*]] = spat.compute_batch lanes(8) shared(%{{.*}} : tensor<1x4x6x2xf32>) tiles [#spat.tile<@conv_weights_1[0, 0]
// PIPELINE: spat.compute_batch lanes(8) lane(%[[B]], %[[A]]#1 : tensor<8x2xf32>, tensor<8x2xf32>){{.*}} {
// PIPELINE-NEXT: ^bb0
// PIPELINE-NEXT: spat.add
// LATENCY-LABEL: func @residual
// With four pixels a lane (onnx-pack-pixels, 16x16 crossbars), a lane's own
// pixels are the 4 in the middle of its 3x6 window, and the sum of four-pixel
// rows reads them as they are.
// PACKED-LABEL: func @residual
// PACKED: %[[A:.*]]:2 = spat.compute_batch lanes(2) shared(%{{.*}} : tensor<1x4x6x2xf32>) tiles [#spat.tile<@conv_weights[0, 0]
// PACKED: %[[OWN:.*]] = spat.lane_slice %{{.*}}[14 + lanes [2, 1] * [12, 8]] : tensor<1x4x6x2xf32> -> tensor<8xf32>
// PACKED: spat.yield %{{.*}}, %[[OWN]] : tensor<8xf32>, tensor<8xf32>
// PACKED: %[[PASSED:.*]] = spat.reshape %[[A]]#1 : tensor<2x8xf32> to tensor<8x2xf32>
// PACKED: %[[B:.*]] = spat.compute_batch lanes(2) shared(%{{.*}} : tensor<1x4x6x2xf32>) tiles [#spat.tile<@conv_weights_1[0, 0]
// PACKED: %[[SKIP:.*]] = spat.reshape %[[PASSED]] : tensor<8x2xf32> to tensor<2x8xf32>
// PACKED: spat.compute_batch lanes(2) lane(%[[B]], %[[SKIP]] : tensor<2x8xf32>, tensor<2x8xf32>){{.*}} {
// PACKED-NEXT: ^bb0
// PACKED-NEXT: spat.add
// LATENCY-NOT: :2 = spat.compute
func.func @residual(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w1 = onnx.Constant dense<0.5> : tensor<2x2x3x3xf32> : tensor<2x2x3x3xf32>
  %w2 = onnx.Constant dense<0.25> : tensor<2x2x3x3xf32> : tensor<2x2x3x3xf32>
  %a = onnx.Conv %x, %w1 {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x2x3x3xf32>) -> tensor<1x4x4x2xf32>
  %r = onnx.Relu %a : tensor<1x4x4x2xf32>
  %b = onnx.Conv %r, %w2 {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x2x3x3xf32>) -> tensor<1x4x4x2xf32>
  %y = onnx.Add %b, %x : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %y : tensor<1x4x4x2xf32>
}

// -----

// Behind a 1x1 convolution (mobilenet_v2's inverted residuals) the pipeline
// got slower with the pixels passed on: the sum reads its skip input where
// it is.
// PIPELINE-LABEL: func @residual_1x1
// PIPELINE-NOT: :2 = spat.compute
// PACKED-LABEL: func @residual_1x1
// PACKED-NOT: :2 = spat.compute
func.func @residual_1x1(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w1 = onnx.Constant dense<0.5> : tensor<2x2x1x1xf32> : tensor<2x2x1x1xf32>
  %w2 = onnx.Constant dense<0.25> : tensor<2x2x1x1xf32> : tensor<2x2x1x1xf32>
  %a = onnx.Conv %x, %w1 {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x4x4x2xf32>
  %b = onnx.Conv %a, %w2 {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x4x4x2xf32>
  %y = onnx.Add %b, %x : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %y : tensor<1x4x4x2xf32>
}

// -----

// Branches of a concatenation as a pipeline: the 1x1 branch is a layer
// shallower than the 1x1 -> 3x3 one, and its stage would wait a round for
// the concatenation to take its output. It reads its input as the deeper
// branch's first convolution (weights 0.25, lowered first) passes it on, a
// stage later.
// PIPELINE-DAG: spat.global constant @[[W2:.*]] : tensor<2x2xf32> = dense<2.500000e-01>
// PIPELINE-DAG: spat.global constant @[[W1:.*]] : tensor<2x2xf32> = dense<5.000000e-01>
// PIPELINE-LABEL: func @inception
// PIPELINE: %[[A:.*]]:2 = spat.compute_batch lanes(16) shared(%arg0 : tensor<1x4x4x2xf32>) tiles [#spat.tile<@[[W2]][0, 0]
// PIPELINE: %[[PASSED:.*]] = spat.reshape %[[A]]#1 : tensor<16x2xf32> to tensor<1x4x4x2xf32>
// PIPELINE: spat.compute_batch lanes(16) shared(%[[PASSED]] : tensor<1x4x4x2xf32>) tiles [#spat.tile<@[[W1]][0, 0]
// LATENCY-LABEL: func @inception
// LATENCY-NOT: :2 = spat.compute
// With the pixels of the 1x1 convolutions packed, likewise.
// PACKED-LABEL: func @inception
// PACKED: %[[A:.*]]:2 = spat.compute_batch lanes(4) shared(%arg0 : tensor<1x4x4x2xf32>)
// PACKED: %[[P:.*]] = spat.reshape %[[A]]#1
// PACKED: %[[X:.*]] = spat.reshape %[[P]]
// PACKED: spat.compute_batch lanes(4) shared(%[[X]] : tensor<1x4x4x2xf32>)
func.func @inception(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x4xf32> {
  %w1 = onnx.Constant dense<0.5> : tensor<2x2x1x1xf32> : tensor<2x2x1x1xf32>
  %w2 = onnx.Constant dense<0.25> : tensor<2x2x1x1xf32> : tensor<2x2x1x1xf32>
  %w3 = onnx.Constant dense<0.125> : tensor<2x2x3x3xf32> : tensor<2x2x3x3xf32>
  %y1 = onnx.Conv %x, %w1 {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x4x4x2xf32>
  %a = onnx.Conv %x, %w2 {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x4x4x2xf32>
  %y2 = onnx.Conv %a, %w3 {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x2x3x3xf32>) -> tensor<1x4x4x2xf32>
  %y = onnx.Concat %y1, %y2 {axis = 3 : i64} : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}
