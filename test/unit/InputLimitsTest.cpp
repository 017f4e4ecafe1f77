//===- InputLimitsTest.cpp - checks on what pimc reads --------------------===//

#include "pimc/Support/InputLimits.h"

#include "TempDirTest.h"

#include "gtest/gtest.h"

#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

using namespace pimc;

namespace {

TEST(InputLimits, ProductsAreBoundedWithoutWrapping) {
  EXPECT_EQ(boundedProduct({2, 3, 4}), 24);
  EXPECT_EQ(boundedProduct({}), 1);
  EXPECT_EQ(boundedProduct({0, 5}), 0);
  EXPECT_FALSE(boundedProduct({-1, 5}));
  // 2^32 x 2^32 is 0 modulo 2^64.
  EXPECT_FALSE(boundedProduct({int64_t(1) << 32, int64_t(1) << 32}));
  EXPECT_FALSE(boundedProduct({kMaxTensorElements + 1}));
  EXPECT_EQ(boundedProduct({kMaxTensorElements}), kMaxTensorElements);
  EXPECT_FALSE(boundedProduct({int64_t(1) << 62, 4, 0}));
}

TEST(InputLimits, DeepJsonIsRefusedBeforeParsing) {
  std::string deep(kMaxJsonDepth + 1, '[');
  deep += std::string(kMaxJsonDepth + 1, ']');
  llvm::Expected<llvm::json::Value> tooDeep = parseJsonWithinDepth(deep);
  ASSERT_FALSE(static_cast<bool>(tooDeep));
  EXPECT_NE(llvm::toString(tooDeep.takeError()).find("nested more than 256 levels deep"),
            std::string::npos);
  std::string fits = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(static_cast<bool>(parseJsonWithinDepth(fits)));
  // Brackets inside strings do not nest.
  std::string quoted = "[\"" + std::string(1000, '[') + "\\\"\"]";
  llvm::Expected<llvm::json::Value> text = parseJsonWithinDepth(quoted);
  EXPECT_TRUE(static_cast<bool>(text)) << llvm::toString(text.takeError());
}

class RegularFileTest : public test::TempDirTest {
protected:
  RegularFileTest() : TempDirTest("pimc-input-limits") {}
};

TEST_F(RegularFileTest, OnlyRegularFilesAreRead) {
  ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
  llvm::Error fifo = checkRegularFile(path("fifo"));
  ASSERT_TRUE(static_cast<bool>(fifo));
  EXPECT_NE(llvm::toString(std::move(fifo)).find("not a regular file"), std::string::npos);
  llvm::Error directory = checkRegularFile(dir);
  EXPECT_TRUE(static_cast<bool>(directory));
  llvm::consumeError(std::move(directory));
  llvm::Error missing = checkRegularFile(path("missing"));
  ASSERT_TRUE(static_cast<bool>(missing));
  EXPECT_NE(llvm::toString(std::move(missing)).find("No such file"), std::string::npos);
}

TEST_F(RegularFileTest, FilesLargerThanTheirBoundAreNotRead) {
  {
    std::ofstream file(path("ten"));
    file << "0123456789";
  }
  EXPECT_TRUE(static_cast<bool>(readRegularFile(path("ten"), true, 10)));
  auto tooLarge = readRegularFile(path("ten"), true, 9);
  ASSERT_FALSE(static_cast<bool>(tooLarge));
  EXPECT_NE(llvm::toString(tooLarge.takeError())
                .find("it has 10 bytes, more than the 9 such a file may have"),
            std::string::npos);
}

TEST_F(RegularFileTest, LinksOutOfTheDirectoryAreRefused) {
  ASSERT_EQ(mkdir(path("inside").c_str(), 0700), 0);
  { std::ofstream(path("inside/file")) << "x"; }
  { std::ofstream(path("outside")) << "x"; }
  ASSERT_EQ(symlink("file", path("inside/near").c_str()), 0);
  ASSERT_EQ(symlink("../outside", path("inside/far").c_str()), 0);
  llvm::Expected<std::string> near = realPathInside(path("inside/near"), path("inside"));
  ASSERT_TRUE(static_cast<bool>(near)) << llvm::toString(near.takeError());
  EXPECT_EQ(llvm::sys::path::filename(*near), "file");
  llvm::Expected<std::string> far = realPathInside(path("inside/far"), path("inside"));
  ASSERT_FALSE(static_cast<bool>(far));
  EXPECT_NE(llvm::toString(far.takeError()).find("is a link out of its directory"),
            std::string::npos);
  // A sibling directory whose name begins with the directory's is outside.
  ASSERT_EQ(mkdir(path("inside2").c_str(), 0700), 0);
  { std::ofstream(path("inside2/file")) << "x"; }
  ASSERT_EQ(symlink("../inside2/file", path("inside/prefix").c_str()), 0);
  llvm::Expected<std::string> prefix = realPathInside(path("inside/prefix"), path("inside"));
  EXPECT_FALSE(static_cast<bool>(prefix));
  llvm::consumeError(prefix.takeError());
}

} // namespace
