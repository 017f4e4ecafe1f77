// RUN: pimc-opt %s --pim-bufferize | FileCheck %s

// Assembling a value from two received pieces inserts each in a buffer:
// the copies bufferization cannot avoid are pim.lmv.
// CHECK-LABEL: pim.core 0
// CHECK: %[[A:.*]] = pim.alloc : memref<4xf32>
// CHECK: pim.recv from 1 into %[[A]]
// CHECK: %[[B:.*]] = pim.alloc : memref<4xf32>
// CHECK: pim.recv from 2 into %[[B]]
// CHECK: %[[BUF:.*]] = pim.alloc : memref<8xf32>
// CHECK: %[[LO:.*]] = memref.subview %[[BUF]][0] [4] [1]
// CHECK: pim.lmv %[[A]] into %[[LO]]
// CHECK: %[[HI:.*]] = memref.subview %[[BUF]][4] [4] [1]
// CHECK: pim.lmv %[[B]] into %[[HI]]
pim.core 0 {
  %e0 = tensor.empty() : tensor<4xf32>
  %a = pim.recv from 1 into %e0 : tensor<4xf32> -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %b = pim.recv from 2 into %e1 : tensor<4xf32> -> tensor<4xf32>
  %buf = tensor.empty() : tensor<8xf32>
  %lo = tensor.insert_slice %a into %buf[0] [4] [1] : tensor<4xf32> into tensor<8xf32>
  %all = tensor.insert_slice %b into %lo[4] [4] [1] : tensor<4xf32> into tensor<8xf32>
  pim.send %all to 3 : tensor<8xf32>
}
