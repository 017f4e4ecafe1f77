// RUN: pimc-opt %s --spat-materialize-schedule | FileCheck %s

spat.global constant @w : tensor<32x16xf32> = dense<1.0> : tensor<32x16xf32>
spat.global constant @b : tensor<16xf32> = dense<0.5> : tensor<16xf32>

// Each core gets its computes; the model input and the bias are loaded where
// they are read, the partial sum of core 1 is sent on a channel to core 0,
// and the output is stored by the core that computes it.
// CHECK-DAG: spat.global input @input0 {index = 0 : i64, io_name = "x"} : tensor<1x32xf32>
// CHECK-DAG: spat.global output @output0 {index = 0 : i64, io_name = "y"} : tensor<1x16xf32>
// CHECK-NOT: func.func
// CHECK-LABEL: spat.core 0 {
// CHECK: %[[X0:.*]] = spat.load @input0[0] : tensor<16xf32>
// CHECK: %[[P0:.*]] = spat.compute(%[[X0]] : tensor<16xf32>)
// CHECK: %[[P1:.*]] = spat.recv from 1 channel 0 : tensor<16xf32>
// CHECK: %[[B:.*]] = spat.load @b[0] : tensor<16xf32>
// CHECK: %[[S:.*]] = spat.compute(%[[P0]], %[[P1]], %[[B]] : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
// CHECK: spat.store %[[S]], @output0[0] : tensor<16xf32>
// CHECK-LABEL: spat.core 1 {
// CHECK: %[[X1:.*]] = spat.load @input0[16] : tensor<16xf32>
// CHECK: %[[Q:.*]] = spat.compute(%[[X1]] : tensor<16xf32>)
// CHECK: spat.send %[[Q]] to 0 channel 0 : tensor<16xf32>
func.func @main(%x: tensor<1x32xf32> {onnx.name = "x"}) -> (tensor<1x16xf32> {onnx.name = "y"}) {
  %x0 = tensor.extract_slice %x[0, 0] [1, 16] [1, 1] : tensor<1x32xf32> to tensor<16xf32>
  %x1 = tensor.extract_slice %x[0, 16] [1, 16] [1, 1] : tensor<1x32xf32> to tensor<16xf32>
  %p0 = spat.compute(%x0 : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.core = 0 : i64, spat.start = 0.0 : f64, spat.finish = 10.0 : f64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %p1 = spat.compute(%x1 : tensor<16xf32>) tiles [#spat.tile<@w[16, 0], [16, 16]>] attributes {spat.core = 1 : i64, spat.start = 0.0 : f64, spat.finish = 10.0 : f64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %bias = spat.get_global @b : tensor<16xf32>
  %s = spat.compute(%p0, %p1, %bias : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) attributes {spat.core = 0 : i64, spat.start = 20.0 : f64, spat.finish = 30.0 : f64} {
  ^bb0(%a: tensor<16xf32>, %c: tensor<16xf32>, %d: tensor<16xf32>):
    %t = spat.add %a, %c : tensor<16xf32>
    %u = spat.add %t, %d : tensor<16xf32>
    spat.yield %u : tensor<16xf32>
  } -> tensor<16xf32>
  %y = spat.reshape %s : tensor<16xf32> to tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}
