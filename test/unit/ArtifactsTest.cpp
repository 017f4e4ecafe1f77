//===- ArtifactsTest.cpp - moving a compiled program between directories --===//

#include "pimc/Target/Pimsim/Artifacts.h"

#include "TempDirTest.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <sys/wait.h>
#include <unistd.h>

using namespace pimc;

namespace {

class ArtifactsTest : public test::TempDirTest {
protected:
  ArtifactsTest() : TempDirTest("pimc-artifacts") {}
  void write(llvm::StringRef subdir, llvm::StringRef name, llvm::StringRef text) {
    ASSERT_FALSE(llvm::sys::fs::create_directories(path(subdir)));
    writeAt(path(subdir, name), text);
  }
  static void writeAt(llvm::StringRef file, llvm::StringRef text) {
    std::error_code ec;
    llvm::raw_fd_ostream os(file, ec);
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

// A compile into a directory: its files move in when committed, the files
// the earlier compile's manifest lists and this one does not write go, and
// every other file stays.
TEST_F(ArtifactsTest, CommitReplacesOnlyTheEarlierCompilesFiles) {
  write("out", "manifest.json",
        R"({"format": "pimc-artifacts", "files": ["manifest.json", "core_0.pim", "core_1.pim"]})");
  write("out", "core_0.pim", "old");
  write("out", "core_1.pim", "old");
  write("out", "core_7.pim", "mine");
  llvm::Expected<std::unique_ptr<OutputDirectory>> out = OutputDirectory::open(path("out"));
  ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
  std::string staging = (*out)->staging().str();
  writeAt(join(staging, "core_0.pim"), "new");
  writeAt(join(staging, "manifest.json"), R"({"format": "pimc-artifacts"})");
  writeAt(join(staging, "report.json"), "{}");
  llvm::Error committed = (*out)->commit();
  ASSERT_FALSE(static_cast<bool>(committed)) << llvm::toString(std::move(committed));
  out->reset();
  EXPECT_FALSE(llvm::sys::fs::exists(staging));
  EXPECT_FALSE(llvm::sys::fs::exists(path("out", "core_1.pim")));
  auto text = llvm::MemoryBuffer::getFile(path("out", "core_0.pim"));
  ASSERT_TRUE(static_cast<bool>(text));
  EXPECT_EQ((*text)->getBuffer(), "new");
  text = llvm::MemoryBuffer::getFile(path("out", "core_7.pim"));
  ASSERT_TRUE(static_cast<bool>(text));
  EXPECT_EQ((*text)->getBuffer(), "mine");
  // The manifest lists what this compile wrote, for the next one.
  text = llvm::MemoryBuffer::getFile(path("out", "manifest.json"));
  ASSERT_TRUE(static_cast<bool>(text));
  EXPECT_NE((*text)->getBuffer().find(R"("report.json")"), llvm::StringRef::npos);
}

// A file of the same name that no pimc compile wrote is an error, and
// nothing is moved.
TEST_F(ArtifactsTest, CommitRefusesToReplaceAUsersFile) {
  write("out", "config.json", "mine");
  llvm::Expected<std::unique_ptr<OutputDirectory>> out = OutputDirectory::open(path("out"));
  ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
  writeAt(join((*out)->staging(), "config.json"), "{}");
  writeAt(join((*out)->staging(), "core_0.pim"), "new");
  llvm::Error committed = (*out)->commit();
  ASSERT_TRUE(static_cast<bool>(committed));
  EXPECT_NE(llvm::toString(std::move(committed)).find("is not a file of an earlier pimc compile"),
            std::string::npos);
  EXPECT_FALSE(llvm::sys::fs::exists(path("out", "core_0.pim")));
}

// One compile at a time: a second open of the directory is refused while
// the first holds it.
TEST_F(ArtifactsTest, SecondOpenIsRefused) {
  llvm::Expected<std::unique_ptr<OutputDirectory>> first = OutputDirectory::open(path("out"));
  ASSERT_TRUE(static_cast<bool>(first)) << llvm::toString(first.takeError());
  // fcntl locks are per process: the second open is from a child.
  pid_t child = fork();
  if (child == 0) {
    llvm::Expected<std::unique_ptr<OutputDirectory>> second = OutputDirectory::open(path("out"));
    bool refused = !second && llvm::toString(second.takeError()).find("another pimc compile") !=
                                  std::string::npos;
    _exit(refused ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

} // namespace
