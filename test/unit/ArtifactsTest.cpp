//===- ArtifactsTest.cpp - moving a compiled program between directories --===//

#include "pimc/Target/Pimsim/Artifacts.h"

#include "TempDirTest.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace pimc;

namespace {

class ArtifactsTest : public test::TempDirTest {
protected:
  ArtifactsTest() : TempDirTest("pimc-artifacts") {}
  void write(llvm::StringRef subdir, llvm::StringRef name, llvm::StringRef text) {
    ASSERT_FALSE(llvm::sys::fs::create_directories(path(subdir)));
    std::error_code ec;
    llvm::raw_fd_ostream os(path(subdir, name), ec);
    ASSERT_FALSE(ec);
    os << text;
  }
};

// The programs of the directory moved into replace the ones it had; its
// other files stay, and the directory moved from is gone.
TEST_F(ArtifactsTest, MoveReplacesThePrograms) {
  write("from", "core_0.pim", "new");
  write("from", "report.json", "{}");
  write("to", "core_0.pim", "old");
  write("to", "core_1.pim", "old");
  write("to", "core_1.json", "old");
  write("to", "notes.txt", "mine");
  ASSERT_FALSE(static_cast<bool>(moveArtifacts(path("from"), path("to"))));
  EXPECT_FALSE(llvm::sys::fs::exists(path("from")));
  EXPECT_FALSE(llvm::sys::fs::exists(path("to", "core_1.pim")));
  EXPECT_FALSE(llvm::sys::fs::exists(path("to", "core_1.json")));
  EXPECT_TRUE(llvm::sys::fs::exists(path("to", "notes.txt")));
  EXPECT_TRUE(llvm::sys::fs::exists(path("to", "report.json")));
  auto text = llvm::MemoryBuffer::getFile(path("to", "core_0.pim"));
  ASSERT_TRUE(static_cast<bool>(text));
  EXPECT_EQ((*text)->getBuffer(), "new");
}

} // namespace
