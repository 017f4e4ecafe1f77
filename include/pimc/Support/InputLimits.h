//===- InputLimits.h - checks on what pimc reads ----------------*- C++ -*-===//
//
// Models, architecture files and artifact directories come from users and
// other tools: what is read is checked against stated limits before
// anything is sized from it. Header-only, so that every library that reads
// a file can use it without a link dependency.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_SUPPORT_INPUTLIMITS_H
#define PIMC_SUPPORT_INPUTLIMITS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstdint>
#include <optional>

namespace pimc {

/// The most elements a tensor may have (1 GiB of f32): larger shapes are
/// refused where they are read, before anything is allocated for them.
constexpr int64_t kMaxTensorElements = int64_t(1) << 28;

/// JSON files nested deeper than this are refused before they are parsed
/// (llvm::json::parse recurses once a level).
constexpr int64_t kMaxJsonDepth = 256;

/// The largest JSON file of a program directory pimc reads (manifest,
/// config, nodes, report): larger ones are refused before they are read.
constexpr uint64_t kMaxJsonFileBytes = uint64_t(1) << 29;

/// The product of `dims`, or nothing when a dimension is negative or the
/// product exceeds `limit` (computed without overflow).
inline std::optional<int64_t> boundedProduct(llvm::ArrayRef<int64_t> dims,
                                             int64_t limit = kMaxTensorElements) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || llvm::MulOverflow(n, d, n) || n > limit)
      return std::nullopt;
  }
  return n;
}

/// An error unless `path` is a regular file (after symlinks): a FIFO would
/// block the read forever, a device or a directory never ends or fails late.
inline llvm::Error checkRegularFile(const llvm::Twine &path) {
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return llvm::createStringError(ec, "cannot read '" + path + "': " + ec.message());
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot read '" + path + "': not a regular file");
  return llvm::Error::success();
}

/// `file` with every symlink resolved, which must lie inside `directory`
/// (resolved too): what pimc reads beside a model or an architecture file
/// is copied into programs, so a link out of that directory is refused.
inline llvm::Expected<std::string> realPathInside(const llvm::Twine &file,
                                                 const llvm::Twine &directory) {
  llvm::SmallString<256> realFile, realDirectory;
  if (std::error_code ec = llvm::sys::fs::real_path(file, realFile))
    return llvm::createStringError(ec, "cannot read '" + file + "': " + ec.message());
  if (std::error_code ec = llvm::sys::fs::real_path(directory, realDirectory))
    return llvm::createStringError(ec, "cannot read '" + directory + "': " + ec.message());
  if (!llvm::sys::path::is_separator(realDirectory.back()))
    realDirectory.push_back('/');
  if (!llvm::StringRef(realFile).starts_with(realDirectory))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'" + file + "' is a link out of its directory (to '" +
                                       realFile + "')");
  return realFile.str().str();
}

/// The contents of the regular file `path`, of at most `maxBytes` bytes.
inline llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readRegularFile(const llvm::Twine &path, bool requiresNullTerminator = true,
                uint64_t maxBytes = UINT64_MAX) {
  if (llvm::Error e = checkRegularFile(path))
    return std::move(e);
  uint64_t size = 0;
  if (std::error_code ec = llvm::sys::fs::file_size(path, size))
    return llvm::createStringError(ec, "cannot read '" + path + "': " + ec.message());
  if (size > maxBytes)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot read '" + path + "': it has " + llvm::Twine(size) +
                                       " bytes, more than the " + llvm::Twine(maxBytes) +
                                       " such a file may have");
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, requiresNullTerminator);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "cannot read '" + path +
                                                          "': " + buffer.getError().message());
  return std::move(*buffer);
}

/// llvm::json::parse, after checking that `text` nests at most kMaxJsonDepth
/// arrays and objects deep.
inline llvm::Expected<llvm::json::Value> parseJsonWithinDepth(llvm::StringRef text) {
  int64_t depth = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "nested more than " + llvm::Twine(kMaxJsonDepth) + " levels deep");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return llvm::json::parse(text);
}

} // namespace pimc

#endif // PIMC_SUPPORT_INPUTLIMITS_H
