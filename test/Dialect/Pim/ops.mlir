// RUN: pimc-opt %s | pimc-opt | FileCheck %s

// CHECK: pim.global constant @w : tensor<128x256xf32>
pim.global constant @w : tensor<128x256xf32> = dense<1.0> : tensor<128x256xf32>
pim.global input @x {index = 0 : i64, io_name = "x"} : tensor<1x128xf32>
pim.global output @y {index = 0 : i64, io_name = "y"} : tensor<1x256xf32>

// CHECK: pim.core 0 groups [#pim.group<@w[0, 0], [128, 256]>] {
pim.core 0 groups [#pim.group<@w[0, 0], [128, 256]>] {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<128xf32>
  // CHECK: pim.ld @x[%{{.*}}] row_stride 0 into %{{.*}} : tensor<128xf32> -> tensor<128xf32>
  %x = pim.ld @x[%c0] row_stride 0 into %e : tensor<128xf32> -> tensor<128xf32>
  %o = tensor.empty() : tensor<256xf32>
  // CHECK: pim.mvm %{{.*}} group 0 into %{{.*}} : tensor<128xf32> into tensor<256xf32> -> tensor<256xf32>
  %m = pim.mvm %x group 0 into %o : tensor<128xf32> into tensor<256xf32> -> tensor<256xf32>
  %r = tensor.empty() : tensor<256xf32>
  // CHECK: pim.vrelu
  %relu = pim.vrelu %m into %r : tensor<256xf32> into tensor<256xf32> -> tensor<256xf32>
  %s = tensor.empty() : tensor<256xf32>
  // CHECK: pim.vvadd
  %sum = pim.vvadd %relu, %m into %s : tensor<256xf32>, tensor<256xf32> into tensor<256xf32> -> tensor<256xf32>
  // CHECK: pim.send %{{.*}} to 1 : tensor<256xf32>
  pim.send %sum to 1 : tensor<256xf32>
  // CHECK: pim.st %{{.*}}, @y[%{{.*}}] row_stride 0 : tensor<256xf32>
  pim.st %sum, @y[%c0] row_stride 0 : tensor<256xf32>
}

// CHECK: pim.core 1 {
pim.core 1 {
  // CHECK: pim.alloc {address = 64 : i64} : memref<256xf32>
  %b = pim.alloc {address = 64 : i64} : memref<256xf32>
  // CHECK: pim.recv from 0 into %{{.*}} : memref<256xf32>
  pim.recv from 0 into %b : memref<256xf32>
  %c = pim.alloc : memref<128xf32>
  %v = memref.subview %b[0] [128] [2] : memref<256xf32> to memref<128xf32, strided<[2]>>
  // CHECK: pim.vmv %{{.*}} stride 2 into
  pim.vmv %b stride 2 into %c : memref<256xf32> into memref<128xf32>
  pim.vsigm %c into %c : memref<128xf32> into memref<128xf32>
  pim.vtanh %c into %c : memref<128xf32> into memref<128xf32>
  pim.lmv %c into %c : memref<128xf32> into memref<128xf32>
  // CHECK: pim.sync 0 event 3
  pim.sync 0 event 3
  // CHECK: pim.wait 3 count 1
  pim.wait 3 count 1
}
