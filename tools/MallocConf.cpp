//===- MallocConf.cpp - jemalloc's settings for pimc's tools ---------------===//
//
// Linked into the tools when they use jemalloc, which reads this at start.
// A compile allocates and frees its IR and its models' weights in large
// blocks: on transparent huge pages they take a fault and a TLB entry each
// 2 MiB rather than each 4 KiB.
//
//===----------------------------------------------------------------------===//

extern "C" {
// Read by jemalloc by this name; unused by the tools themselves.
__attribute__((used)) const char *malloc_conf = "thp:always,metadata_thp:auto";
}
