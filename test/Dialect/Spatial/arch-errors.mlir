// RUN: pimc-opt %s --spat-peft-schedule --verify-diagnostics -o /dev/null

// A pass that reads the chip from a pim.arch that is not one says so (the
// verifier has not checked it: nothing loaded the pim dialect).
// expected-error @+1 {{'pim.arch' must be a #pim.arch}}
module attributes {pim.arch = "chip-144"} {
  func.func @f(%x: tensor<16xf32>) -> tensor<16xf32> {
    return %x : tensor<16xf32>
  }
}
