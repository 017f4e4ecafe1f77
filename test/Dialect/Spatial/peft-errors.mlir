// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --spat-peft-schedule --verify-diagnostics -o /dev/null

spat.global constant @w : tensor<16x80xf32> = dense<1.0> : tensor<16x80xf32>

// Five crossbars fit no core of the tiny chip.
func.func @no_room(%x: tensor<16xf32>) -> tensor<80xf32> {
  // expected-error @+1 {{no core has the 5 free crossbars this compute's weights need (16 crossbars are free on the chip, at most 4 on one core)}}
  %p = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 80]>] {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<80xf32>
    spat.yield %o : tensor<80xf32>
  } -> tensor<80xf32>
  return %p : tensor<80xf32>
}
