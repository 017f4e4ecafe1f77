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

// -----

// Core 1 is busy with b when x is ready, for less than a quarter of L. x
// feeds core 1's long compute c, so it is more urgent than L: core 0 waits
// for core 1 and sends x before L, rather than make core 1 wait for all of
// L.
// CHECK-LABEL: spat.core 0 {
// CHECK: %[[X:.*]] = spat.compute{{.*}}spat.finish = 1.000000e+01
// CHECK: spat.send %[[X]] to 1 channel 0
// CHECK: spat.compute{{.*}}spat.finish = 5.000000e+02
spat.global output @out {index = 0 : i64, io_name = "y"} : tensor<128xf32>

spat.core 0 {
  %s = spat.fill 1.0 : tensor<64xf32>
  // x
  %x = spat.compute(%s : tensor<64xf32>) attributes {spat.start = 0.0 : f64, spat.finish = 10.0 : f64} {
  ^bb0(%v: tensor<64xf32>):
    %r = spat.relu %v : tensor<64xf32>
    spat.yield %r : tensor<64xf32>
  } -> tensor<64xf32>
  spat.send %x to 1 channel 0 : tensor<64xf32>
  // L
  %l = spat.compute(%s : tensor<64xf32>) attributes {spat.start = 10.0 : f64, spat.finish = 500.0 : f64} {
  ^bb0(%v: tensor<64xf32>):
    %r0 = spat.relu %v : tensor<64xf32>
    %r1 = spat.relu %r0 : tensor<64xf32>
    %r2 = spat.relu %r1 : tensor<64xf32>
    %r3 = spat.relu %r2 : tensor<64xf32>
    %r4 = spat.relu %r3 : tensor<64xf32>
    %r5 = spat.relu %r4 : tensor<64xf32>
    %r6 = spat.relu %r5 : tensor<64xf32>
    %r7 = spat.relu %r6 : tensor<64xf32>
    %r8 = spat.relu %r7 : tensor<64xf32>
    %r9 = spat.relu %r8 : tensor<64xf32>
    %r10 = spat.relu %r9 : tensor<64xf32>
    %r11 = spat.relu %r10 : tensor<64xf32>
    %r12 = spat.relu %r11 : tensor<64xf32>
    %r13 = spat.relu %r12 : tensor<64xf32>
    %r14 = spat.relu %r13 : tensor<64xf32>
    %r15 = spat.relu %r14 : tensor<64xf32>
    spat.yield %r15 : tensor<64xf32>
  } -> tensor<64xf32>
  spat.store %l, @out[64] : tensor<64xf32>
}
spat.core 1 {
  %t = spat.fill 1.0 : tensor<64xf32>
  // b
  %b = spat.compute(%t : tensor<64xf32>) attributes {spat.start = 0.0 : f64, spat.finish = 20.0 : f64} {
  ^bb0(%v: tensor<64xf32>):
    %r0 = spat.relu %v : tensor<64xf32>
    %r1 = spat.relu %r0 : tensor<64xf32>
    spat.yield %r1 : tensor<64xf32>
  } -> tensor<64xf32>
  %x = spat.recv from 0 channel 0 : tensor<64xf32>
  // c
  %c = spat.compute(%x, %b : tensor<64xf32>, tensor<64xf32>) attributes {spat.start = 30.0 : f64, spat.finish = 1000.0 : f64} {
  ^bb0(%v: tensor<64xf32>, %w: tensor<64xf32>):
    %r0 = spat.relu %v : tensor<64xf32>
    %r1 = spat.relu %r0 : tensor<64xf32>
    %r2 = spat.relu %r1 : tensor<64xf32>
    %r3 = spat.relu %r2 : tensor<64xf32>
    %r4 = spat.relu %r3 : tensor<64xf32>
    %r5 = spat.relu %r4 : tensor<64xf32>
    %r6 = spat.relu %r5 : tensor<64xf32>
    %r7 = spat.relu %r6 : tensor<64xf32>
    %r8 = spat.relu %r7 : tensor<64xf32>
    %r9 = spat.relu %r8 : tensor<64xf32>
    %r10 = spat.relu %r9 : tensor<64xf32>
    %r11 = spat.relu %r10 : tensor<64xf32>
    %r12 = spat.relu %r11 : tensor<64xf32>
    %r13 = spat.relu %r12 : tensor<64xf32>
    %r14 = spat.relu %r13 : tensor<64xf32>
    %r15 = spat.relu %r14 : tensor<64xf32>
    %r16 = spat.relu %r15 : tensor<64xf32>
    %r17 = spat.relu %r16 : tensor<64xf32>
    %r18 = spat.relu %r17 : tensor<64xf32>
    %r19 = spat.relu %r18 : tensor<64xf32>
    %r20 = spat.relu %r19 : tensor<64xf32>
    %r21 = spat.relu %r20 : tensor<64xf32>
    %r22 = spat.relu %r21 : tensor<64xf32>
    %r23 = spat.relu %r22 : tensor<64xf32>
    %r24 = spat.relu %r23 : tensor<64xf32>
    %r25 = spat.relu %r24 : tensor<64xf32>
    %r26 = spat.relu %r25 : tensor<64xf32>
    %r27 = spat.relu %r26 : tensor<64xf32>
    %r28 = spat.relu %r27 : tensor<64xf32>
    %r29 = spat.relu %r28 : tensor<64xf32>
    %r30 = spat.relu %r29 : tensor<64xf32>
    %r31 = spat.relu %r30 : tensor<64xf32>
    %r32 = spat.relu %r31 : tensor<64xf32>
    %r33 = spat.relu %r32 : tensor<64xf32>
    %r34 = spat.relu %r33 : tensor<64xf32>
    %r35 = spat.relu %r34 : tensor<64xf32>
    %r36 = spat.relu %r35 : tensor<64xf32>
    %r37 = spat.relu %r36 : tensor<64xf32>
    %r38 = spat.relu %r37 : tensor<64xf32>
    %r39 = spat.relu %r38 : tensor<64xf32>
    %r40 = spat.relu %r39 : tensor<64xf32>
    %r41 = spat.relu %r40 : tensor<64xf32>
    %r42 = spat.relu %r41 : tensor<64xf32>
    %r43 = spat.relu %r42 : tensor<64xf32>
    %r44 = spat.relu %r43 : tensor<64xf32>
    %r45 = spat.relu %r44 : tensor<64xf32>
    %r46 = spat.relu %r45 : tensor<64xf32>
    %r47 = spat.relu %r46 : tensor<64xf32>
    %o = spat.add %r47, %w : tensor<64xf32>
    spat.yield %o : tensor<64xf32>
  } -> tensor<64xf32>
  spat.store %c, @out[0] : tensor<64xf32>
}
