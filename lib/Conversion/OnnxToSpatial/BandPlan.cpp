//===- BandPlan.cpp - how many bands each window layer is cut into --------===//

#include "pimc/Conversion/BandPlan.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <queue>

using namespace pimc::plan;
using llvm::divideCeilSigned;

int64_t WindowLayer::actual(int64_t planned) const {
  if (planned <= rows)
    return divideCeilSigned(rows, divideCeilSigned(rows, planned));
  return rows * std::min(maxParts, divideCeilSigned(planned, rows));
}

double WindowLayer::bandNs(int64_t count) const {
  if (count <= rows)
    return work * divideCeilSigned(rows, count) / rows;
  return work / rows * divideCeilSigned(cols, count / rows) / cols;
}

int64_t WindowLayer::copyCores(int64_t perCore) const {
  return std::max<int64_t>(1, divideCeilSigned(crossbars, perCore));
}

int64_t WindowLayer::next(int64_t bands) const {
  if (bands < rows)
    return divideCeilSigned(rows, divideCeilSigned(rows, bands) - 1);
  for (int64_t parts = bands / rows + 1; parts <= maxParts; ++parts)
    if (divideCeilSigned(cols, parts) < divideCeilSigned(cols, bands / rows))
      return rows * parts;
  return 0;
}

BandPlan pimc::plan::planBands(const BandProblem &problem) {
  const std::vector<WindowLayer> &layers = problem.layers;
  int64_t perCore = problem.crossbarsPerCore;
  BandPlan plan;
  std::vector<int64_t> &bands = plan.bands;
  bands.assign(layers.size(), 1);
  auto coreNs = [&](size_t i) {
    return layers[i].bandNs(bands[i]) / layers[i].copyCores(perCore);
  };
  if (!problem.oneInference) {
    // A copy of more than a core's crossbars spans several cores; pooling
    // takes a core a band.
    int64_t cores = problem.cores - problem.matrixCores;
    for (const WindowLayer &layer : layers)
      cores -= layer.copyCores(perCore);
    while (true) {
      int slowest = -1;
      for (size_t i = 0; i < layers.size(); ++i)
        if (slowest < 0 || coreNs(i) > coreNs(slowest))
          slowest = i;
      if (slowest < 0 || !layers[slowest].next(bands[slowest]))
        break;
      int64_t next = layers[slowest].next(bands[slowest]);
      int64_t more = (next - bands[slowest]) * layers[slowest].copyCores(perCore);
      if (more > cores)
        break;
      cores -= more;
      bands[slowest] = next;
    }
  } else {
    double budget = problem.copyBudget * problem.cores * perCore;
    double used = problem.matrixCrossbars;
    for (const WindowLayer &layer : layers)
      used += layer.crossbars;
    auto gain = [&](unsigned i) {
      const WindowLayer &l = layers[i];
      int64_t next = l.next(bands[i]);
      return (l.bandNs(bands[i]) - l.bandNs(next)) / ((next - bands[i]) * l.crossbars);
    };
    auto lower = [&](unsigned a, unsigned b) { return gain(a) < gain(b); };
    std::priority_queue<unsigned, std::vector<unsigned>, decltype(lower)> queue(lower);
    for (unsigned i = 0; i < layers.size(); ++i)
      if (layers[i].crossbars > 0 && layers[i].next(bands[i]))
        queue.push(i);
    while (!queue.empty() && used <= budget) {
      unsigned i = queue.top();
      queue.pop();
      const WindowLayer &layer = layers[i];
      int64_t more = layer.next(bands[i]) - bands[i];
      // A layer whose next copy does not fit gets no more.
      if (used + more * layer.crossbars > budget)
        continue;
      used += more * layer.crossbars;
      bands[i] += more;
      if (layer.next(bands[i]))
        queue.push(i);
    }
  }
  for (size_t i = 0; i < layers.size(); ++i)
    if (layers[i].crossbars > 0)
      plan.bandNs = std::max(plan.bandNs, problem.oneInference ? layers[i].bandNs(bands[i])
                                                                : coreNs(i));
  // For one inference the layer after work without weights (pooling, the
  // model input's transpose) waits for its pieces, row by row: they are cut
  // sixteen times finer than the slowest band.
  if (plan.bandNs > 0 && problem.oneInference)
    for (size_t i = 0; i < layers.size(); ++i)
      if (layers[i].crossbars == 0)
        bands[i] = layers[i].actual(std::clamp<int64_t>(
            std::ceil(layers[i].work / (plan.bandNs / 16)), 1,
            std::min(layers[i].rows * layers[i].maxParts, problem.cores)));
  return plan;
}
