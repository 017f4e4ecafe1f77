//===- ExitCodes.cpp - what went wrong, as pimc's exit status -------------===//

#include "pimc/Support/ExitCodes.h"

using namespace pimc;

namespace {
class ErrorKindCategory : public std::error_category {
public:
  const char *name() const noexcept override { return "pimc"; }
  std::string message(int value) const override {
    switch (static_cast<ErrorKind>(value)) {
    case ErrorKind::CheckFailed:
      return "check failed";
    case ErrorKind::Usage:
      return "usage error";
    case ErrorKind::InvalidInput:
      return "unreadable or invalid input";
    case ErrorKind::UnsupportedModel:
      return "unsupported model";
    case ErrorKind::DoesNotFit:
      return "does not fit the chip";
    case ErrorKind::Internal:
      return "internal error";
    }
    return "unknown pimc error";
  }
};
} // namespace

const std::error_category &pimc::errorKindCategory() {
  static const ErrorKindCategory category;
  return category;
}

std::error_code pimc::make_error_code(ErrorKind kind) {
  return {static_cast<int>(kind), errorKindCategory()};
}

llvm::Error pimc::makeError(ErrorKind kind, const llvm::Twine &message) {
  return llvm::createStringError(make_error_code(kind), message);
}

std::pair<ErrorKind, std::string> pimc::describeError(llvm::Error error,
                                                      ErrorKind fallback) {
  std::optional<ErrorKind> own;
  std::string message;
  llvm::handleAllErrors(std::move(error), [&](const llvm::ErrorInfoBase &info) {
    std::error_code code = info.convertToErrorCode();
    if (!own && code.category() == errorKindCategory())
      own = static_cast<ErrorKind>(code.value());
    message += (message.empty() ? "" : "\n") + info.message();
  });
  return {own.value_or(fallback), message};
}

llvm::Error pimc::withKind(llvm::Error error, ErrorKind kind) {
  if (!error)
    return error;
  auto [own, message] = describeError(std::move(error), kind);
  return makeError(own, message);
}
