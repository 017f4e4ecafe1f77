// RUN: pimc-opt %s -split-input-file -verify-diagnostics

spat.global constant @w : tensor<128x64xf32> = dense<1.0> : tensor<128x64xf32>
func.func @tile_index(%x: tensor<128xf32>) -> tensor<64xf32> {
  %p = spat.compute(%x : tensor<128xf32>) tiles [#spat.tile<@w[0, 0], [128, 64]>] {
  ^bb0(%in: tensor<128xf32>):
    // expected-error @+1 {{tile 1 is not one of the 1 tiles of the compute}}
    %o = spat.mvm %in tile 1 : tensor<128xf32> -> tensor<64xf32>
    spat.yield %o : tensor<64xf32>
  } -> tensor<64xf32>
  return %p : tensor<64xf32>
}

// -----

spat.global constant @w : tensor<128x64xf32> = dense<1.0> : tensor<128x64xf32>
func.func @tile_shape(%x: tensor<100xf32>) -> tensor<64xf32> {
  %p = spat.compute(%x : tensor<100xf32>) tiles [#spat.tile<@w[0, 0], [128, 64]>] {
  ^bb0(%in: tensor<100xf32>):
    // expected-error @+1 {{a 128x64 tile takes 128 elements and gives 64}}
    %o = spat.mvm %in tile 0 : tensor<100xf32> -> tensor<64xf32>
    spat.yield %o : tensor<64xf32>
  } -> tensor<64xf32>
  return %p : tensor<64xf32>
}

// -----

func.func @lane_rows(%x: tensor<2x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{lane input of type 'tensor<2x4xf32>' does not have 3 rows}}
  %r = spat.compute_batch lanes(3) lane(%x : tensor<2x4xf32>) {
  ^bb0(%row: tensor<4xf32>):
    spat.yield %row : tensor<4xf32>
  } -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

func.func @batch_result(%x: tensor<3x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{result of type 'tensor<4xf32>' should be 'tensor<3x4xf32>'}}
  %r = spat.compute_batch lanes(3) lane(%x : tensor<3x4xf32>) {
  ^bb0(%row: tensor<4xf32>):
    spat.yield %row : tensor<4xf32>
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @gather_bounds(%x: tensor<3x4xf32>) -> tensor<4x3xf32> {
  %t = spat.compute_batch lanes(4) shared(%x : tensor<3x4xf32>) {
  ^bb0(%all: tensor<3x4xf32>):
    // expected-error @+1 {{reads element 13 of a source of 12}}
    %col = spat.gather %all[2 + lanes [4] * [1]] stride 4 : tensor<3x4xf32> -> tensor<3xf32>
    spat.yield %col : tensor<3xf32>
  } -> tensor<4x3xf32>
  return %t : tensor<4x3xf32>
}

// -----

// expected-error @+1 {{an input or output needs its index}}
spat.global input @in : tensor<4xf32>

// -----

func.func @no_global() -> tensor<4xf32> {
  // expected-error @+1 {{'missing' is not a spat.global}}
  %g = spat.get_global @missing : tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// The schedule's hand-offs are typed: a core is an integer, a time an f64.
spat.global constant @w : tensor<128x64xf32> = dense<1.0> : tensor<128x64xf32>
func.func @core_not_integer(%x: tensor<128xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{'spat.compute' op 'spat.core' must be an integer}}
  %p = spat.compute(%x : tensor<128xf32>) tiles [#spat.tile<@w[0, 0], [128, 64]>] attributes {spat.core = "three"} {
  ^bb0(%in: tensor<128xf32>):
    %o = spat.mvm %in tile 0 : tensor<128xf32> -> tensor<64xf32>
    spat.yield %o : tensor<64xf32>
  } -> tensor<64xf32>
  return %p : tensor<64xf32>
}

// -----

// A compute's model node is a number, not its name.
spat.global constant @w : tensor<128x64xf32> = dense<1.0> : tensor<128x64xf32>
func.func @layer_not_integer(%x: tensor<128xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{'spat.compute' op 'spat.layer' must be an integer}}
  %p = spat.compute(%x : tensor<128xf32>) tiles [#spat.tile<@w[0, 0], [128, 64]>] attributes {spat.layer = "conv1"} {
  ^bb0(%in: tensor<128xf32>):
    %o = spat.mvm %in tile 0 : tensor<128xf32> -> tensor<64xf32>
    spat.yield %o : tensor<64xf32>
  } -> tensor<64xf32>
  return %p : tensor<64xf32>
}

// -----

spat.global constant @w : tensor<128x64xf32> = dense<1.0> : tensor<128x64xf32>
func.func @start_not_time(%x: tensor<128xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{'spat.compute' op 'spat.start' must be a time in ns (f64)}}
  %p = spat.compute(%x : tensor<128xf32>) tiles [#spat.tile<@w[0, 0], [128, 64]>] attributes {spat.core = 0 : i64, spat.start = 3 : i64} {
  ^bb0(%in: tensor<128xf32>):
    %o = spat.mvm %in tile 0 : tensor<128xf32> -> tensor<64xf32>
    spat.yield %o : tensor<64xf32>
  } -> tensor<64xf32>
  return %p : tensor<64xf32>
}
