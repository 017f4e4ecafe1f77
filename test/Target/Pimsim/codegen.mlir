// RUN: rm -rf %t && pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --pim-emit-pimsim="output-dir=%t emit-json=true" -o /dev/null
// RUN: FileCheck %s --check-prefix=CORE0 < %t/core_0.json
// RUN: FileCheck %s --check-prefix=CORE1 < %t/core_1.json
// RUN: FileCheck %s --check-prefix=CONFIG < %t/config.json
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json
// RUN: FileCheck %s --check-prefix=ARCH < %t/arch.json
// RUN: ls %t | FileCheck %s --check-prefix=FILES

// setbw first; addresses in registers, all 0 at start, so address 0 needs
// no sldi: the ld reads global address 0 (the pair r0, r1: high word first)
// into local address 0 (r0). The loop is unrolled; a register holding an
// address is reused, not reloaded.
// CORE0:      {"ibiw":8,"obiw":8,"op":"setbw"},
// CORE0-NEXT: {"offset":{"offset_select":0,"offset_value":0},"op":"ld","rd":0,"rs1":0,"size":32},
// CORE0-NEXT: {"imm":32,"op":"sldi","rd":2},
// CORE0-NEXT: {"group":0,"mbiw":8,"op":"mvmul","rd":2,"relu":0,"rs1":0},
// CORE0-NEXT: {"imm":16,"op":"sldi","rd":3},
// CORE0-NEXT: {"imm":64,"op":"sldi","rd":4},
// CORE0-NEXT: {"group":0,"mbiw":8,"op":"mvmul","rd":4,"relu":0,"rs1":3},
// A 2-D send is one message per row (rows 32 apart, 20 bytes each); rd = rs1.
// CORE0-NEXT: {"core":1,"offset":{"offset_select":0,"offset_value":0},"op":"send","rd":2,"rs1":2,"size":20},
// CORE0-NEXT: {"core":1,"offset":{"offset_select":0,"offset_value":0},"op":"send","rd":4,"rs1":4,"size":20}
// CORE0-NEXT: ]

// The receiver splits the same way; the output is at global address 32,
// after the input, and is stored at once.
// CORE1:      {"ibiw":8,"obiw":8,"op":"setbw"},
// CORE1-NEXT: {"core":0,"offset":{"offset_select":0,"offset_value":0},"op":"recv","rd":0,"size":20},
// CORE1-NEXT: {"imm":20,"op":"sldi","rd":1},
// CORE1-NEXT: {"core":0,"offset":{"offset_select":0,"offset_value":0},"op":"recv","rd":1,"size":20},
// CORE1-NEXT: {"imm":32,"op":"sldi","rd":3},
// CORE1-NEXT: {"offset":{"offset_select":0,"offset_value":0},"op":"st","rd":2,"rs1":0,"size":40}
// CORE1-NEXT: ]

// CONFIG: "array_group_map": {
// CONFIG-NEXT: "core0": [
// CONFIG-NEXT: 2
// CONFIG-NEXT: ],
// CONFIG-NEXT: "core1": []
// CONFIG: "core_cnt": 2

// MANIFEST: "cores": [
// MANIFEST: "cols": 20,
// MANIFEST-NEXT: "crossbars": 2,
// MANIFEST-NEXT: "rows": 16,
// MANIFEST-NEXT: "weights_offset": 0
// MANIFEST: "inputs": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "address": 0,
// MANIFEST-NEXT: "index": 0,
// MANIFEST-NEXT: "name": "x",

// The architecture file is copied beside the program with its network file.
// ARCH: "net_config_file_path": "tiny-network.json"
// FILES: arch.json
// FILES: config.json
// FILES: core_0.json
// FILES: core_0.pim
// FILES: core_1.json
// FILES: core_1.pim
// FILES: gmem.bin
// FILES: manifest.json
// FILES: tiny-network.json
// FILES: weights.bin

pim.global constant @w : tensor<16x20xf32> = dense<1.0> : tensor<16x20xf32>
pim.global input @input0 {index = 0 : i64, io_name = "x"} : tensor<2x16xf32>
pim.global output @output0 {index = 0 : i64, io_name = "y"} : tensor<2x20xf32>
pim.core 0 groups [#pim.group<@w[0, 0], [16, 20]>] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %x = pim.alloc {address = 0 : i64} : memref<32xf32>
  pim.ld @input0[%c0] row_stride 0 into %x : memref<32xf32>
  %rows = memref.expand_shape %x [[0, 1]] output_shape [2, 16] : memref<32xf32> into memref<2x16xf32>
  %acc = pim.alloc {address = 32 : i64} : memref<2x32xf32>
  %r = scf.for %l = %c0 to %c2 step %c1 iter_args(%a = %acc) -> (memref<2x32xf32>) {
    %in = memref.subview %rows[%l, 0] [1, 16] [1, 1] : memref<2x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    %row = memref.subview %a[%l, 0] [1, 32] [1, 1] : memref<2x32xf32> to memref<32xf32, strided<[1], offset: ?>>
    pim.mvm %in group 0 into %row : memref<16xf32, strided<[1], offset: ?>> into memref<32xf32, strided<[1], offset: ?>>
    scf.yield %a : memref<2x32xf32>
  }
  %y = memref.subview %r[0, 0] [2, 20] [1, 1] : memref<2x32xf32> to memref<2x20xf32, strided<[32, 1]>>
  pim.send %y to 1 : memref<2x20xf32, strided<[32, 1]>>
}
pim.core 1 {
  %c0 = arith.constant 0 : index
  %b = pim.alloc {address = 0 : i64} : memref<2x20xf32>
  pim.recv from 0 into %b : memref<2x20xf32>
  %flat = memref.collapse_shape %b [[0, 1]] : memref<2x20xf32> into memref<40xf32>
  pim.st %flat, @output0[%c0] row_stride 0 : memref<40xf32>
}
