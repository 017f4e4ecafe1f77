//===- ArchOption.cpp - the architecture of a pass ------------------------===//

#include "pimc/Support/ArchOption.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"

#include <mutex>

namespace {
/// An architecture as loaded from a file in the state the file was then in.
struct CachedArch {
  llvm::sys::TimePoint<> modified;
  uint64_t size = 0;
  pimc::Arch arch;
};
} // namespace

std::optional<pimc::Arch> pimc::loadArchOption(mlir::Operation *anchor,
                                               llvm::StringRef path) {
  // Every pass of a compile reads the same file; its network tables are
  // parsed once.
  static std::mutex mutex;
  static llvm::StringMap<CachedArch> cache;
  llvm::sys::fs::file_status status;
  bool known = path.empty() || !llvm::sys::fs::status(path, status);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(path);
  if (known && it != cache.end() &&
      (path.empty() || (it->second.modified == status.getLastModificationTime() &&
                        it->second.size == status.getSize())))
    return it->second.arch;
  llvm::Expected<Arch> arch = Arch::loadOrDefault(path);
  if (!arch) {
    anchor->emitError(llvm::toString(arch.takeError()));
    return std::nullopt;
  }
  if (known)
    cache[path] = CachedArch{path.empty() ? llvm::sys::TimePoint<>()
                                          : status.getLastModificationTime(),
                             path.empty() ? 0 : status.getSize(), *arch};
  return std::move(*arch);
}
