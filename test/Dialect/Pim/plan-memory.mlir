// RUN: pimc-opt %s --split-input-file --pimc-set-arch="arch=%inputs/tiny-arch.json" --pim-plan-memory --verify-diagnostics | FileCheck %s

// %a dies after the first relu, so %c reuses its memory; %b is live while
// both are, so it gets its own, and %d reuses it once %b is dead. A buffer
// defined before a loop and used in it lives to the loop's end, so the one
// allocated in the loop gets a place of its own.
// CHECK-LABEL: pim.core 0
// CHECK: %[[A:.*]] = pim.alloc {address = 0 : i64} : memref<64xf32>
// CHECK: %[[B:.*]] = pim.alloc {address = 64 : i64} : memref<64xf32>
// CHECK: %[[C:.*]] = pim.alloc {address = 0 : i64} : memref<32xf32>
// CHECK: %[[D:.*]] = pim.alloc {address = 32 : i64} : memref<16xf32>
// CHECK: scf.for
// CHECK: %[[E:.*]] = pim.alloc {address = 48 : i64} : memref<16xf32>
pim.core 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = pim.alloc : memref<64xf32>
  pim.recv from 1 into %a : memref<64xf32>
  %b = pim.alloc : memref<64xf32>
  pim.vrelu %a into %b : memref<64xf32> into memref<64xf32>
  %c = pim.alloc : memref<32xf32>
  %bs = memref.subview %b[0] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1]>>
  pim.vrelu %bs into %c : memref<32xf32, strided<[1]>> into memref<32xf32>
  %d = pim.alloc : memref<16xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    %e = pim.alloc : memref<16xf32>
    pim.vrelu %d into %e : memref<16xf32> into memref<16xf32>
    pim.send %e to 1 : memref<16xf32>
  }
  pim.send %c to 1 : memref<32xf32>
}

// -----

// The tiny chip's cores have 1024 bytes, 16 of them kept for crossbar reads.
pim.core 2 {
  %a = pim.alloc : memref<600xf32>
  pim.recv from 1 into %a : memref<600xf32>
  // expected-error @+1 {{core 2: local memory overflow: the buffer for}}
  %b = pim.alloc : memref<600xf32>
  pim.vrelu %a into %b : memref<600xf32> into memref<600xf32>
  pim.send %b to 1 : memref<600xf32>
}
