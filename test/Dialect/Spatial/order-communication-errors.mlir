// RUN: pimc-opt %s --split-input-file --spat-order-communication --verify-diagnostics

spat.core 0 {
  %x = spat.compute {
    %c = tensor.empty() : tensor<4xf32>
    spat.yield %c : tensor<4xf32>
  } -> tensor<4xf32>
  // expected-error @+1 {{channel 3 has no matching end}}
  spat.send %x to 1 channel 3 : tensor<4xf32>
}
spat.core 1 {
}
