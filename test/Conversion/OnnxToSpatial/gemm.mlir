// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows --convert-onnx-to-spatial | FileCheck %s

// The tiny chip has 16x16 crossbars and 4 per core: a [40, 70] weight matrix
// is cut into row tiles of 16, 16 and 8 rows and two column blocks of 48 and
// 22 columns (3 and 2 crossbars); each row of the batch is a lane.
// CHECK-DAG: spat.global constant @[[W:[a-z_0-9]+]] : tensor<40x70xf32>
// CHECK-DAG: spat.global constant @[[B:[a-z_0-9]+]] : tensor<70xf32>
// CHECK-LABEL: func @gemm
// CHECK: %[[BIAS:.*]] = spat.get_global @[[B]]
// CHECK: %[[X0:.*]] = tensor.extract_slice %arg0[0, 0] [2, 16] [1, 1] : tensor<2x40xf32> to tensor<2x16xf32>
// CHECK: %[[P0:.*]] = spat.compute_batch lanes(2) lane(%[[X0]] : tensor<2x16xf32>) tiles [#spat.tile<@[[W]][0, 0], [16, 48]>]
// CHECK: spat.mvm %{{.*}} tile 0 : tensor<16xf32> -> tensor<48xf32>
// CHECK: } -> tensor<2x48xf32>
// CHECK: %[[P1:.*]] = spat.compute_batch lanes(2) {{.*}} tiles [#spat.tile<@[[W]][16, 0], [16, 48]>]
// CHECK: %[[P2:.*]] = spat.compute_batch lanes(2) {{.*}} tiles [#spat.tile<@[[W]][32, 0], [8, 48]>]
// CHECK: spat.mvm %{{.*}} tile 0 : tensor<8xf32> -> tensor<48xf32>
// CHECK: %[[B0:.*]] = tensor.extract_slice %[[BIAS]][0] [48] [1]
// The partial sums and the bias of a column block are reduced by one compute.
// CHECK: %[[S0:.*]] = spat.compute_batch lanes(2) lane(%[[P0]], %[[P1]], %[[P2]] : {{.*}}) shared(%[[B0]] : tensor<48xf32>){{.*}} {
// CHECK-COUNT-3: spat.add
// CHECK: } -> tensor<2x48xf32>
// CHECK: tiles [#spat.tile<@[[W]][0, 48], [16, 22]>]
// CHECK: tiles [#spat.tile<@[[W]][16, 48], [16, 22]>]
// CHECK: tiles [#spat.tile<@[[W]][32, 48], [8, 22]>]
// CHECK: %[[S1:.*]] = spat.compute_batch lanes(2) lane(
// CHECK: } -> tensor<2x22xf32>
// CHECK: %[[Y:.*]] = tensor.concat dim(1) %[[S0]], %[[S1]] : (tensor<2x48xf32>, tensor<2x22xf32>) -> tensor<2x70xf32>
// CHECK: spat.compute_batch lanes(2) lane(%[[Y]] : tensor<2x70xf32>){{.*}} {
// CHECK: spat.relu %{{.*}} : tensor<70xf32>
func.func @gemm(%a: tensor<2x40xf32>) -> tensor<2x70xf32> {
  %w = onnx.Constant dense<0.5> : tensor<40x70xf32> : tensor<40x70xf32>
  %b = onnx.Constant dense<1.0> : tensor<70xf32> : tensor<70xf32>
  %y = onnx.Gemm %a, %w, %b : (tensor<2x40xf32>, tensor<40x70xf32>, tensor<70xf32>) -> tensor<2x70xf32>
  %r = onnx.Relu %y : tensor<2x70xf32>
  return %r : tensor<2x70xf32>
}
