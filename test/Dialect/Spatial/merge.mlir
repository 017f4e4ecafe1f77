// RUN: pimc-opt %s --split-input-file --pimc-set-arch="arch=%inputs/tiny-arch.json" --spat-merge-computes | FileCheck %s

spat.global constant @w : tensor<16x16xf32> = dense<1.0> : tensor<16x16xf32>

// A chain: the multiply's only consumer is the activation, whose only
// producer it is; they become one compute with the producer's tile.
// The merged compute is part of the consumer's model node.
// CHECK-LABEL: func @chain
// CHECK: %[[M:.*]] = spat.compute(%arg0 : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.layer = 1 : i64} {
// CHECK: ^bb0(%[[IN:.*]]: tensor<16xf32>):
// CHECK: %[[P:.*]] = spat.mvm %[[IN]] tile 0
// CHECK: %[[R:.*]] = spat.relu %[[P]]
// CHECK: spat.yield %[[R]]
// CHECK-NOT: spat.compute
// CHECK: return %[[M]]
func.func @chain(%x: tensor<16xf32>) -> tensor<16xf32> {
  %p = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.layer = 0 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %r = spat.compute(%p : tensor<16xf32>) attributes {spat.layer = 1 : i64} {
  ^bb0(%v: tensor<16xf32>):
    %o = spat.relu %v : tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

spat.global constant @w : tensor<32x16xf32> = dense<1.0> : tensor<32x16xf32>

// Two producers may run in parallel: nothing is merged. A producer with a
// second user is not merged either.
// CHECK-LABEL: func @parallel
// CHECK-COUNT-3: spat.compute
func.func @parallel(%x: tensor<16xf32>, %y: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %p0 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %p1 = spat.compute(%y : tensor<16xf32>) tiles [#spat.tile<@w[16, 0], [16, 16]>] {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %s = spat.compute(%p0, %p1 : tensor<16xf32>, tensor<16xf32>) {
  ^bb0(%a: tensor<16xf32>, %b: tensor<16xf32>):
    %o = spat.add %a, %b : tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  return %s, %p1 : tensor<16xf32>, tensor<16xf32>
}

// -----

spat.global constant @w : tensor<16x64xf32> = dense<1.0> : tensor<16x64xf32>

// Merged, the two computes would need 4 + 1 crossbars, more than a core of
// the tiny chip has.
// CHECK-LABEL: func @too_many_crossbars
// CHECK-COUNT-2: spat.compute(
func.func @too_many_crossbars(%x: tensor<16xf32>) -> tensor<16xf32> {
  %p = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 64]>] {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<64xf32>
    spat.yield %o : tensor<64xf32>
  } -> tensor<64xf32>
  %s = tensor.extract_slice %p[0] [16] [1] : tensor<64xf32> to tensor<16xf32>
  %q = spat.compute(%s : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  return %q : tensor<16xf32>
}

// -----

// Batches merge lane by lane when the lane counts agree.
// CHECK-LABEL: func @batch_chain
// CHECK: spat.compute_batch lanes(3) lane(%arg0 : tensor<3x8xf32>) {
// CHECK: spat.sigmoid
// CHECK: spat.tanh
// CHECK-NOT: spat.compute_batch
func.func @batch_chain(%x: tensor<3x8xf32>) -> tensor<3x8xf32> {
  %a = spat.compute_batch lanes(3) lane(%x : tensor<3x8xf32>) {
  ^bb0(%row: tensor<8xf32>):
    %o = spat.sigmoid %row : tensor<8xf32>
    spat.yield %o : tensor<8xf32>
  } -> tensor<3x8xf32>
  %b = spat.compute_batch lanes(3) lane(%a : tensor<3x8xf32>) {
  ^bb0(%row: tensor<8xf32>):
    %o = spat.tanh %row : tensor<8xf32>
    spat.yield %o : tensor<8xf32>
  } -> tensor<3x8xf32>
  return %b : tensor<3x8xf32>
}

// -----

spat.global constant @w : tensor<16x16xf32> = dense<1.0> : tensor<16x16xf32>

// A compute that uses a shared copy of weights (spat.copy) keeps it when
// its consumer is merged into it; two computes of two copies are not
// merged, as they run where their copies are.
// CHECK-LABEL: func @copies
// CHECK: %[[P:.*]] = spat.compute(%arg0 : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.copy = 7 : i64} {
// CHECK: spat.relu
// CHECK: spat.compute(%[[P]] : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.copy = 8 : i64} {
func.func @copies(%x: tensor<16xf32>) -> tensor<16xf32> {
  %p = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.copy = 7 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %r = spat.compute(%p : tensor<16xf32>) {
  ^bb0(%v: tensor<16xf32>):
    %o = spat.relu %v : tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %q = spat.compute(%r : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.copy = 8 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  return %q : tensor<16xf32>
}
