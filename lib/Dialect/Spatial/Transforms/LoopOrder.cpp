//===- LoopOrder.cpp - the order of looping core programs -----------------===//

#include "pimc/Dialect/Spatial/Transforms/LoopOrder.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <optional>

using namespace pimc::spat;

namespace {
constexpr unsigned kRounds = 16;
constexpr unsigned kNone = ~0u;
} // namespace

LoopTiming::LoopTiming(llvm::ArrayRef<OrderNode> nodes, size_t coreCount,
                       llvm::ArrayRef<unsigned> order)
    : nodes(nodes), coreCount(coreCount) {
  retime(order);
}

void LoopTiming::retime(llvm::ArrayRef<unsigned> order) {
  // Every copy of every node is written below: no element needs a value
  // before.
  start.resize(kRounds * nodes.size());
  heldBy.resize(kRounds * nodes.size());
  ends.clear();
  std::vector<double> freeAt(coreCount, 0);
  std::vector<unsigned> last(coreCount, kNone);
  for (unsigned r = 0; r < kRounds; ++r) {
    for (unsigned n : order) {
      unsigned i = r * nodes.size() + n;
      double at = 0;
      unsigned by = kNone;
      for (size_t c : nodes[n].cores)
        if (by == kNone || freeAt[c] > at) {
          at = freeAt[c];
          by = last[c];
        }
      start[i] = at;
      heldBy[i] = by;
      for (auto [k, c] : llvm::enumerate(nodes[n].cores)) {
        freeAt[c] = at + nodes[n].nsOn(k);
        last[c] = i;
      }
    }
    ends.push_back(freeAt.empty() ? 0 : *llvm::max_element(freeAt));
  }
}

double LoopTiming::roundNs() const {
  return (ends.back() - ends[kRounds / 2 - 1]) / (kRounds - kRounds / 2);
}

double LoopTiming::end(unsigned instance) const {
  return start[instance] + nodes[instance % nodes.size()].ns;
}

std::vector<std::pair<unsigned, unsigned>> LoopTiming::lateLocalWork() const {
  size_t count = nodes.size();
  unsigned i = kNone;
  for (unsigned j = (kRounds - 1) * count; j < kRounds * count; ++j)
    if (i == kNone || end(j) > end(i))
      i = j;
  // A pipeline's chain reaches its slowest stage only rounds back.
  std::vector<std::pair<unsigned, unsigned>> late;
  while (i != kNone && i >= 2 * count) {
    unsigned before = heldBy[i];
    if (before != kNone && nodes[i % count].isChannel() && !nodes[before % count].isChannel())
      late.push_back({unsigned(i % count), unsigned(before % count)});
    i = before;
  }
  return late;
}

std::vector<unsigned> pimc::spat::dataFlowOrder(llvm::ArrayRef<OrderNode> nodes) {
  // A node that takes no time still comes after its inputs.
  constexpr double kTieNs = 1e-3;
  std::vector<unsigned> pending(nodes.size()), order, ready;
  std::vector<double> earliest(nodes.size(), 0);
  for (unsigned n = 0; n < nodes.size(); ++n)
    if (!(pending[n] = nodes[n].pending))
      ready.push_back(n);
  while (!ready.empty()) {
    unsigned n = ready.back();
    ready.pop_back();
    order.push_back(n);
    for (unsigned succ : nodes[n].succs) {
      earliest[succ] = std::max(earliest[succ], earliest[n] + std::max(nodes[n].ns, kTieNs));
      if (--pending[succ] == 0)
        ready.push_back(succ);
    }
  }
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    return earliest[a] != earliest[b] ? earliest[a] < earliest[b] : nodes[a].key < nodes[b].key;
  });
  return order;
}

/// `order` with `work` moved to just after `channel` (or, with `latest`, to
/// just before its first user), if its users allow.
static std::optional<std::vector<unsigned>> delayed(llvm::ArrayRef<OrderNode> nodes,
                                                    llvm::ArrayRef<unsigned> order,
                                                    unsigned work, unsigned channel,
                                                    bool latest) {
  std::vector<size_t> position(nodes.size());
  for (size_t p = 0; p < order.size(); ++p)
    position[order[p]] = p;
  if (position[work] > position[channel])
    return std::nullopt;
  size_t firstUser = order.size();
  for (unsigned s : nodes[work].succs)
    firstUser = std::min(firstUser, position[s]);
  if (firstUser <= position[channel])
    return std::nullopt;
  size_t to = latest ? firstUser : position[channel] + 1;
  std::vector<unsigned> moved;
  moved.reserve(order.size());
  for (size_t p = 0; p < order.size(); ++p) {
    if (p == to)
      moved.push_back(work);
    if (p != position[work])
      moved.push_back(order[p]);
  }
  if (to == order.size())
    moved.push_back(work);
  return moved;
}

void pimc::spat::shortenLoopRound(llvm::ArrayRef<OrderNode> nodes, size_t coreCount,
                                  std::vector<unsigned> &order) {
  // Each trial times kRounds rounds of every node anew (about 0.5 ms on
  // resnet18's layer stages, which settle after some 400 trials): at most
  // 1000 trials, and fewer for larger programs.
  constexpr int64_t kMaxTrials = 1000, kMaxNodeRounds = 200'000'000;
  int64_t maxTrials = std::min<int64_t>(
      kMaxTrials, kMaxNodeRounds / std::max<int64_t>(1, kRounds * nodes.size()));
  LoopTiming timing(nodes, coreCount, order), trialTiming(nodes, coreCount, order);
  double best = timing.roundNs();
  int64_t trials = 0;
  for (bool improved = true; improved && trials < maxTrials;) {
    improved = false;
    for (auto [channel, work] : timing.lateLocalWork()) {
      for (bool latest : {false, true}) {
        std::optional<std::vector<unsigned>> trial =
            delayed(nodes, order, work, channel, latest);
        if (!trial)
          continue;
        ++trials;
        trialTiming.retime(*trial);
        if (trialTiming.roundNs() < best * (1 - 1e-6)) {
          best = trialTiming.roundNs();
          order = std::move(*trial);
          std::swap(timing, trialTiming);
          improved = true;
          break;
        }
      }
      if (improved || trials >= maxTrials)
        break;
    }
  }
}
