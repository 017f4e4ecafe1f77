// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --convert-spatial-to-pim | FileCheck %s

// The weight tile becomes the core's array group 0 (two crossbars of 16
// outputs for 20 columns). The lanes of the batch are an scf.for over the
// rows; the mvm writes all 32 outputs of its group into the lane's row of a
// [2, 32] result, the relu writes its lane's row in place, and the batch's
// value is the [2, 20] slice of the meaningful columns.
// CHECK: pim.global constant @w
// CHECK: pim.core 0 groups [#pim.group<@w[0, 0], [16, 20]>] {
// CHECK: %[[X:.*]] = pim.ld @input0[%{{.*}}] row_stride 0 into %{{.*}} : tensor<32xf32> -> tensor<32xf32>
// CHECK: %[[ROWS:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1]] output_shape [2, 16]
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x32xf32>
// CHECK: %[[LOOP:.*]] = scf.for %[[LANE:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (tensor<2x32xf32>) {
// CHECK:   %[[IN:.*]] = tensor.extract_slice %[[ROWS]][%[[LANE]], 0] [1, 16] [1, 1] : tensor<2x16xf32> to tensor<16xf32>
// CHECK:   %[[ROW:.*]] = tensor.extract_slice %[[ACC]][%[[LANE]], 0] [1, 32] [1, 1] : tensor<2x32xf32> to tensor<32xf32>
// CHECK:   %[[M:.*]] = pim.mvm %[[IN]] group 0 into %[[ROW]] : tensor<16xf32> into tensor<32xf32> -> tensor<32xf32>
// CHECK:   %[[NEW:.*]] = tensor.insert_slice %[[M]] into %[[ACC]][%[[LANE]], 0] [1, 32] [1, 1]
// CHECK:   scf.yield %[[NEW]]
// CHECK: %[[R:.*]] = tensor.extract_slice %[[LOOP]][0, 0] [2, 20] [1, 1] : tensor<2x32xf32> to tensor<2x20xf32>
// CHECK: scf.for {{.*}} -> (tensor<2x20xf32>)
// CHECK:   tensor.extract_slice %[[R]]
// CHECK:   pim.vrelu
// CHECK: pim.send %{{.*}} to 1 : tensor<2x20xf32>
// CHECK: pim.core 1 {
// CHECK: %[[Y:.*]] = pim.recv from 0 into %{{.*}} : tensor<2x20xf32> -> tensor<2x20xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[Y]] {{\[\[}}0, 1]] : tensor<2x20xf32> into tensor<40xf32>
// CHECK: pim.st %[[FLAT]], @output0[%{{.*}}] row_stride 0 : tensor<40xf32>
spat.global constant @w : tensor<16x20xf32> = dense<1.0> : tensor<16x20xf32>
spat.global input @input0 {index = 0 : i64, io_name = "x"} : tensor<2x16xf32>
spat.global output @output0 {index = 0 : i64, io_name = "y"} : tensor<2x20xf32>
spat.core 0 {
  %x = spat.load @input0[0] : tensor<32xf32>
  %rows = spat.reshape %x : tensor<32xf32> to tensor<2x16xf32>
  %m = spat.compute_batch lanes(2) lane(%rows : tensor<2x16xf32>) tiles [#spat.tile<@w[0, 0], [16, 20]>] {
  ^bb0(%row: tensor<16xf32>):
    %p = spat.mvm %row tile 0 : tensor<16xf32> -> tensor<20xf32>
    spat.yield %p : tensor<20xf32>
  } -> tensor<2x20xf32>
  %r = spat.compute_batch lanes(2) lane(%m : tensor<2x20xf32>) {
  ^bb0(%row: tensor<20xf32>):
    %a = spat.relu %row : tensor<20xf32>
    spat.yield %a : tensor<20xf32>
  } -> tensor<2x20xf32>
  spat.send %r to 1 channel 0 : tensor<2x20xf32>
}
spat.core 1 {
  %y = spat.recv from 0 channel 0 : tensor<2x20xf32>
  %flat = spat.reshape %y : tensor<2x20xf32> to tensor<40xf32>
  spat.store %flat, @output0[0] : tensor<40xf32>
}
