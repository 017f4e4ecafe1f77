// RUN: pimc-opt %s --split-input-file --pimc-set-arch="arch=%inputs/tiny-arch.json" --convert-spatial-to-pim --verify-diagnostics | FileCheck %s

// A single-lane compute is inlined. Tiles of two computes are the groups 0
// and 1 of the core, in program order; every vector operation writes a fresh
// destination.
// CHECK: pim.core 0 groups [#pim.group<@w[0, 0], [16, 16]>, #pim.group<@w[16, 0], [16, 16]>] {
// CHECK: %[[A:.*]] = pim.mvm %{{.*}} group 0 into %{{.*}} : tensor<16xf32> into tensor<16xf32>
// CHECK: %[[B:.*]] = pim.mvm %{{.*}} group 1 into %{{.*}} : tensor<16xf32> into tensor<16xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<16xf32>
// CHECK: %[[S:.*]] = pim.vvadd %[[A]], %[[B]] into %[[E]]
// CHECK: pim.vsigm %[[S]]
spat.global constant @w : tensor<32x16xf32> = dense<1.0> : tensor<32x16xf32>
spat.global input @input0 {index = 0 : i64} : tensor<32xf32>
spat.core 0 {
  %x0 = spat.load @input0[0] : tensor<16xf32>
  %x1 = spat.load @input0[16] : tensor<16xf32>
  %a = spat.compute(%x0 : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %b = spat.compute(%x1, %a : tensor<16xf32>, tensor<16xf32>) tiles [#spat.tile<@w[16, 0], [16, 16]>] {
  ^bb0(%in: tensor<16xf32>, %other: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    %s = spat.add %other, %o : tensor<16xf32>
    %t = spat.sigmoid %s : tensor<16xf32>
    spat.yield %t : tensor<16xf32>
  } -> tensor<16xf32>
  spat.send %b to 1 channel 0 : tensor<16xf32>
}

// -----

// Two computes of one copy of weights on a core share its array group.
// CHECK: pim.core 0 groups [#pim.group<@w[0, 0], [16, 16]>] {
// CHECK: pim.mvm %{{.*}} group 0 into
// CHECK: pim.mvm %{{.*}} group 0 into
spat.global constant @w : tensor<16x16xf32> = dense<1.0> : tensor<16x16xf32>
spat.global input @input0 {index = 0 : i64} : tensor<32xf32>
spat.core 0 {
  %x0 = spat.load @input0[0] : tensor<16xf32>
  %x1 = spat.load @input0[16] : tensor<16xf32>
  %a = spat.compute(%x0 : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.copy = 0 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %b = spat.compute(%x1 : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.copy = 0 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  spat.send %a to 1 channel 0 : tensor<16xf32>
  spat.send %b to 1 channel 1 : tensor<16xf32>
}

// -----

spat.global constant @w : tensor<16x80xf32> = dense<1.0> : tensor<16x80xf32>
// expected-error @+1 {{core 0 needs 5 crossbars for its array groups; a core has 4}}
spat.core 0 {
  %x = spat.recv from 1 channel 0 : tensor<16xf32>
  %a = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 80]>] {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<80xf32>
    spat.yield %o : tensor<80xf32>
  } -> tensor<80xf32>
}
