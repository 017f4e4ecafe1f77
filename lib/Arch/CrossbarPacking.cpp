//===- CrossbarPacking.cpp - do the weights left still fit the cores ------===//

#include "pimc/Arch/CrossbarPacking.h"

#include <algorithm>

using namespace pimc;

CrossbarPacking::CrossbarPacking(int64_t cores, int64_t perCore, bool looping)
    : perCore(perCore), looping(looping), coresWithFree(perCore + 1, 0) {
  coresWithFree[perCore] = cores;
}

bool CrossbarPacking::isLarge(int64_t crossbars, int64_t perCore, bool looping) {
  return looping ? 2 * crossbars > perCore : 2 * crossbars >= perCore;
}

void CrossbarPacking::removeUnplaced(int64_t crossbars) {
  if (--unplaced[crossbars] == 0)
    unplaced.erase(crossbars);
}

void CrossbarPacking::take(int64_t freeBefore, int64_t crossbars) {
  --coresWithFree[freeBefore];
  ++coresWithFree[freeBefore - crossbars];
}

bool CrossbarPacking::packs(int64_t freeOnCore, int64_t crossbars, bool apart) const {
  std::vector<int64_t> open(coresWithFree), taken(perCore + 1, 0);
  --open[freeOnCore];
  ++open[freeOnCore - crossbars];
  int64_t most = perCore;
  for (auto [size, count] : unplaced) {
    if (!apart || !isLarge(size, perCore, looping))
      continue;
    for (int64_t left = count; left > 0;) {
      while (most >= 0 && !open[most])
        --most;
      if (most < size)
        return false;
      int64_t k = std::min(left, open[most]);
      open[most] -= k;
      taken[most - size] += k;
      left -= k;
    }
  }
  for (int64_t f = 0; f <= perCore; ++f)
    open[f] += taken[f];
  for (auto [size, count] : unplaced) {
    if (apart && isLarge(size, perCore, looping))
      continue;
    for (int64_t left = count, f = size; left > 0;) {
      while (f <= perCore && !open[f])
        ++f;
      if (f > perCore)
        return false;
      int64_t k = std::min(left, open[f]);
      open[f] -= k;
      open[f - size] += k;
      left -= k;
      f = size; // the cores just filled may fit best now
    }
  }
  return true;
}
