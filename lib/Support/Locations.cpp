//===- Locations.cpp - model nodes in locations ---------------------------===//

#include "pimc/Support/Locations.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

std::string pimc::nodeName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string found = nodeName(inner); !found.empty())
        return found;
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return nodeName(call.getCallee());
  return "";
}
