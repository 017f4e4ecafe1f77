// RUN: pimc-opt %s --onnx-plan-windows --convert-onnx-to-spatial | FileCheck %s

// One row: single computes on 1-D slices. On the 144-core chip a whole
// [200, 300] matrix is two row tiles of one column block (3 crossbars each).
// CHECK-LABEL: func @vector
// CHECK: %[[X0:.*]] = tensor.extract_slice %arg0[0, 0] [1, 128] [1, 1] : tensor<1x200xf32> to tensor<128xf32>
// CHECK: %[[P0:.*]] = spat.compute(%[[X0]] : tensor<128xf32>) tiles [#spat.tile<@{{.*}}[0, 0], [128, 300]>]
// CHECK: spat.mvm %{{.*}} tile 0 : tensor<128xf32> -> tensor<300xf32>
// CHECK: %[[X1:.*]] = tensor.extract_slice %arg0[0, 128] [1, 72] [1, 1] : tensor<1x200xf32> to tensor<72xf32>
// CHECK: %[[P1:.*]] = spat.compute(%[[X1]] : tensor<72xf32>) tiles [#spat.tile<@{{.*}}[128, 0], [72, 300]>]
// CHECK: %[[S:.*]] = spat.compute(%[[P0]], %[[P1]] : tensor<300xf32>, tensor<300xf32>){{.*}} {
// CHECK: spat.add
// CHECK: spat.reshape %[[S]] : tensor<300xf32> to tensor<1x300xf32>
func.func @vector(%a: tensor<1x200xf32>) -> tensor<1x300xf32> {
  %w = onnx.Constant dense<0.5> : tensor<200x300xf32> : tensor<200x300xf32>
  %y = onnx.Gemm %a, %w : (tensor<1x200xf32>, tensor<200x300xf32>) -> tensor<1x300xf32>
  return %y : tensor<1x300xf32>
}
