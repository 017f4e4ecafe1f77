//===- ExitCodes.h - what went wrong, as pimc's exit status -----*- C++ -*-===//
//
// Errors carry one of these kinds as their std::error_code, so that the
// command line tells a script which it was (docs/exit-codes.md) without
// reading the message. An error with none of pimc's kinds gets the kind the
// code that reports it expects.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_SUPPORT_EXITCODES_H
#define PIMC_SUPPORT_EXITCODES_H

#include "llvm/Support/Error.h"

#include <string>
#include <system_error>

namespace pimc {

/// The exit status of each kind of failure (0 is success).
enum class ErrorKind {
  CheckFailed = 1,      // validate: outputs differ; compare: a proxy got worse
  Usage = 2,            // unknown option or subcommand, bad option value
  InvalidInput = 3,     // a file cannot be read or written, or is not valid
  UnsupportedModel = 4, // valid ONNX that pimc does not compile
  DoesNotFit = 5,       // the model's weights or buffers do not fit the chip
  Internal = 6,         // a bug in pimc: a later stage failed, a fatal error
};

const std::error_category &errorKindCategory();
std::error_code make_error_code(ErrorKind kind);

/// An error of `kind`.
llvm::Error makeError(ErrorKind kind, const llvm::Twine &message);

/// The kind and message of `error` (consumed): its own kind if it has one
/// of pimc's, otherwise `fallback`.
std::pair<ErrorKind, std::string> describeError(llvm::Error error, ErrorKind fallback);

/// `error` with `kind`, unless it has one of pimc's kinds already.
llvm::Error withKind(llvm::Error error, ErrorKind kind);

} // namespace pimc

template <> struct std::is_error_code_enum<pimc::ErrorKind> : std::true_type {};

#endif // PIMC_SUPPORT_EXITCODES_H
