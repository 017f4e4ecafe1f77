//===- ExitCodesTest.cpp - errors that carry pimc's exit status ----------===//

#include "pimc/Support/ExitCodes.h"

#include "gtest/gtest.h"

using namespace pimc;

namespace {

TEST(ExitCodes, AnErrorKeepsItsKind) {
  auto [kind, message] = describeError(makeError(ErrorKind::DoesNotFit, "too big"),
                                       ErrorKind::Internal);
  EXPECT_EQ(kind, ErrorKind::DoesNotFit);
  EXPECT_EQ(static_cast<int>(kind), 5);
  EXPECT_EQ(message, "too big");
}

TEST(ExitCodes, AnErrorOfNoKindGetsTheFallback) {
  auto [kind, message] = describeError(
      llvm::createStringError(llvm::inconvertibleErrorCode(), "cannot read"),
      ErrorKind::InvalidInput);
  EXPECT_EQ(kind, ErrorKind::InvalidInput);
  EXPECT_EQ(message, "cannot read");
  // A system error is of no kind of pimc's either.
  EXPECT_EQ(describeError(llvm::errorCodeToError(
                              std::make_error_code(std::errc::no_such_file_or_directory)),
                          ErrorKind::Usage)
                .first,
            ErrorKind::Usage);
}

TEST(ExitCodes, WithKindDoesNotOverrideAKind) {
  llvm::Error kept = withKind(makeError(ErrorKind::UnsupportedModel, "Softmax"),
                              ErrorKind::InvalidInput);
  EXPECT_EQ(describeError(std::move(kept), ErrorKind::Internal).first,
            ErrorKind::UnsupportedModel);
  llvm::Error given = withKind(llvm::createStringError(llvm::inconvertibleErrorCode(), "x"),
                               ErrorKind::InvalidInput);
  EXPECT_EQ(describeError(std::move(given), ErrorKind::Internal).first,
            ErrorKind::InvalidInput);
  EXPECT_FALSE(static_cast<bool>(withKind(llvm::Error::success(), ErrorKind::Internal)));
}

// Of several errors, the first with a kind decides, and every message is told.
TEST(ExitCodes, JoinedErrorsTakeTheFirstKind) {
  llvm::Error both = llvm::joinErrors(
      llvm::createStringError(llvm::inconvertibleErrorCode(), "first"),
      makeError(ErrorKind::DoesNotFit, "second"));
  auto [kind, message] = describeError(std::move(both), ErrorKind::Internal);
  EXPECT_EQ(kind, ErrorKind::DoesNotFit);
  EXPECT_EQ(message, "first\nsecond");
}

TEST(ExitCodes, TheCategoryNamesEachKind) {
  EXPECT_EQ(make_error_code(ErrorKind::Usage).message(), "usage error");
  EXPECT_EQ(std::error_code(ErrorKind::Internal).value(), 6);
  EXPECT_STREQ(errorKindCategory().name(), "pimc");
}

} // namespace
