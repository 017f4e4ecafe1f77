// RUN: pimc-opt %s --split-input-file --onnx-plan-windows --convert-onnx-to-spatial | FileCheck %s

// A slice with unit steps is one view: rows 1..2 and columns 2..5 of [4, 10].
// CHECK-LABEL: func @slice_box
// CHECK: %[[S:.*]] = tensor.extract_slice %arg0[1, 2] [2, 4] [1, 1] : tensor<4x10xf32> to tensor<2x4xf32>
// CHECK-NOT: tensor.concat
// CHECK: return %[[S]]
func.func @slice_box(%x: tensor<4x10xf32>) -> tensor<2x4xf32> {
  %starts = onnx.Constant dense<[1, 2]> : tensor<2xi64> : tensor<2xi64>
  %ends = onnx.Constant dense<[3, 6]> : tensor<2xi64> : tensor<2xi64>
  %s = onnx.Slice %x, %starts, %ends : (tensor<4x10xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x4xf32>
  return %s : tensor<2x4xf32>
}

// -----

// Steps read runs of one position: rows 3 and 1 (start -1, end -5, step -2)
// are concatenated in that order, then columns 1, 4 and 7 (step 3) of them.
// CHECK-LABEL: func @slice_steps
// CHECK: %[[R3:.*]] = tensor.extract_slice %arg0[3, 0] [1, 10] [1, 1] : tensor<4x10xf32> to tensor<1x10xf32>
// CHECK: %[[R1:.*]] = tensor.extract_slice %arg0[1, 0] [1, 10] [1, 1] : tensor<4x10xf32> to tensor<1x10xf32>
// CHECK: %[[ROWS:.*]] = tensor.concat dim(0) %[[R3]], %[[R1]] : (tensor<1x10xf32>, tensor<1x10xf32>) -> tensor<2x10xf32>
// CHECK: %[[C1:.*]] = tensor.extract_slice %[[ROWS]][0, 1] [2, 1] [1, 1] : tensor<2x10xf32> to tensor<2x1xf32>
// CHECK: %[[C4:.*]] = tensor.extract_slice %[[ROWS]][0, 4] [2, 1] [1, 1] : tensor<2x10xf32> to tensor<2x1xf32>
// CHECK: %[[C7:.*]] = tensor.extract_slice %[[ROWS]][0, 7] [2, 1] [1, 1] : tensor<2x10xf32> to tensor<2x1xf32>
// CHECK: %[[S:.*]] = tensor.concat dim(1) %[[C1]], %[[C4]], %[[C7]] : (tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
// CHECK: return %[[S]]
func.func @slice_steps(%x: tensor<4x10xf32>) -> tensor<2x3xf32> {
  %starts = onnx.Constant dense<[-1, 1]> : tensor<2xi64> : tensor<2xi64>
  %ends = onnx.Constant dense<[-5, 8]> : tensor<2xi64> : tensor<2xi64>
  %axes = onnx.Constant dense<[0, 1]> : tensor<2xi64> : tensor<2xi64>
  %steps = onnx.Constant dense<[-2, 3]> : tensor<2xi64> : tensor<2xi64>
  %s = onnx.Slice %x, %starts, %ends axes %axes steps %steps : (tensor<4x10xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

// -----

// Each part of a split is a view of its input.
// CHECK-LABEL: func @split
// CHECK: %[[A:.*]] = tensor.extract_slice %arg0[0, 0] [4, 3] [1, 1] : tensor<4x10xf32> to tensor<4x3xf32>
// CHECK: %[[B:.*]] = tensor.extract_slice %arg0[0, 3] [4, 7] [1, 1] : tensor<4x10xf32> to tensor<4x7xf32>
// CHECK: return %[[A]], %[[B]]
func.func @split(%x: tensor<4x10xf32>) -> (tensor<4x3xf32>, tensor<4x7xf32>) {
  %lengths = onnx.Constant dense<[3, 7]> : tensor<2xi64> : tensor<2xi64>
  %a, %b = onnx.Split %x, %lengths {axis = -1 : i64} : (tensor<4x10xf32>, tensor<2xi64>) -> (tensor<4x3xf32>, tensor<4x7xf32>)
  return %a, %b : tensor<4x3xf32>, tensor<4x7xf32>
}

// -----

// A computed tensor broadcast along the rows' own dimension is read through
// a view repeating its column: one lane per row reads the row of the view.
// CHECK-LABEL: func @broadcast_computed
// CHECK: %[[REPEATED:.*]] = tensor.concat dim(1) %arg1, %arg1, %arg1 : (tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
// CHECK: spat.compute_batch lanes(2) lane(%arg0, %[[REPEATED]] : tensor<2x3xf32>, tensor<2x3xf32>){{.*}} {
// CHECK: spat.add
func.func @broadcast_computed(%x: tensor<2x3xf32>, %y: tensor<2x1xf32>) -> tensor<2x3xf32> {
  %a = onnx.Add %x, %y : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %a : tensor<2x3xf32>
}
