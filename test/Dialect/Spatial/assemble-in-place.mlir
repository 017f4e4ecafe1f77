// RUN: pimc-opt %s --spat-assemble-in-place | FileCheck %s

// The message arrives before the buffer it goes into is created: the buffer
// now comes first, and each piece goes in as soon as it is there.
// CHECK-LABEL: spat.core 0 {
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: %[[R:.*]] = spat.recv from 1 channel 0
// CHECK-NEXT: %[[A:.*]] = tensor.insert_slice %[[R]] into %[[E]][4] [4] [1]
// CHECK-NEXT: %[[F:.*]] = spat.fill
// CHECK-NEXT: %[[B:.*]] = tensor.insert_slice %[[F]] into %[[A]][0] [4] [1]
// CHECK-NEXT: spat.send %[[B]] to 1 channel 1
spat.core 0 {
  %r = spat.recv from 1 channel 0 : tensor<4xf32>
  %e = tensor.empty() : tensor<8xf32>
  %f = spat.fill 0.0 : tensor<4xf32>
  %a = tensor.insert_slice %f into %e[0] [4] [1] : tensor<4xf32> into tensor<8xf32>
  %b = tensor.insert_slice %r into %a[4] [4] [1] : tensor<4xf32> into tensor<8xf32>
  spat.send %b to 1 channel 1 : tensor<8xf32>
}

// Pieces inserted through views of other shapes keep their places: the
// received row goes into row 1 of the 2x4 view.
// CHECK-LABEL: spat.core 1 {
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: %[[R:.*]] = spat.recv from 0 channel 1
// CHECK-NEXT: %[[V:.*]] = spat.reshape %[[E]] : tensor<8xf32> to tensor<2x4xf32>
// CHECK-NEXT: %[[A:.*]] = tensor.insert_slice %[[R]] into %[[V]][1, 0] [1, 4] [1, 1]
// CHECK-NEXT: %[[F:.*]] = spat.fill
// CHECK-NEXT: %[[W:.*]] = spat.reshape %[[A]] : tensor<2x4xf32> to tensor<8xf32>
// CHECK-NEXT: %[[B:.*]] = tensor.insert_slice %[[F]] into %[[W]][0] [4] [1]
// CHECK-NEXT: spat.send %[[B]] to 0 channel 0
spat.core 1 {
  %r = spat.recv from 0 channel 1 : tensor<1x4xf32>
  %e = tensor.empty() : tensor<8xf32>
  %f = spat.fill 0.0 : tensor<4xf32>
  %a = tensor.insert_slice %f into %e[0] [4] [1] : tensor<4xf32> into tensor<8xf32>
  %v = spat.reshape %a : tensor<8xf32> to tensor<2x4xf32>
  %b = tensor.insert_slice %r into %v[1, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<2x4xf32>
  %w = spat.reshape %b : tensor<2x4xf32> to tensor<8xf32>
  spat.send %w to 0 channel 0 : tensor<8xf32>
}

// Pieces that overlap (the second overwrites part of the first) must keep
// their order: the buffer is left as it is.
// CHECK-LABEL: spat.core 2 {
// CHECK-NEXT: spat.recv from 3 channel 2
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: spat.fill
// CHECK-NEXT: tensor.insert_slice %{{.*}}[0] [6] [1]
// CHECK-NEXT: tensor.insert_slice %{{.*}}[4] [4] [1]
spat.core 2 {
  %r = spat.recv from 3 channel 2 : tensor<4xf32>
  %e = tensor.empty() : tensor<8xf32>
  %f = spat.fill 0.0 : tensor<6xf32>
  %a = tensor.insert_slice %f into %e[0] [6] [1] : tensor<6xf32> into tensor<8xf32>
  %b = tensor.insert_slice %r into %a[4] [4] [1] : tensor<4xf32> into tensor<8xf32>
  spat.send %b to 3 channel 3 : tensor<8xf32>
}
spat.core 3 {
  %x = spat.fill 1.0 : tensor<4xf32>
  spat.send %x to 2 channel 2 : tensor<4xf32>
  %y = spat.recv from 2 channel 3 : tensor<8xf32>
}
