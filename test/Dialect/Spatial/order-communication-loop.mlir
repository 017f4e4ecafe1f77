// RUN: pimc-opt %s --spat-order-communication | FileCheck %s --check-prefix=LATENCY
// RUN: pimc-opt %s --spat-order-communication="throughput=true" | FileCheck %s --check-prefix=PIPELINE

// Core 0 makes two halves and sends each to core 1, then works long on the
// second. For one inference core 1 computes on the first half while core 0
// makes the second. When the programs loop, core 1 is busy with the round
// before when core 0 has both halves ready, and core 0 would wait in the
// second send for core 1's first compute, every round: core 1 takes both
// halves first, and core 0 sends each as soon as it is made, before its
// long work.
// LATENCY-LABEL: spat.core 1 {
// LATENCY: spat.recv from 0 channel 0
// LATENCY-NEXT: spat.compute
// LATENCY: spat.recv from 0 channel 1
// LATENCY-NEXT: spat.compute
// PIPELINE-LABEL: spat.core 0 {
// PIPELINE: spat.send %{{.*}} to 1 channel 0
// PIPELINE: spat.send %{{.*}} to 1 channel 1
// PIPELINE-NEXT: spat.compute
// PIPELINE-LABEL: spat.core 1 {
// PIPELINE: spat.recv from 0 channel 0
// PIPELINE-NEXT: spat.recv from 0 channel 1
// PIPELINE-NEXT: spat.compute
spat.global output @out {index = 0 : i64, io_name = "y"} : tensor<8192xf32>

spat.core 0 {
  %s = spat.fill 1.0 : tensor<256xf32>
  %h1 = spat.compute(%s : tensor<256xf32>) attributes {spat.start = 0.0 : f64, spat.finish = 10.0 : f64} {
  ^bb0(%v: tensor<256xf32>):
    %r = spat.relu %v : tensor<256xf32>
    spat.yield %r : tensor<256xf32>
  } -> tensor<256xf32>
  spat.send %h1 to 1 channel 0 : tensor<256xf32>
  %h2 = spat.compute(%h1 : tensor<256xf32>) attributes {spat.start = 10.0 : f64, spat.finish = 20.0 : f64} {
  ^bb0(%v: tensor<256xf32>):
    %r0 = spat.relu %v : tensor<256xf32>
    %r1 = spat.relu %r0 : tensor<256xf32>
    %r2 = spat.relu %r1 : tensor<256xf32>
    %r3 = spat.relu %r2 : tensor<256xf32>
    %r4 = spat.relu %r3 : tensor<256xf32>
    %r5 = spat.relu %r4 : tensor<256xf32>
    %r6 = spat.relu %r5 : tensor<256xf32>
    %r7 = spat.relu %r6 : tensor<256xf32>
    spat.yield %r7 : tensor<256xf32>
  } -> tensor<256xf32>
  spat.send %h2 to 1 channel 1 : tensor<256xf32>
  %w = spat.compute(%h2 : tensor<256xf32>) attributes {spat.start = 20.0 : f64, spat.finish = 2000.0 : f64} {
  ^bb0(%u: tensor<256xf32>):
    %v = tensor.empty() : tensor<4096xf32>
    %r0 = spat.relu %v : tensor<4096xf32>
    %r1 = spat.relu %r0 : tensor<4096xf32>
    %r2 = spat.relu %r1 : tensor<4096xf32>
    %r3 = spat.relu %r2 : tensor<4096xf32>
    %r4 = spat.relu %r3 : tensor<4096xf32>
    %r5 = spat.relu %r4 : tensor<4096xf32>
    spat.yield %r5 : tensor<4096xf32>
  } -> tensor<4096xf32>
  spat.store %w, @out[0] : tensor<4096xf32>
}
spat.core 1 {
  %x1 = spat.recv from 0 channel 0 : tensor<256xf32>
  %c1 = spat.compute(%x1 : tensor<256xf32>) attributes {spat.start = 20.0 : f64, spat.finish = 1000.0 : f64} {
  ^bb0(%v: tensor<256xf32>):
    %b = tensor.empty() : tensor<2048xf32>
    %r0 = spat.relu %b : tensor<2048xf32>
    %r1 = spat.relu %r0 : tensor<2048xf32>
    %r2 = spat.relu %r1 : tensor<2048xf32>
    %r3 = spat.relu %r2 : tensor<2048xf32>
    spat.yield %r3 : tensor<2048xf32>
  } -> tensor<2048xf32>
  %x2 = spat.recv from 0 channel 1 : tensor<256xf32>
  %c2 = spat.compute(%x2 : tensor<256xf32>) attributes {spat.start = 1000.0 : f64, spat.finish = 2000.0 : f64} {
  ^bb0(%v: tensor<256xf32>):
    %b = tensor.empty() : tensor<2048xf32>
    %r0 = spat.relu %b : tensor<2048xf32>
    %r1 = spat.relu %r0 : tensor<2048xf32>
    %r2 = spat.relu %r1 : tensor<2048xf32>
    %r3 = spat.relu %r2 : tensor<2048xf32>
    spat.yield %r3 : tensor<2048xf32>
  } -> tensor<2048xf32>
  spat.store %c1, @out[4096] : tensor<2048xf32>
  spat.store %c2, @out[6144] : tensor<2048xf32>
}
