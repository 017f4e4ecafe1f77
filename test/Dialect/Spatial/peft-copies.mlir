// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --spat-peft-schedule | FileCheck %s

// Computes that share a copy of their weights (spat.copy) run on one core,
// one after the other, and their tiles take its crossbars once. Each tile
// here fills a core of the tiny chip (4 crossbars of 16 columns): six such
// computes would not fit its 4 cores, three copies do.
// CHECK-LABEL: func @shared_copies
// CHECK: spat.copy = 0 : i64, spat.core = [[A:[0-9]+]] : i64, spat.finish = [[F:[0-9.e+]+]] : f64, spat.start = 0.000000e+00
// CHECK: spat.copy = 0 : i64, spat.core = [[A]] : i64, {{.*}} spat.start = [[F]] : f64
// CHECK: spat.copy = 1 : i64, spat.core = [[B:[0-9]+]] : i64
// CHECK-NOT: spat.core = [[A]] :
// CHECK: spat.copy = 1 : i64, spat.core = [[B]] : i64
// CHECK: spat.copy = 2 : i64, spat.core = [[C:[0-9]+]] : i64
// CHECK-NOT: spat.core = [[A]] :
// CHECK-NOT: spat.core = [[B]] :
// CHECK: spat.copy = 2 : i64, spat.core = [[C]] : i64
spat.global constant @full : tensor<16x64xf32> = dense<1.0> : tensor<16x64xf32>
func.func @shared_copies(%x: tensor<16xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %r00 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@full[0, 0], [16, 64]>] attributes {spat.copy = 0 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<64xf32>
    spat.yield %o : tensor<64xf32>
  } -> tensor<64xf32>
  %r01 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@full[0, 0], [16, 64]>] attributes {spat.copy = 0 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<64xf32>
    spat.yield %o : tensor<64xf32>
  } -> tensor<64xf32>
  %r10 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@full[0, 0], [16, 64]>] attributes {spat.copy = 1 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<64xf32>
    spat.yield %o : tensor<64xf32>
  } -> tensor<64xf32>
  %r11 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@full[0, 0], [16, 64]>] attributes {spat.copy = 1 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<64xf32>
    spat.yield %o : tensor<64xf32>
  } -> tensor<64xf32>
  %r20 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@full[0, 0], [16, 64]>] attributes {spat.copy = 2 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<64xf32>
    spat.yield %o : tensor<64xf32>
  } -> tensor<64xf32>
  %r21 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@full[0, 0], [16, 64]>] attributes {spat.copy = 2 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<64xf32>
    spat.yield %o : tensor<64xf32>
  } -> tensor<64xf32>
  return %r00, %r01, %r10, %r11, %r20, %r21 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}
