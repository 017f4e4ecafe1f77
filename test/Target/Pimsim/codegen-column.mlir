// RUN: rm -rf %t && pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --pim-emit-pimsim="output-dir=%t emit-json=true" -o /dev/null
// RUN: FileCheck %s < %t/core_0.json

// A column of a matrix in local memory, [3, 1] of [3, 4], collapsed to
// three elements four apart: it is stored an element at a time, from local
// addresses 0, 4 and 8 to the output's three consecutive elements (global
// addresses 16, 17 and 18, after the input), not as
// three adjacent elements from address 0. The matrix is loaded at once.
// CHECK:      {"ibiw":8,"obiw":8,"op":"setbw"},
// CHECK-NEXT: {"offset":{"offset_select":0,"offset_value":0},"op":"ld","rd":0,"rs1":0,"size":12},
// CHECK-NEXT: {"imm":16,"op":"sldi","rd":3},
// CHECK-NEXT: {"offset":{"offset_select":0,"offset_value":0},"op":"st","rd":2,"rs1":0,"size":1},
// CHECK-NEXT: {"imm":17,"op":"sldi","rd":5},
// CHECK-NEXT: {"imm":4,"op":"sldi","rd":6},
// CHECK-NEXT: {"offset":{"offset_select":0,"offset_value":0},"op":"st","rd":4,"rs1":6,"size":1},
// CHECK-NEXT: {"imm":18,"op":"sldi","rd":9},
// CHECK-NEXT: {"imm":8,"op":"sldi","rd":7},
// CHECK-NEXT: {"offset":{"offset_select":0,"offset_value":0},"op":"st","rd":8,"rs1":7,"size":1}
// CHECK-NEXT: ]
pim.global input @input0 {index = 0 : i64, io_name = "x"} : tensor<3x4xf32>
pim.global output @output0 {index = 0 : i64, io_name = "y"} : tensor<3x1xf32>
pim.core 0 {
  %c0 = arith.constant 0 : index
  %x = pim.alloc {address = 0 : i64} : memref<3x4xf32>
  pim.ld @input0[%c0] row_stride 4 into %x : memref<3x4xf32>
  %column = memref.subview %x[0, 0] [3, 1] [1, 1] : memref<3x4xf32> to memref<3x1xf32, strided<[4, 1]>>
  %flat = memref.collapse_shape %column [[0, 1]] : memref<3x1xf32, strided<[4, 1]>> into memref<3xf32, strided<[4]>>
  pim.st %flat, @output0[%c0] row_stride 0 : memref<3xf32, strided<[4]>>
}
