// RUN: pimc-opt %s --no-implicit-module --pass-pipeline='func.func(onnx-pack-pixels)' --verify-diagnostics -o /dev/null

// The chip is the module's (pim.arch): a function outside of one has none.
// expected-error @+1 {{onnx-pack-pixels needs the function in a module}}
func.func @f(%x: tensor<1xf32>) -> tensor<1xf32> {
  return %x : tensor<1xf32>
}
