// RUN: pimc-opt %s --spat-order-communication | FileCheck %s

// Each core received its programs with both sends first, an order that
// deadlocks: each core's send would wait for the other's recv. Ordered by
// when their data is ready (x at 100 on core 0, y at 200 on core 1), both
// cores meet channel 0 first, then channel 1: core 1 takes x (ready at
// 100) before it computes y.
// CHECK-LABEL: spat.core 0 {
// CHECK: %[[X:.*]] = spat.compute
// CHECK: spat.send %[[X]] to 1 channel 0
// CHECK: %[[Y:.*]] = spat.recv from 1 channel 1
// CHECK: spat.compute(%[[Y]]
// CHECK-LABEL: spat.core 1 {
// CHECK: %[[X1:.*]] = spat.recv from 0 channel 0
// CHECK: %[[B:.*]] = spat.compute
// CHECK: spat.send %[[B]] to 0 channel 1
// CHECK: spat.compute(%[[X1]]
spat.core 0 {
  %x = spat.compute attributes {spat.start = 0.0 : f64, spat.finish = 100.0 : f64} {
    %c = tensor.empty() : tensor<4xf32>
    spat.yield %c : tensor<4xf32>
  } -> tensor<4xf32>
  spat.send %x to 1 channel 0 : tensor<4xf32>
  %y = spat.recv from 1 channel 1 : tensor<4xf32>
  %u = spat.compute(%y : tensor<4xf32>) attributes {spat.start = 400.0 : f64, spat.finish = 500.0 : f64} {
  ^bb0(%v: tensor<4xf32>):
    %r = spat.relu %v : tensor<4xf32>
    spat.yield %r : tensor<4xf32>
  } -> tensor<4xf32>
}
spat.core 1 {
  %b = spat.compute attributes {spat.start = 100.0 : f64, spat.finish = 200.0 : f64} {
    %c = tensor.empty() : tensor<4xf32>
    spat.yield %c : tensor<4xf32>
  } -> tensor<4xf32>
  spat.send %b to 0 channel 1 : tensor<4xf32>
  %x = spat.recv from 0 channel 0 : tensor<4xf32>
  %u = spat.compute(%x : tensor<4xf32>) attributes {spat.start = 300.0 : f64, spat.finish = 350.0 : f64} {
  ^bb0(%v: tensor<4xf32>):
    %r = spat.relu %v : tensor<4xf32>
    spat.yield %r : tensor<4xf32>
  } -> tensor<4xf32>
}
