// RUN: pimc-opt %s --split-input-file --verify-diagnostics --pimc-set-arch="arch=%inputs/tiny-arch.json" --onnx-plan-windows --convert-onnx-to-spatial

// The tiny chip has 16 crossbars of 16x16; these weights need 4 x 5 tiles of
// one crossbar.
// expected-error @+1 {{the model does not fit the chip: its weights need 20 crossbars of 16x16, the chip has 16 (4 cores x 4)}}
module {
  func.func @too_big(%a: tensor<1x64xf32>) -> tensor<1x80xf32> {
    %w = onnx.Constant dense<0.5> : tensor<64x80xf32> : tensor<64x80xf32>
    %y = onnx.Gemm %a, %w : (tensor<1x64xf32>, tensor<64x80xf32>) -> tensor<1x80xf32>
    return %y : tensor<1x80xf32>
  }
}

