//===- FuzzArtifacts.cpp - the functional simulator's program loader ------===//
//
// Input: the files of a program directory, each as a name byte (an index
// into kFiles), a 4-byte little-endian length and the contents (see
// make_corpus.py). The program is loaded and run for a bounded number of
// instructions on zero inputs.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "pimc/Simulator/Simulator.h"
#include "pimc/Target/Pimsim/Artifacts.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

static const char *const kFiles[] = {"manifest.json", "config.json", "weights.bin",
                                     "gmem.bin",      "core_0.pim",  "core_1.pim",
                                     "core_2.pim",    "core_3.pim"};
constexpr size_t kFileCount = sizeof(kFiles) / sizeof(kFiles[0]);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &directory = pimc::fuzz::scratchDirectory();
  for (const char *name : kFiles) {
    llvm::SmallString<256> path(directory);
    llvm::sys::path::append(path, name);
    llvm::sys::fs::remove(path);
  }
  size_t at = 0;
  while (at + 5 <= size) {
    size_t file = data[at] % kFileCount;
    uint32_t length = data[at + 1] | data[at + 2] << 8 | data[at + 3] << 16 |
                      uint32_t(data[at + 4]) << 24;
    at += 5;
    length = std::min<size_t>(length, size - at);
    pimc::fuzz::writeScratchFile(
        kFiles[file], llvm::StringRef(reinterpret_cast<const char *>(data + at), length));
    at += length;
  }
  llvm::Expected<pimc::Manifest> manifest = pimc::Manifest::read(directory);
  if (!manifest) {
    llvm::consumeError(manifest.takeError());
    return 0;
  }
  std::vector<pimc::frontend::TensorData> inputs;
  for (const pimc::TensorLocation &where : manifest->inputs) {
    // Large inputs are the manifest's to bound, not this target's to fill.
    if (where.numElements() > (1 << 20))
      return 0;
    pimc::frontend::TensorData tensor;
    tensor.dims = where.shape;
    tensor.setFloats(std::vector<float>(where.numElements(), 0.0f));
    inputs.push_back(std::move(tensor));
  }
  llvm::Expected<pimc::sim::Result> result =
      pimc::sim::simulate(directory, inputs, {/*maxInstructions=*/100000});
  if (!result)
    llvm::consumeError(result.takeError());
  return 0;
}
