// RUN: pimc-opt %s --pim-bufferize | FileCheck %s

// Destinations become pim.alloc buffers, lanes write their rows of the
// result in place (no copy), and views become memref views.
// CHECK-LABEL: pim.core 0
// CHECK: %[[X:.*]] = pim.alloc : memref<32xf32>
// CHECK: pim.ld @input0[%{{.*}}] row_stride 0 into %[[X]] : memref<32xf32>
// CHECK: %[[ROWS:.*]] = memref.expand_shape %[[X]]
// CHECK: %[[ACC:.*]] = pim.alloc : memref<2x16xf32>
// CHECK: scf.for %[[L:.*]] = {{.*}} iter_args(%[[A:.*]] = %[[ACC]]) -> (memref<2x16xf32>) {
// CHECK:   %[[IN:.*]] = memref.subview %[[ROWS]][%[[L]], 0] [1, 16] [1, 1]
// CHECK:   %[[ROW:.*]] = memref.subview %[[A]][%[[L]], 0] [1, 16] [1, 1]
// CHECK:   pim.vrelu %[[IN]] into %[[ROW]]
// CHECK-NOT: pim.lmv
// CHECK:   scf.yield %[[A]]
// CHECK: pim.send
pim.global input @input0 {index = 0 : i64} : tensor<32xf32>
pim.core 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %e = tensor.empty() : tensor<32xf32>
  %x = pim.ld @input0[%c0] row_stride 0 into %e : tensor<32xf32> -> tensor<32xf32>
  %rows = tensor.expand_shape %x [[0, 1]] output_shape [2, 16] : tensor<32xf32> into tensor<2x16xf32>
  %init = tensor.empty() : tensor<2x16xf32>
  %r = scf.for %l = %c0 to %c2 step %c1 iter_args(%acc = %init) -> (tensor<2x16xf32>) {
    %in = tensor.extract_slice %rows[%l, 0] [1, 16] [1, 1] : tensor<2x16xf32> to tensor<16xf32>
    %row = tensor.extract_slice %acc[%l, 0] [1, 16] [1, 1] : tensor<2x16xf32> to tensor<16xf32>
    %v = pim.vrelu %in into %row : tensor<16xf32> into tensor<16xf32> -> tensor<16xf32>
    %n = tensor.insert_slice %v into %acc[%l, 0] [1, 16] [1, 1] : tensor<16xf32> into tensor<2x16xf32>
    scf.yield %n : tensor<2x16xf32>
  }
  pim.send %r to 1 : tensor<2x16xf32>
}
