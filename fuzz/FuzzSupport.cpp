//===- FuzzSupport.cpp - what the fuzz targets share ----------------------===//

#include "FuzzSupport.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

const std::string &pimc::fuzz::scratchDirectory() {
  static const std::string directory = [] {
    llvm::SmallString<128> path;
    if (llvm::sys::fs::createUniqueDirectory("pimc-fuzz", path))
      llvm::report_fatal_error("cannot create the fuzzer's scratch directory");
    return path.str().str();
  }();
  return directory;
}

std::string pimc::fuzz::writeScratchFile(llvm::StringRef name, llvm::StringRef data) {
  llvm::SmallString<256> path(scratchDirectory());
  llvm::sys::path::append(path, name);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    llvm::report_fatal_error("cannot write the fuzzer's input");
  os << data;
  os.close();
  if (os.has_error())
    llvm::report_fatal_error("cannot write the fuzzer's input");
  return path.str().str();
}
