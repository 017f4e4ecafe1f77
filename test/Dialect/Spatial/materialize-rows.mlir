// RUN: pimc-opt %s --spat-materialize-schedule | FileCheck %s

// A batch's rows are read from another core's result with a row stride: the
// sender takes the [3, 4] box of its [3, 10] result, one message per row, and
// the receiver gets the rows contiguous. The output of a batch is stored row
// by row into its place in the output.
// CHECK-LABEL: spat.core 0 {
// CHECK: %[[ALL:.*]] = spat.load @input0[0] : tensor<30xf32>
// CHECK: %[[R:.*]] = spat.compute_batch lanes(3) lane(%{{.*}} : tensor<3x10xf32>)
// CHECK: %[[BOX:.*]] = tensor.extract_slice %[[R]][0, 2] [3, 4] [1, 1] : tensor<3x10xf32> to tensor<3x4xf32>
// CHECK: spat.send %[[BOX]] to 1 channel 0 : tensor<3x4xf32>
// CHECK-LABEL: spat.core 1 {
// CHECK: %[[IN:.*]] = spat.recv from 0 channel 0 : tensor<3x4xf32>
// CHECK: %[[T:.*]] = spat.compute_batch lanes(3) lane(%[[IN]] : tensor<3x4xf32>)
// CHECK: %[[FLAT:.*]] = spat.reshape %[[T]] : tensor<3x4xf32> to tensor<12xf32>
// CHECK: spat.store %[[FLAT]], @output0[0] : tensor<12xf32>
func.func @main(%x: tensor<3x10xf32>) -> tensor<3x4xf32> {
  %r = spat.compute_batch lanes(3) lane(%x : tensor<3x10xf32>) attributes {spat.core = 0 : i64, spat.start = 0.0 : f64, spat.finish = 10.0 : f64} {
  ^bb0(%row: tensor<10xf32>):
    %o = spat.relu %row : tensor<10xf32>
    spat.yield %o : tensor<10xf32>
  } -> tensor<3x10xf32>
  %s = tensor.extract_slice %r[0, 2] [3, 4] [1, 1] : tensor<3x10xf32> to tensor<3x4xf32>
  %t = spat.compute_batch lanes(3) lane(%s : tensor<3x4xf32>) attributes {spat.core = 1 : i64, spat.start = 20.0 : f64, spat.finish = 30.0 : f64} {
  ^bb0(%row: tensor<4xf32>):
    %o = spat.tanh %row : tensor<4xf32>
    spat.yield %o : tensor<4xf32>
  } -> tensor<3x4xf32>
  return %t : tensor<3x4xf32>
}
