//===- TempDirTest.h - a test fixture with a directory of its own -*- C++ -*-===//
//
// Each test gets a fresh directory, removed when it ends.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_TEST_UNIT_TEMPDIRTEST_H
#define PIMC_TEST_UNIT_TEMPDIRTEST_H

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <string>

namespace pimc::test {

class TempDirTest : public ::testing::Test {
protected:
  explicit TempDirTest(llvm::StringRef prefix) : prefix(prefix.str()) {}
  void SetUp() override {
    llvm::SmallString<256> created;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory(prefix, created));
    dir = created.str().str();
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }
  /// `name` (and `file` in it) inside the test's directory.
  std::string path(llvm::StringRef name, llvm::StringRef file = "") const {
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, name);
    if (!file.empty())
      llvm::sys::path::append(p, file);
    return p.str().str();
  }
  std::string dir;

private:
  std::string prefix;
};

} // namespace pimc::test

#endif // PIMC_TEST_UNIT_TEMPDIRTEST_H
