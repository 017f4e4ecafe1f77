//===- CrossbarPacking.h - do the weights left still fit the cores -*- C++ -*-===//
//
// Plain data, shared by whoever places weights on cores: the crossbars of
// the computes (one per copy of weights) not placed yet, by size, and how
// many cores have each number of crossbars free. A placement should leave a
// packing of them all; packs() builds one best fit decreasing, so true
// means one exists.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_ARCH_CROSSBARPACKING_H
#define PIMC_ARCH_CROSSBARPACKING_H

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace pimc {

class CrossbarPacking {
public:
  /// `cores` cores of `perCore` crossbars, all free; `looping`: programs
  /// that loop (see isLarge).
  CrossbarPacking(int64_t cores, int64_t perCore, bool looping);

  /// A large compute shares its core with no other large one. For one
  /// inference that is any of half a core's crossbars or more, which keeps
  /// such computes running in parallel; when the programs loop, a core's
  /// work is what counts, so only those that cannot share (more than half)
  /// are.
  static bool isLarge(int64_t crossbars, int64_t perCore, bool looping);

  /// A compute of `crossbars` to place, or one being placed now.
  void addUnplaced(int64_t crossbars) { ++unplaced[crossbars]; }
  void removeUnplaced(int64_t crossbars);
  /// A core that had `freeBefore` crossbars free gives `crossbars` of them.
  void take(int64_t freeBefore, int64_t crossbars);

  /// Whether the unplaced computes fit once `crossbars` more are taken on a
  /// core with `freeOnCore` free, packed best fit decreasing; `apart`: each
  /// large one on a core of its own first, the largest on the cores with the
  /// most free.
  bool packs(int64_t freeOnCore, int64_t crossbars, bool apart) const;
  /// packs() apart, or (unless `apart`) packs() at all.
  bool leavesRoom(int64_t freeOnCore, int64_t crossbars, bool apart) const {
    return packs(freeOnCore, crossbars, true) || (!apart && packs(freeOnCore, crossbars, false));
  }

private:
  int64_t perCore;
  bool looping;
  /// The crossbars of the computes not placed yet, largest first, and how
  /// many have each.
  std::map<int64_t, int64_t, std::greater<>> unplaced;
  /// How many cores have each number of crossbars free.
  std::vector<int64_t> coresWithFree;
};

} // namespace pimc

#endif // PIMC_ARCH_CROSSBARPACKING_H
