// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --spat-peft-schedule | FileCheck %s

// The weights here take all 16 crossbars of the tiny chip (4 cores of 4):
// four computes of 1 crossbar, four of 2 and one of 4 that comes last.
// Placing by earliest finish alone puts the 1-crossbar computes on four
// cores and leaves no core with the 4 the last one needs; a placement must
// leave room for the computes still to come, so they share two cores.
// (There are more large computes than cores, so they cannot all run apart.)
// CHECK-LABEL: func @room_for_the_rest
// CHECK: tiles [#spat.tile<@w1{{.*}}spat.core = [[A:[0-9]+]] : i64
// CHECK: tiles [#spat.tile<@w1{{.*}}spat.core = [[B:[0-9]+]] : i64
// CHECK: tiles [#spat.tile<@w1{{.*}}spat.core = [[A]] : i64
// CHECK: tiles [#spat.tile<@w1{{.*}}spat.core = [[B]] : i64
// CHECK: tiles [#spat.tile<@w4{{.*}}spat.core = [[D:[0-9]+]] : i64
// CHECK-NOT: spat.core = [[D]] : i64, {{.*}}tiles
spat.global constant @w1 : tensor<16x16xf32> = dense<1.0> : tensor<16x16xf32>
spat.global constant @w2 : tensor<16x32xf32> = dense<1.0> : tensor<16x32xf32>
spat.global constant @w4 : tensor<16x64xf32> = dense<1.0> : tensor<16x64xf32>
func.func @room_for_the_rest(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<64xf32>) {
  %a0 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w1[0, 0], [16, 16]>] {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %a1 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w1[0, 0], [16, 16]>] {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %a2 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w1[0, 0], [16, 16]>] {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %a3 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w1[0, 0], [16, 16]>] {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %s0 = spat.compute(%a0, %a0 : tensor<16xf32>, tensor<16xf32>) {
  ^bb0(%p: tensor<16xf32>, %q: tensor<16xf32>):
    %o = spat.add %p, %q : tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %s1 = spat.compute(%a1, %a1 : tensor<16xf32>, tensor<16xf32>) {
  ^bb0(%p: tensor<16xf32>, %q: tensor<16xf32>):
    %o = spat.add %p, %q : tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %s2 = spat.compute(%a2, %a2 : tensor<16xf32>, tensor<16xf32>) {
  ^bb0(%p: tensor<16xf32>, %q: tensor<16xf32>):
    %o = spat.add %p, %q : tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %s3 = spat.compute(%a3, %a3 : tensor<16xf32>, tensor<16xf32>) {
  ^bb0(%p: tensor<16xf32>, %q: tensor<16xf32>):
    %o = spat.add %p, %q : tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %t0 = spat.compute(%s0, %s0 : tensor<16xf32>, tensor<16xf32>) {
  ^bb0(%p: tensor<16xf32>, %q: tensor<16xf32>):
    %o = spat.add %p, %q : tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %t1 = spat.compute(%s1, %s1 : tensor<16xf32>, tensor<16xf32>) {
  ^bb0(%p: tensor<16xf32>, %q: tensor<16xf32>):
    %o = spat.add %p, %q : tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %t2 = spat.compute(%s2, %s2 : tensor<16xf32>, tensor<16xf32>) {
  ^bb0(%p: tensor<16xf32>, %q: tensor<16xf32>):
    %o = spat.add %p, %q : tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %t3 = spat.compute(%s3, %s3 : tensor<16xf32>, tensor<16xf32>) {
  ^bb0(%p: tensor<16xf32>, %q: tensor<16xf32>):
    %o = spat.add %p, %q : tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %l0 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w2[0, 0], [16, 32]>] {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<32xf32>
    spat.yield %o : tensor<32xf32>
  } -> tensor<32xf32>
  %l1 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w2[0, 0], [16, 32]>] {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<32xf32>
    spat.yield %o : tensor<32xf32>
  } -> tensor<32xf32>
  %l2 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w2[0, 0], [16, 32]>] {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<32xf32>
    spat.yield %o : tensor<32xf32>
  } -> tensor<32xf32>
  %l3 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w2[0, 0], [16, 32]>] {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<32xf32>
    spat.yield %o : tensor<32xf32>
  } -> tensor<32xf32>
  %d = spat.compute(%s0 : tensor<16xf32>) tiles [#spat.tile<@w4[0, 0], [16, 64]>] {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<64xf32>
    spat.yield %o : tensor<64xf32>
  } -> tensor<64xf32>
  return %t0, %t1, %t2, %t3, %l0, %l1, %l2, %l3, %d : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<64xf32>
}
