// RUN: pimc-opt %s --spat-order-communication | FileCheck %s

// Core 0 has two computes ready at once, each feeding a long chain on
// another core. The schedule starts A at 0 and B at 1000 ns, but B's chain
// is the longer: B has no slack, A about 600 ns. Halfway between the
// schedule's time and the latest start, A comes first (about 300 against 500 ns);
// 0.7 of the way to the latest start, B does (420 against 320), and that
// order's simulation ends first, B's chain starting sooner: it is kept.
// CHECK-LABEL: spat.core 0 {
// CHECK: %[[B:.*]] = spat.compute{{.*}}spat.start = 1.000000e+03
// CHECK: spat.send %[[B]] to 1 channel 0
// CHECK: %[[A:.*]] = spat.compute{{.*}}spat.start = 0.000000e+00
// CHECK: spat.send %[[A]] to 2 channel 1
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
  %b = spat.compute(%s : tensor<64xf32>) attributes {spat.start = 1000.0 : f64, spat.finish = 1100.0 : f64} {
  ^bb0(%v: tensor<64xf32>):
    %r = spat.relu %v : tensor<64xf32>
    spat.yield %r : tensor<64xf32>
  } -> tensor<64xf32>
  spat.send %b to 1 channel 0 : tensor<64xf32>
  spat.send %a to 2 channel 1 : tensor<64xf32>
}
spat.core 1 {
  %x = spat.recv from 0 channel 0 : tensor<64xf32>
  %c = spat.compute(%x : tensor<64xf32>) attributes {spat.start = 1200.0 : f64, spat.finish = 6000.0 : f64} {
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
    %r48 = spat.relu %r47 : tensor<64xf32>
    %r49 = spat.relu %r48 : tensor<64xf32>
    %r50 = spat.relu %r49 : tensor<64xf32>
    %r51 = spat.relu %r50 : tensor<64xf32>
    %r52 = spat.relu %r51 : tensor<64xf32>
    %r53 = spat.relu %r52 : tensor<64xf32>
    %r54 = spat.relu %r53 : tensor<64xf32>
    %r55 = spat.relu %r54 : tensor<64xf32>
    %r56 = spat.relu %r55 : tensor<64xf32>
    %r57 = spat.relu %r56 : tensor<64xf32>
    %r58 = spat.relu %r57 : tensor<64xf32>
    %r59 = spat.relu %r58 : tensor<64xf32>
    %r60 = spat.relu %r59 : tensor<64xf32>
    %r61 = spat.relu %r60 : tensor<64xf32>
    %r62 = spat.relu %r61 : tensor<64xf32>
    %r63 = spat.relu %r62 : tensor<64xf32>
    %r64 = spat.relu %r63 : tensor<64xf32>
    %r65 = spat.relu %r64 : tensor<64xf32>
    %r66 = spat.relu %r65 : tensor<64xf32>
    %r67 = spat.relu %r66 : tensor<64xf32>
    %r68 = spat.relu %r67 : tensor<64xf32>
    %r69 = spat.relu %r68 : tensor<64xf32>
    %r70 = spat.relu %r69 : tensor<64xf32>
    %r71 = spat.relu %r70 : tensor<64xf32>
    %r72 = spat.relu %r71 : tensor<64xf32>
    %r73 = spat.relu %r72 : tensor<64xf32>
    %r74 = spat.relu %r73 : tensor<64xf32>
    %r75 = spat.relu %r74 : tensor<64xf32>
    %r76 = spat.relu %r75 : tensor<64xf32>
    %r77 = spat.relu %r76 : tensor<64xf32>
    %r78 = spat.relu %r77 : tensor<64xf32>
    %r79 = spat.relu %r78 : tensor<64xf32>
    spat.yield %r79 : tensor<64xf32>
  } -> tensor<64xf32>
  spat.store %c, @out[0] : tensor<64xf32>
}
spat.core 2 {
  %x = spat.recv from 0 channel 1 : tensor<64xf32>
  %c = spat.compute(%x : tensor<64xf32>) attributes {spat.start = 200.0 : f64, spat.finish = 4500.0 : f64} {
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
    %r48 = spat.relu %r47 : tensor<64xf32>
    %r49 = spat.relu %r48 : tensor<64xf32>
    %r50 = spat.relu %r49 : tensor<64xf32>
    %r51 = spat.relu %r50 : tensor<64xf32>
    %r52 = spat.relu %r51 : tensor<64xf32>
    %r53 = spat.relu %r52 : tensor<64xf32>
    %r54 = spat.relu %r53 : tensor<64xf32>
    %r55 = spat.relu %r54 : tensor<64xf32>
    %r56 = spat.relu %r55 : tensor<64xf32>
    %r57 = spat.relu %r56 : tensor<64xf32>
    %r58 = spat.relu %r57 : tensor<64xf32>
    %r59 = spat.relu %r58 : tensor<64xf32>
    %r60 = spat.relu %r59 : tensor<64xf32>
    %r61 = spat.relu %r60 : tensor<64xf32>
    %r62 = spat.relu %r61 : tensor<64xf32>
    %r63 = spat.relu %r62 : tensor<64xf32>
    %r64 = spat.relu %r63 : tensor<64xf32>
    %r65 = spat.relu %r64 : tensor<64xf32>
    %r66 = spat.relu %r65 : tensor<64xf32>
    %r67 = spat.relu %r66 : tensor<64xf32>
    %r68 = spat.relu %r67 : tensor<64xf32>
    %r69 = spat.relu %r68 : tensor<64xf32>
    spat.yield %r69 : tensor<64xf32>
  } -> tensor<64xf32>
  spat.store %c, @out[64] : tensor<64xf32>
}
