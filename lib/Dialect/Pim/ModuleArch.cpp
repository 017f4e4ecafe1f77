//===- ModuleArch.cpp - the architecture a module is compiled for ---------===//

#include "pimc/Dialect/Pim/ModuleArch.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

#include <mutex>
#include <vector>

using namespace mlir;
using namespace pimc;

namespace {
/// The architectures parsed last, the latest first: every pass of a compile
/// (and the verifier after each) asks for the same one, which is parsed
/// once. A few are kept, for the compiles of one process for other chips.
class ParsedArchs {
public:
  std::shared_ptr<const Arch> find(pim::ArchAttr attr) {
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t i = 0; i < archs.size(); ++i) {
      const Arch &arch = *archs[i];
      if (arch.path == attr.getName() && arch.json == attr.getJson() &&
          arch.networkJson == attr.getNetwork()) {
        std::rotate(archs.begin(), archs.begin() + i, archs.begin() + i + 1);
        return archs.front();
      }
    }
    return nullptr;
  }

  std::shared_ptr<const Arch> add(Arch arch) {
    auto parsed = std::make_shared<const Arch>(std::move(arch));
    std::lock_guard<std::mutex> lock(mutex);
    archs.insert(archs.begin(), parsed);
    if (archs.size() > kKept)
      archs.pop_back();
    return parsed;
  }

private:
  static constexpr size_t kKept = 4;
  std::mutex mutex;
  std::vector<std::shared_ptr<const Arch>> archs;
};

ParsedArchs &parsedArchs() {
  static ParsedArchs archs;
  return archs;
}

constexpr StringLiteral kArchAttrName = pim::PimDialect::ArchAttrHelper::getNameStr();
} // namespace

void pimc::setArch(ModuleOp module, const Arch &arch) {
  if (arch.path.empty()) {
    module->removeAttr(kArchAttrName);
    return;
  }
  MLIRContext *context = module.getContext();
  context->getOrLoadDialect<pim::PimDialect>();
  auto attr = pim::ArchAttr::get(context, arch.path, arch.json, arch.networkJson);
  // Parsed already: the passes need not parse it again.
  if (!parsedArchs().find(attr))
    parsedArchs().add(arch);
  module->setAttr(kArchAttrName, attr);
}

llvm::Expected<std::shared_ptr<const Arch>> pimc::parseArch(pim::ArchAttr attr) {
  if (std::shared_ptr<const Arch> arch = parsedArchs().find(attr))
    return arch;
  // Named as Arch::load names it, in its messages and in the Arch.
  llvm::SmallString<256> directory(attr.getName());
  llvm::sys::path::remove_filename(directory);
  if (directory.empty())
    directory = ".";
  llvm::Expected<Arch> arch =
      Arch::parse(attr.getJson(), directory, attr.getName(), attr.getNetwork());
  if (!arch)
    return arch.takeError();
  return parsedArchs().add(std::move(*arch));
}

std::shared_ptr<const Arch> pimc::archOf(ModuleOp module) {
  Attribute attr = module->getAttr(kArchAttrName);
  if (!attr)
    return std::shared_ptr<const Arch>(std::shared_ptr<const Arch>(), &Arch::builtinDefault());
  auto archAttr = dyn_cast<pim::ArchAttr>(attr);
  if (!archAttr) {
    module.emitError() << "'" << kArchAttrName << "' must be a #pim.arch";
    return nullptr;
  }
  llvm::Expected<std::shared_ptr<const Arch>> arch = parseArch(archAttr);
  if (!arch) {
    module.emitError(llvm::toString(arch.takeError()));
    return nullptr;
  }
  return *arch;
}
