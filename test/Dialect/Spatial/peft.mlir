// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --spat-peft-schedule | FileCheck %s

spat.global constant @w : tensor<32x16xf32> = dense<1.0> : tensor<32x16xf32>

// Independent multiplies go to different cores and start at once; their
// reduction goes to one of their cores, after both finished.
// On the tiny chip an mvmul takes 735 ns (40 read, 665 compute, 30 write)
// and loading its 16 inputs 85 ns; the partial sum crosses the NoC in 62 ns
// and the add takes 74 ns.
// CHECK: module attributes {pim.arch = #pim.arch<name = "{{.*}}tiny-arch.json", {{.*}}>, spat.makespan = 9.560000e+02 : f64}
// CHECK-LABEL: func @fork_join
// CHECK: spat.compute{{.*}}spat.core = 0 : i64, spat.finish = 8.200000e+02 : f64, spat.start = 0.000000e+00 : f64
// CHECK: spat.compute{{.*}}spat.core = 1 : i64, spat.finish = 8.200000e+02 : f64, spat.start = 0.000000e+00 : f64
// CHECK: spat.compute{{.*}}spat.core = 0 : i64, spat.finish = 9.560000e+02 : f64, spat.start = 8.820000e+02 : f64
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
