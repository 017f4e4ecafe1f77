// RUN: pimc-opt %s --spat-order-communication | FileCheck %s

// Core 0 waits for core 1's long compute before any of its own five can
// run. The fills that assemble their inputs are ready at once, but only
// those of its next four computes run ahead: a fill's buffer lives from
// then on, and running them all ahead would fill the core's memory.
// CHECK-LABEL: spat.core 0 {
// CHECK-COUNT-4: spat.fill
// CHECK-NOT: spat.fill
// CHECK: spat.compute
// CHECK: spat.fill
spat.global output @out {index = 0 : i64, io_name = "y"} : tensor<320xf32>

spat.core 0 {
  %f0 = spat.fill 1.0 : tensor<64xf32>
  %x0 = spat.recv from 1 channel 0 : tensor<64xf32>
  %c0 = spat.compute(%f0, %x0 : tensor<64xf32>, tensor<64xf32>) attributes {spat.start = 1000.0 : f64, spat.finish = 1100.0 : f64} {
  ^bb0(%a: tensor<64xf32>, %b: tensor<64xf32>):
    %r = spat.add %a, %b : tensor<64xf32>
    spat.yield %r : tensor<64xf32>
  } -> tensor<64xf32>
  spat.store %c0, @out[0] : tensor<64xf32>
  %f1 = spat.fill 1.0 : tensor<64xf32>
  %x1 = spat.recv from 1 channel 1 : tensor<64xf32>
  %c1 = spat.compute(%f1, %x1 : tensor<64xf32>, tensor<64xf32>) attributes {spat.start = 1100.0 : f64, spat.finish = 1200.0 : f64} {
  ^bb0(%a: tensor<64xf32>, %b: tensor<64xf32>):
    %r = spat.add %a, %b : tensor<64xf32>
    spat.yield %r : tensor<64xf32>
  } -> tensor<64xf32>
  spat.store %c1, @out[64] : tensor<64xf32>
  %f2 = spat.fill 1.0 : tensor<64xf32>
  %x2 = spat.recv from 1 channel 2 : tensor<64xf32>
  %c2 = spat.compute(%f2, %x2 : tensor<64xf32>, tensor<64xf32>) attributes {spat.start = 1200.0 : f64, spat.finish = 1300.0 : f64} {
  ^bb0(%a: tensor<64xf32>, %b: tensor<64xf32>):
    %r = spat.add %a, %b : tensor<64xf32>
    spat.yield %r : tensor<64xf32>
  } -> tensor<64xf32>
  spat.store %c2, @out[128] : tensor<64xf32>
  %f3 = spat.fill 1.0 : tensor<64xf32>
  %x3 = spat.recv from 1 channel 3 : tensor<64xf32>
  %c3 = spat.compute(%f3, %x3 : tensor<64xf32>, tensor<64xf32>) attributes {spat.start = 1300.0 : f64, spat.finish = 1400.0 : f64} {
  ^bb0(%a: tensor<64xf32>, %b: tensor<64xf32>):
    %r = spat.add %a, %b : tensor<64xf32>
    spat.yield %r : tensor<64xf32>
  } -> tensor<64xf32>
  spat.store %c3, @out[192] : tensor<64xf32>
  %f4 = spat.fill 1.0 : tensor<64xf32>
  %x4 = spat.recv from 1 channel 4 : tensor<64xf32>
  %c4 = spat.compute(%f4, %x4 : tensor<64xf32>, tensor<64xf32>) attributes {spat.start = 1400.0 : f64, spat.finish = 1500.0 : f64} {
  ^bb0(%a: tensor<64xf32>, %b: tensor<64xf32>):
    %r = spat.add %a, %b : tensor<64xf32>
    spat.yield %r : tensor<64xf32>
  } -> tensor<64xf32>
  spat.store %c4, @out[256] : tensor<64xf32>
}
spat.core 1 {
  %s = spat.fill 1.0 : tensor<64xf32>
  %y = spat.compute(%s : tensor<64xf32>) attributes {spat.start = 0.0 : f64, spat.finish = 1000.0 : f64} {
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
  spat.send %y to 0 channel 0 : tensor<64xf32>
  spat.send %y to 0 channel 1 : tensor<64xf32>
  spat.send %y to 0 channel 2 : tensor<64xf32>
  spat.send %y to 0 channel 3 : tensor<64xf32>
  spat.send %y to 0 channel 4 : tensor<64xf32>
}
