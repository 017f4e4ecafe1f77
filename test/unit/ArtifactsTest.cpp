//===- ArtifactsTest.cpp - moving a compiled program between directories --===//

#include "pimc/Target/Pimsim/Artifacts.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace pimc;

namespace {

class ArtifactsTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<256> path;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("pimc-artifacts", path));
    root = path.str().str();
  }
  void TearDown() override { llvm::sys::fs::remove_directories(root); }
  std::string at(llvm::StringRef dir, llvm::StringRef name = "") const {
    llvm::SmallString<256> p(root);
    llvm::sys::path::append(p, dir, name);
    return p.str().str();
  }
  void write(llvm::StringRef dir, llvm::StringRef name, llvm::StringRef text) {
    ASSERT_FALSE(llvm::sys::fs::create_directories(at(dir)));
    std::error_code ec;
    llvm::raw_fd_ostream os(at(dir, name), ec);
    ASSERT_FALSE(ec);
    os << text;
  }
  std::string root;
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
  ASSERT_FALSE(static_cast<bool>(moveArtifacts(at("from"), at("to"))));
  EXPECT_FALSE(llvm::sys::fs::exists(at("from")));
  EXPECT_FALSE(llvm::sys::fs::exists(at("to", "core_1.pim")));
  EXPECT_FALSE(llvm::sys::fs::exists(at("to", "core_1.json")));
  EXPECT_TRUE(llvm::sys::fs::exists(at("to", "notes.txt")));
  EXPECT_TRUE(llvm::sys::fs::exists(at("to", "report.json")));
  auto text = llvm::MemoryBuffer::getFile(at("to", "core_0.pim"));
  ASSERT_TRUE(static_cast<bool>(text));
  EXPECT_EQ((*text)->getBuffer(), "new");
}

} // namespace
