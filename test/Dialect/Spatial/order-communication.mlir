// RUN: pimc-opt %s --split-input-file --spat-order-communication | FileCheck %s

// Each core received its programs with both sends first, an order that
// deadlocks: each core's send would wait for the other's recv. Simulated,
// each core first computes what it sends (nothing waits for it), then both
// meet channel 0 (x, which core 0 is free to send first) and then channel 1.
// CHECK-LABEL: spat.core 0 {
// CHECK: %[[X:.*]] = spat.compute
// CHECK: spat.send %[[X]] to 1 channel 0
// CHECK: %[[Y:.*]] = spat.recv from 1 channel 1
// CHECK: spat.compute(%[[Y]]
// CHECK-LABEL: spat.core 1 {
// CHECK: %[[B:.*]] = spat.compute
// CHECK: %[[X1:.*]] = spat.recv from 0 channel 0
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

// -----

// Core 1 is busy with a long compute when x is ready: core 0 does its own
// work L (neither L nor x is urgent: core 1 takes x late) instead of
// blocking in the send, and sends x after both.
// CHECK-LABEL: spat.core 0 {
// CHECK-DAG: %[[X:.*]] = spat.compute(%{{.*}} : tensor<256xf32>)
// CHECK-DAG: spat.compute(%{{.*}} : tensor<1024xf32>)
// CHECK: spat.send %[[X]] to 1 channel 0
// CHECK-LABEL: spat.core 1 {
// CHECK: spat.compute(%{{.*}} : tensor<4096xf32>)
// CHECK: spat.recv from 0 channel 0
spat.core 0 {
  %s = spat.fill 1.0 : tensor<256xf32>
  %x = spat.compute(%s : tensor<256xf32>) attributes {spat.start = 0.0 : f64, spat.finish = 300.0 : f64} {
  ^bb0(%v: tensor<256xf32>):
    %r = spat.relu %v : tensor<256xf32>
    spat.yield %r : tensor<256xf32>
  } -> tensor<256xf32>
  spat.send %x to 1 channel 0 : tensor<256xf32>
  %a = spat.fill 1.0 : tensor<1024xf32>
  %l = spat.compute(%a : tensor<1024xf32>) attributes {spat.start = 300.0 : f64, spat.finish = 1200.0 : f64} {
  ^bb0(%v: tensor<1024xf32>):
    %r = spat.relu %v : tensor<1024xf32>
    spat.yield %r : tensor<1024xf32>
  } -> tensor<1024xf32>
}
spat.core 1 {
  %a = spat.compute attributes {spat.start = 0.0 : f64, spat.finish = 0.0 : f64} {
    %c = tensor.empty() : tensor<4096xf32>
    spat.yield %c : tensor<4096xf32>
  } -> tensor<4096xf32>
  %b = spat.compute(%a : tensor<4096xf32>) attributes {spat.start = 0.0 : f64, spat.finish = 3700.0 : f64} {
  ^bb0(%v: tensor<4096xf32>):
    %r = spat.relu %v : tensor<4096xf32>
    spat.yield %r : tensor<4096xf32>
  } -> tensor<4096xf32>
  %x = spat.recv from 0 channel 0 : tensor<256xf32>
}
