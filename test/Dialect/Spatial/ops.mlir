// RUN: pimc-opt %s | pimc-opt | FileCheck %s

// CHECK: spat.global constant @w : tensor<200x64xf32> = dense<
spat.global constant @w : tensor<200x64xf32> = dense<1.0> : tensor<200x64xf32>
// CHECK: spat.global constant @b : tensor<64xf32>
spat.global constant @b : tensor<64xf32> = dense<0.5> : tensor<64xf32>

// CHECK-LABEL: func @gemm
func.func @gemm(%x: tensor<1x200xf32>) -> tensor<1x64xf32> {
  %x0 = tensor.extract_slice %x[0, 0] [1, 128] [1, 1] : tensor<1x200xf32> to tensor<128xf32>
  %x1 = tensor.extract_slice %x[0, 128] [1, 72] [1, 1] : tensor<1x200xf32> to tensor<72xf32>
  // CHECK: spat.compute(%{{.*}} : tensor<128xf32>) tiles [#spat.tile<@w[0, 0], [128, 64]>]
  // CHECK: spat.mvm %{{.*}} tile 0 : tensor<128xf32> -> tensor<64xf32>
  %p0 = spat.compute(%x0 : tensor<128xf32>) tiles [#spat.tile<@w[0, 0], [128, 64]>] {
  ^bb0(%in: tensor<128xf32>):
    %o = spat.mvm %in tile 0 : tensor<128xf32> -> tensor<64xf32>
    spat.yield %o : tensor<64xf32>
  } -> tensor<64xf32>
  %p1 = spat.compute(%x1 : tensor<72xf32>) tiles [#spat.tile<@w[128, 0], [72, 64]>] {
  ^bb0(%in: tensor<72xf32>):
    %o = spat.mvm %in tile 0 : tensor<72xf32> -> tensor<64xf32>
    spat.yield %o : tensor<64xf32>
  } -> tensor<64xf32>
  %bias = spat.get_global @b : tensor<64xf32>
  // CHECK: spat.add
  %sum = spat.compute(%p0, %p1, %bias : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  ^bb0(%a: tensor<64xf32>, %c: tensor<64xf32>, %d: tensor<64xf32>):
    %s = spat.add %a, %c : tensor<64xf32>
    %t = spat.add %s, %d : tensor<64xf32>
    %r = spat.relu %t : tensor<64xf32>
    spat.yield %r : tensor<64xf32>
  } -> tensor<64xf32>
  // CHECK: spat.reshape %{{.*}} : tensor<64xf32> to tensor<1x64xf32>
  %y = spat.reshape %sum : tensor<64xf32> to tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}

// CHECK-LABEL: func @rows
func.func @rows(%x: tensor<3x4xf32>) -> tensor<4x3xf32> {
  // CHECK: spat.compute_batch lanes(3) lane(%{{.*}} : tensor<3x4xf32>)
  %r = spat.compute_batch lanes(3) lane(%x : tensor<3x4xf32>) {
  ^bb0(%row: tensor<4xf32>):
    %s = spat.sigmoid %row : tensor<4xf32>
    %t = spat.tanh %s : tensor<4xf32>
    spat.yield %t : tensor<4xf32>
  } -> tensor<3x4xf32>
  // CHECK: spat.compute_batch lanes(4) shared(%{{.*}} : tensor<3x4xf32>)
  // CHECK: spat.gather %{{.*}}[0 + lanes [4] * [1]] stride 4 : tensor<3x4xf32> -> tensor<3xf32>
  %t = spat.compute_batch lanes(4) shared(%r : tensor<3x4xf32>) {
  ^bb0(%all: tensor<3x4xf32>):
    %col = spat.gather %all[0 + lanes [4] * [1]] stride 4 : tensor<3x4xf32> -> tensor<3xf32>
    spat.yield %col : tensor<3xf32>
  } -> tensor<4x3xf32>
  return %t : tensor<4x3xf32>
}

// CHECK: spat.global input @in0 {index = 0 : i64, io_name = "x"} : tensor<1x4xf32>
spat.global input @in0 {index = 0 : i64, io_name = "x"} : tensor<1x4xf32>
spat.global output @out0 {index = 0 : i64, io_name = "y"} : tensor<4xf32>

// CHECK: spat.core 0 {
spat.core 0 {
  // CHECK: spat.load @in0[0] : tensor<4xf32>
  %x = spat.load @in0[0] : tensor<4xf32>
  // CHECK: spat.send %{{.*}} to 1 channel 0 : tensor<4xf32>
  spat.send %x to 1 channel 0 : tensor<4xf32>
}
spat.core 1 {
  // CHECK: spat.recv from 0 channel 0 : tensor<4xf32>
  %x = spat.recv from 0 channel 0 : tensor<4xf32>
  %y = spat.compute(%x : tensor<4xf32>) {
  ^bb0(%v: tensor<4xf32>):
    %r = spat.relu %v : tensor<4xf32>
    spat.yield %r : tensor<4xf32>
  } -> tensor<4xf32>
  // CHECK: spat.store %{{.*}}, @out0[0] : tensor<4xf32>
  spat.store %y, @out0[0] : tensor<4xf32>
}
