// RUN: pimc-opt %s --split-input-file --pim-bufferize | FileCheck %s

// A core whose buffers are chains of versions is all in place without
// One-Shot's conflict analysis; the cores below are not, and get the copies
// that analysis finds they need (a wrong in-place write would drop them).

// A buffer filled in two places through views, then sent whole: in place.
// CHECK-LABEL: pim.core 0
// CHECK: %[[BUF:.*]] = pim.alloc : memref<8xf32>
// CHECK: %[[LO:.*]] = memref.subview %[[BUF]][0] [4] [1]
// CHECK: pim.recv from 1 into %[[LO]]
// CHECK: %[[HI:.*]] = memref.subview %[[BUF]][4] [4] [1]
// CHECK: pim.lldi 0 into %[[HI]]
// CHECK-NOT: pim.lmv
// CHECK: pim.send %[[BUF]] to 2
pim.core 0 {
  %buf = tensor.empty() : tensor<8xf32>
  %lo = tensor.extract_slice %buf[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
  %r = pim.recv from 1 into %lo : tensor<4xf32> -> tensor<4xf32>
  %b1 = tensor.insert_slice %r into %buf[0] [4] [1] : tensor<4xf32> into tensor<8xf32>
  %hi = tensor.extract_slice %b1[4] [4] [1] : tensor<8xf32> to tensor<4xf32>
  %z = pim.lldi 0 into %hi : tensor<4xf32> -> tensor<4xf32>
  %b2 = tensor.insert_slice %z into %b1[4] [4] [1] : tensor<4xf32> into tensor<8xf32>
  pim.send %b2 to 2 : tensor<8xf32>
}

// -----

// The received value is sent after it was overwritten in place by the relu:
// its old contents must be kept, so the relu writes elsewhere.
// CHECK-LABEL: pim.core 0
// CHECK: %[[A:.*]] = pim.alloc : memref<4xf32>
// CHECK: pim.recv from 1 into %[[A]]
// CHECK: %[[B:.*]] = pim.alloc : memref<4xf32>
// CHECK: pim.vrelu %[[A]] into %[[B]]
// CHECK: pim.send %[[B]] to 2
// CHECK: pim.send %[[A]] to 3
pim.core 0 {
  %e = tensor.empty() : tensor<4xf32>
  %a = pim.recv from 1 into %e : tensor<4xf32> -> tensor<4xf32>
  %r = pim.vrelu %a into %a : tensor<4xf32> into tensor<4xf32> -> tensor<4xf32>
  pim.send %r to 2 : tensor<4xf32>
  pim.send %a to 3 : tensor<4xf32>
}

// -----

// Two views of one buffer: the second is written after the first was, and
// the insert of the first then holds the buffer as it was before the second
// write. Not a chain: One-Shot decides, and the result is still right.
// CHECK-LABEL: pim.core 0
// CHECK: pim.send
pim.core 0 {
  %buf = tensor.empty() : tensor<8xf32>
  %lo = tensor.extract_slice %buf[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
  %hi = tensor.extract_slice %buf[4] [4] [1] : tensor<8xf32> to tensor<4xf32>
  %x = pim.recv from 1 into %lo : tensor<4xf32> -> tensor<4xf32>
  %y = pim.recv from 2 into %hi : tensor<4xf32> -> tensor<4xf32>
  %b1 = tensor.insert_slice %x into %buf[0] [4] [1] : tensor<4xf32> into tensor<8xf32>
  pim.send %b1 to 3 : tensor<8xf32>
  pim.send %y to 4 : tensor<4xf32>
}

// -----

// A loop that writes a buffer from outside it (not an iter_arg) would see
// its own writes in the next iteration: the buffer is copied.
// CHECK-LABEL: pim.core 0
// CHECK: scf.for
// CHECK: pim.lmv
pim.core 0 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %e = tensor.empty() : tensor<4xf32>
  %a = pim.recv from 1 into %e : tensor<4xf32> -> tensor<4xf32>
  %init = tensor.empty() : tensor<2x4xf32>
  %rows = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %init) -> (tensor<2x4xf32>) {
    %r = pim.vrelu %a into %a : tensor<4xf32> into tensor<4xf32> -> tensor<4xf32>
    %row = tensor.insert_slice %r into %acc[%i, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<2x4xf32>
    scf.yield %row : tensor<2x4xf32>
  }
  pim.send %rows to 2 : tensor<2x4xf32>
}
