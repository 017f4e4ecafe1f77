// RUN: pimc-opt %s -split-input-file -verify-diagnostics

pim.core 0 {
  %a = tensor.empty() : tensor<128xf32>
  %o = tensor.empty() : tensor<128xf32>
  // expected-error @+1 {{group 0 is not one of the 0 array groups of core 0}}
  %m = pim.mvm %a group 0 into %o : tensor<128xf32> into tensor<128xf32> -> tensor<128xf32>
}

// -----

pim.core 0 {
  %a = pim.alloc : memref<128xf32>
  %b = pim.alloc : memref<64xf32>
  // expected-error @+1 {{operands must have the same number of elements}}
  pim.vrelu %a into %b : memref<128xf32> into memref<64xf32>
}

// -----

pim.core 0 {
  %a = tensor.empty() : tensor<128xf32>
  %b = pim.alloc : memref<128xf32>
  // expected-error @+1 {{mixes tensors and memrefs}}
  pim.vrelu %a into %b : tensor<128xf32> into memref<128xf32>
}

// -----

pim.core 0 {
  %a = pim.alloc : memref<4x8xf32>
  %v = memref.subview %a[0, 0] [4, 4] [1, 2] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 2]>>
  // expected-error @+1 {{rows must be contiguous in memory}}
  pim.recv from 1 into %v : memref<4x4xf32, strided<[8, 2]>>
}

// -----

pim.core 0 {
  %a = pim.alloc : memref<8xf32>
  %b = pim.alloc : memref<4xf32>
  // expected-error @+1 {{gathers past the end of its input}}
  pim.vmv %a stride 3 into %b : memref<8xf32> into memref<4xf32>
}

// -----

// Memory planning's hand-off to code generation is a byte count.
// expected-error @+1 {{'pim.core' op 'pim.memory_bytes' must be an integer}}
pim.core 0 attributes {pim.memory_bytes = "a lot"} {
}

// -----

// The chip the module is compiled for is a #pim.arch.
// expected-error @+1 {{'builtin.module' op 'pim.arch' must be a #pim.arch}}
module attributes {pim.arch = "chip-144"} {
  pim.core 0 {
  }
}

// -----

// expected-error @+1 {{'pim.core' op 'pim.arch' is an attribute of the module}}
pim.core 0 attributes {pim.arch = #pim.arch<name = "chip.json", json = "{}", network = "{}">} {
}

// -----

// What it carries is checked as the architecture file would be.
// expected-error @+1 {{'builtin.module' op 'pim.arch': architecture 'broken.json': not valid JSON}}
module attributes {pim.arch = #pim.arch<name = "broken.json", json = "{\"chip_config\": ", network = "{}">} {
}

// -----

// expected-error @+1 {{'builtin.module' op 'pim.arch': architecture 'dir/one-core.json': network file 'dir/net.json' has no object 'energy'}}
module attributes {pim.arch = #pim.arch<name = "dir/one-core.json", json = "{\"chip_config\": {\"network_config\": {\"layout\": [1, 1], \"net_config_file_path\": \"net.json\"}}}", network = "{\"latency\": {\"0\": {\"-10\": 15}, \"-10\": {\"0\": 15}}}">} {
}
