// RUN: pimc-opt %s --spat-order-communication | FileCheck %s --check-prefix=LATENCY
// RUN: pimc-opt %s --spat-order-communication="throughput=true" | FileCheck %s --check-prefix=PIPELINE

// Core 0 has two computes ready at once. The schedule placed A first, but B
// feeds core 1's long compute, the end of the program: for one inference B
// is the more urgent (halfway between its scheduled start, 100, and its
// latest start, 0, against A's 0 and about the whole critical path), so B
// runs and is sent first. Programs that loop keep the schedule's order.
// LATENCY-LABEL: spat.core 0 {
// LATENCY: %[[B:.*]] = spat.compute{{.*}}spat.start = 1.000000e+02
// LATENCY-NEXT: ^bb0
// LATENCY: spat.send %[[B]] to 1 channel 0
// LATENCY: spat.compute{{.*}}spat.start = 0.000000e+00
// PIPELINE-LABEL: spat.core 0 {
// PIPELINE: spat.compute{{.*}}spat.start = 0.000000e+00
// PIPELINE: %[[B:.*]] = spat.compute{{.*}}spat.start = 1.000000e+02
// PIPELINE: spat.send %[[B]] to 1 channel 0
spat.global output @out {index = 0 : i64, io_name = "y"} : tensor<128xf32>

spat.core 0 {
  %s = spat.fill 1.0 : tensor<64xf32>
  // A
  %a = spat.compute(%s : tensor<64xf32>) attributes {spat.start = 0.0 : f64, spat.finish = 100.0 : f64} {
  ^bb0(%v: tensor<64xf32>):
    %r = spat.relu %v : tensor<64xf32>
    spat.yield %r : tensor<64xf32>
  } -> tensor<64xf32>
  // B
  %b = spat.compute(%s : tensor<64xf32>) attributes {spat.start = 100.0 : f64, spat.finish = 200.0 : f64} {
  ^bb0(%v: tensor<64xf32>):
    %r = spat.relu %v : tensor<64xf32>
    spat.yield %r : tensor<64xf32>
  } -> tensor<64xf32>
  spat.send %b to 1 channel 0 : tensor<64xf32>
  spat.store %a, @out[0] : tensor<64xf32>
}
spat.core 1 {
  %x = spat.recv from 0 channel 0 : tensor<64xf32>
  %c = spat.compute(%x : tensor<64xf32>) attributes {spat.start = 300.0 : f64, spat.finish = 5000.0 : f64} {
  ^bb0(%v: tensor<64xf32>):
    %r0 = spat.relu %v : tensor<64xf32>
    %r1 = spat.relu %r0 : tensor<64xf32>
    %r2 = spat.relu %r1 : tensor<64xf32>
    %r3 = spat.relu %r2 : tensor<64xf32>
    %r4 = spat.relu %r3 : tensor<64xf32>
    %r5 = spat.relu %r4 : tensor<64xf32>
    %r6 = spat.relu %r5 : tensor<64xf32>
    %r7 = spat.relu %r6 : tensor<64xf32>
    spat.yield %r7 : tensor<64xf32>
  } -> tensor<64xf32>
  spat.store %c, @out[64] : tensor<64xf32>
}
