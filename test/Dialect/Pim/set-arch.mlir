// The module carries the chip: the architecture file's text and its network
// file's, as pim.arch.
// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" | FileCheck %s
// CHECK: module attributes {pim.arch = #pim.arch<name = "{{.*}}/Inputs/tiny-arch.json", json = "{\0A \22chip_config\22: {{.*}}\22net_config_file_path\22: \22tiny-network.json\22{{.*}}", network = "{\22latency\22: {\220\22: {\221\22: 4, {{.*}}">}

// The passes after it read neither file: with both gone, scheduling and
// code generation are for the tiny chip (peft.mlir works the makespan
// out), and the architecture beside the program is the one carried.
// RUN: rm -rf %t && mkdir %t && cp %inputs/tiny-arch.json %inputs/tiny-network.json %t/
// RUN: pimc-opt %s --pimc-set-arch="arch=%t/tiny-arch.json" -o %t/carried.mlir
// RUN: rm %t/tiny-arch.json %t/tiny-network.json
// RUN: pimc-opt %t/carried.mlir --spat-peft-schedule | FileCheck %s --check-prefix=TINY
// TINY: module attributes {pim.arch = #pim.arch<{{.*}}>, spat.makespan = 9.560000e+02 : f64}
// RUN: pimc-opt %t/carried.mlir --pass-pipeline='builtin.module(spat-peft-schedule,spat-materialize-schedule,spat-order-communication,convert-spatial-to-pim,pim-bufferize,pim-plan-memory,pim-emit-pimsim{output-dir=%t/out})' -o /dev/null
// RUN: FileCheck %s --check-prefix=COPIED < %t/out/arch.json
// COPIED: "xbar_array_count": 4,
// COPIED: "net_config_file_path": "tiny-network.json"
// RUN: diff %inputs/tiny-network.json %t/out/tiny-network.json

// No file: the built-in chip-144, which a module without pim.arch is for.
// RUN: pimc-opt %t/carried.mlir --pimc-set-arch | FileCheck %s --check-prefix=NONE
// NONE-NOT: pim.arch
// NONE: func.func @fork_join

// RUN: not pimc-opt %s --pimc-set-arch="arch=%t/tiny-arch.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: cannot read architecture file '{{.*}}tiny-arch.json'

spat.global constant @w : tensor<32x16xf32> = dense<1.0> : tensor<32x16xf32>

func.func @fork_join(%x: tensor<32xf32>) -> tensor<16xf32> {
  %x0 = tensor.extract_slice %x[0] [16] [1] : tensor<32xf32> to tensor<16xf32>
  %x1 = tensor.extract_slice %x[16] [16] [1] : tensor<32xf32> to tensor<16xf32>
  %p0 = spat.compute(%x0 : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %p1 = spat.compute(%x1 : tensor<16xf32>) tiles [#spat.tile<@w[16, 0], [16, 16]>] {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %s = spat.compute(%p0, %p1 : tensor<16xf32>, tensor<16xf32>) {
  ^bb0(%a: tensor<16xf32>, %b: tensor<16xf32>):
    %o = spat.add %a, %b : tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  return %s : tensor<16xf32>
}
