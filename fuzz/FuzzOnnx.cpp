//===- FuzzOnnx.cpp - the ONNX reader through shape inference -------------===//
//
// Input: an ONNX model file. loadModel parses, checks and shape-infers it;
// any error is fine, a crash or a sanitizer report is a finding.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "pimc/Frontend/OnnxModel.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path = pimc::fuzz::writeScratchFile(
      "model.onnx", llvm::StringRef(reinterpret_cast<const char *>(data), size));
  llvm::Expected<pimc::frontend::Model> model = pimc::frontend::loadModel(path);
  if (!model)
    llvm::consumeError(model.takeError());
  return 0;
}
