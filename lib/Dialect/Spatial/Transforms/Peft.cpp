//===- Peft.cpp - PEFT list scheduling on plain data ----------------------===//
//
// Predict Earliest Finish Time (Arabnejad and Barbosa, 2014) list scheduling
// of the computes of the dataflow function onto the cores. The optimistic
// cost table OCT(t, p) is the shortest time from the end of t to the end of
// the graph if t ran on p; on a chip of identical cores it does not depend
// on p, so it is computed once per compute, and a compute goes to the core
// minimizing EFT(t, p) + OCT(t), i.e. its earliest finish time. Transfers
// between cores cost what the NoC table says for that pair of cores, so
// placement is NoC-aware; a core only takes computes whose weight tiles fit
// its free crossbars. Computes that share a copy of their weights go where
// the first of them went, one after another, and take its crossbars once.
//
// For programs that loop (throughput mode), each layer with weights, with
// the work after it up to the next such layer, is a pipeline stage with
// cores of its own: a core holding early and late work would make every
// round wait for the whole network.
//
//===----------------------------------------------------------------------===//

#include "pimc/Dialect/Spatial/Transforms/Peft.h"

#include "pimc/Arch/CostModel.h"
#include "pimc/Arch/CrossbarPacking.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <numeric>
#include <queue>

using namespace pimc;
using namespace pimc::peft;
using llvm::ArrayRef;
using llvm::DenseMap;
using llvm::DenseSet;
using llvm::SmallVector;

namespace {

/// A task and what scheduling it keeps of it.
struct Node : Task {
  SmallVector<Edge> succs;
  double oct = 0;
  unsigned pendingPreds = 0;
  unsigned unplacedConsumers = 0;
  int64_t core = -1;
  double start = 0, finish = 0;
};

/// The share of its stage's time a core may reach by taking work without
/// weights beside its input (no transfer for it, and no core that gathers a
/// stage's results to hand them on). Of 0.5 to 1.0, 0.8 and 0.9 were best on
/// the benchmark models (resnet18 and mobilenet_v2 rounds 2% shorter); 1.0
/// lengthened googlenet's, whose cores then lack the margin for the
/// transfers and copies the cost table leaves out.
constexpr double kBesideInputShare = 0.9;

/// The share of the longest stage's time two stages may take when they share
/// their cores (their tasks' costs leave out transfers and copies). Of 0.8
/// to 1.0, 0.85 to 0.92 were best: googlenet's round 10% shorter, resnet18's
/// 3%; 0.95 and more put on one core what then waited on both stages.
constexpr double kSharedStageShare = 0.9;

/// The pipeline stages of throughput mode: the stage of each task and how
/// many cores each stage may take.
struct Stages {
  std::vector<int64_t> of;
  std::vector<int64_t> quota;
  std::vector<double> ns; // each stage's time on its quota of cores
};

/// The time `cores` cores take for tasks of these costs (sorted, longest
/// first), each going to the core that is free first.
double makespan(ArrayRef<double> costs, int64_t cores) {
  std::priority_queue<double, std::vector<double>, std::greater<>> free;
  for (int64_t c = 0; c < cores; ++c)
    free.push(0);
  double end = 0;
  for (double cost : costs) {
    double finish = free.top() + cost;
    free.pop();
    free.push(finish);
    end = std::max(end, finish);
  }
  return end;
}

/// A task with weights (or without producers) belongs to the stage of its
/// model node; any other task to the deepest stage it reads from (a sum of
/// a layer and its skip connection to the layer's stage, not the skip's:
/// there it would hold the skip's stage a round long). Each stage gets the
/// cores its crossbars need; then the other cores go to the stage that
/// takes longest, as many at a time as shorten it, while that many are left,
/// and stages as deep share cores where that frees one. A task's time
/// counts receiving its inputs, which a stage's cores spend every round.
Stages pipelineStages(llvm::ArrayRef<Node> tasks, const Arch &arch) {
  Stages stages;
  stages.of.assign(tasks.size(), -1);
  DenseMap<int64_t, int64_t> byNode;
  std::vector<std::vector<double>> costs; // by stage, a copy's tasks as one
  std::vector<int64_t> largeTasks, smallCrossbars;
  // How many stages lie before a stage on the longest path to it.
  std::vector<int64_t> depth;
  DenseMap<int64_t, std::pair<int64_t, size_t>> copyCost; // copy: (stage, index)
  int64_t perCore = arch.matrix.xbarArrayCount;
  // A task's part of a round: its instructions and taking its inputs from
  // other cores (googlenet's and squeezenet1_0's rounds 8 and 10% shorter:
  // their input-heavy stages got the cores they need).
  CostModel cost(arch);
  auto taskNs = [&](const Task &task) {
    int64_t received = 0;
    for (const Edge &e : task.preds)
      received += e.bytes;
    return task.cost + cost.loopInputNs(received);
  };
  for (unsigned t = 0; t < tasks.size(); ++t) {
    const Task &task = tasks[t];
    // The deepest stage the task reads from (the latest of equals).
    int64_t deepest = -1;
    for (const Edge &e : task.preds) {
      int64_t from = stages.of[e.task];
      if (deepest < 0 || depth[from] > depth[deepest] ||
          (depth[from] == depth[deepest] && from > deepest))
        deepest = from;
    }
    int64_t stage = task.crossbars == 0 ? deepest : -1;
    if (stage < 0) {
      auto [it, isNew] =
          byNode.try_emplace(task.layer, int64_t(costs.size()));
      if (isNew) {
        costs.emplace_back();
        largeTasks.push_back(0);
        smallCrossbars.push_back(0);
        depth.push_back(deepest < 0 ? 0 : depth[deepest] + 1);
      }
      stage = it->second;
    }
    stages.of[t] = stage;
    if (task.copy >= 0) {
      auto [it, isNew] = copyCost.try_emplace(task.copy, stage, costs[stage].size());
      if (!isNew) {
        costs[it->second.first][it->second.second] += taskNs(task);
        continue;
      }
    }
    costs[stage].push_back(taskNs(task));
    if (CrossbarPacking::isLarge(task.crossbars, perCore, /*looping=*/true))
      ++largeTasks[stage];
    else
      smallCrossbars[stage] += task.crossbars;
  }
  size_t count = costs.size();
  stages.quota.assign(count, 1);
  int64_t given = 0;
  // Each stage's time, and the fewest more cores that shorten it (0: none).
  std::vector<double> now(count);
  std::vector<int64_t> more(count);
  auto look = [&](size_t s) {
    now[s] = makespan(costs[s], stages.quota[s]);
    more[s] = 0;
    for (int64_t q = stages.quota[s] + 1; q <= int64_t(costs[s].size()); ++q)
      if (makespan(costs[s], q) < now[s]) {
        more[s] = q - stages.quota[s];
        break;
      }
  };
  for (size_t s = 0; s < count; ++s) {
    llvm::sort(costs[s], std::greater<>());
    stages.quota[s] = std::max<int64_t>(
        1, largeTasks[s] + (smallCrossbars[s] + perCore - 1) / perCore);
    given += stages.quota[s];
    look(s);
  }
  auto distribute = [&] {
    while (true) {
      int64_t best = -1;
      for (size_t s = 0; s < count; ++s)
        if (more[s] && given + more[s] <= arch.coreCount && (best < 0 || now[s] > now[best]))
          best = s;
      if (best < 0)
        return;
      stages.quota[best] += more[best];
      given += more[best];
      look(best);
    }
  };
  distribute();
  // Stages as deep in the pipeline work on the same sample in a round (a
  // block's convolution and its downsample read one input): two that fit
  // on one core fewer than they hold share their cores, and the core they
  // free goes to the slowest stage.
  std::vector<int64_t> into(count); // the stage each one shares cores with
  std::iota(into.begin(), into.end(), 0);
  while (true) {
    double longest = *llvm::max_element(now);
    int64_t bestA = -1, bestB = -1;
    double bestNs = 0;
    std::vector<double> bestCosts;
    for (size_t a = 0; a < count; ++a)
      for (size_t b = a + 1; b < count; ++b) {
        if (into[a] != int64_t(a) || into[b] != int64_t(b) || depth[a] != depth[b])
          continue;
        int64_t quota = stages.quota[a] + stages.quota[b] - 1;
        if (quota < 1)
          continue;
        std::vector<double> both(costs[a]);
        both.insert(both.end(), costs[b].begin(), costs[b].end());
        llvm::sort(both, std::greater<>());
        double ns = makespan(both, quota);
        if (ns <= kSharedStageShare * longest && (bestA < 0 || ns < bestNs)) {
          bestA = a;
          bestB = b;
          bestNs = ns;
          bestCosts = std::move(both);
        }
      }
    if (bestA < 0)
      break;
    costs[bestA] = std::move(bestCosts);
    costs[bestB].clear();
    stages.quota[bestA] += stages.quota[bestB] - 1;
    stages.quota[bestB] = 0;
    now[bestB] = 0;
    more[bestB] = 0;
    into[bestB] = bestA;
    --given;
    look(bestA);
    distribute();
  }
  for (int64_t &stage : stages.of)
    while (into[stage] != stage)
      stage = into[stage];
  stages.ns = std::move(now);
  return stages;
}

} // namespace

std::variant<Schedule, Misfit> pimc::peft::schedule(const std::vector<Task> &input,
                                                    const Arch &arch, const Options &options) {
  CostModel cost(arch);
  std::vector<Node> tasks(input.size());
  for (unsigned t = 0; t < input.size(); ++t) {
    static_cast<Task &>(tasks[t]) = input[t];
    tasks[t].pendingPreds = input[t].preds.size();
    for (const Edge &e : input[t].preds)
      tasks[e.task].succs.push_back({t, e.bytes});
  }
  for (Node &task : tasks)
    task.unplacedConsumers = task.succs.size();
  // Computes come in topological order, so a backward sweep fills OCT.
  for (unsigned t = tasks.size(); t-- > 0;)
    for (const Edge &s : tasks[t].succs)
      tasks[t].oct = std::max(tasks[t].oct, tasks[s.task].oct + tasks[s.task].cost);

  Stages stages = options.looping ? pipelineStages(tasks, arch) : Stages();
  std::vector<int64_t> coreStage(arch.coreCount, -1);
  std::vector<int64_t> stageCores(stages.quota.size(), 0);
  std::vector<double> coreFree(arch.coreCount, 0);
  std::vector<double> coreWork(arch.coreCount, 0); // its computes' costs
  std::vector<int64_t> freeCrossbars(arch.coreCount, arch.matrix.xbarArrayCount);
  // Results kept on a core until their last consumer is placed: a core
  // only takes a compute whose inputs and results fit beside them.
  std::vector<int64_t> resident(arch.coreCount, 0);
  int64_t memoryLimit = arch.localMemory.memorySize * 3 / 4;
  // Highest rank (OCT + own cost) first among the ready computes.
  auto lower = [&](unsigned a, unsigned b) {
    double ra = tasks[a].oct + tasks[a].cost, rb = tasks[b].oct + tasks[b].cost;
    return ra != rb ? ra < rb : a > b;
  };
  std::priority_queue<unsigned, std::vector<unsigned>, decltype(lower)> ready(lower);
  int64_t perCore = arch.matrix.xbarArrayCount;
  // The core of each shared copy of weights, once its first compute is
  // placed: the others go there and need no crossbars of their own.
  DenseMap<int64_t, int64_t> copyCore;
  auto needs = [&](const Task &task, int64_t core) -> int64_t {
    auto it = copyCore.find(task.copy);
    return it != copyCore.end() && it->second == core ? 0 : task.crossbars;
  };
  // The crossbars of the computes that start a copy and are not placed
  // yet: a placement should leave room for them all. Placing by earliest
  // finish alone fragments the crossbars (resnet18 at 90% of them in
  // copies: 1752 free, at most 23 on a core, 24 needed).
  CrossbarPacking packing(arch.coreCount, perCore, options.looping);
  DenseSet<int64_t> copies;
  for (const Task &task : tasks)
    if (task.crossbars > 0 && (task.copy < 0 || copies.insert(task.copy).second))
      packing.addUnplaced(task.crossbars);
  for (unsigned t = 0; t < tasks.size(); ++t)
    if (!tasks[t].pendingPreds)
      ready.push(t);
  double makespan = 0;
  while (!ready.empty()) {
    unsigned t = ready.top();
    ready.pop();
    Node &task = tasks[t];
    auto pinned = copyCore.find(task.copy);
    bool firstOfCopy = pinned == copyCore.end();
    if (task.crossbars > 0 && firstOfCopy)
      packing.removeUnplaced(task.crossbars);
    struct Candidate {
      int64_t core;
      double start, finish;
    };
    SmallVector<Candidate> candidates;
    int64_t stage = options.looping ? stages.of[t] : -1;
    // A stage takes its own cores, and fresh ones up to its quota; when
    // none of them has room, any core does.
    auto inStage = [&](int64_t p) {
      return stage < 0 || coreStage[p] == stage ||
             (coreStage[p] < 0 && stageCores[stage] < stages.quota[stage]);
    };
    auto fits = [&](int64_t p) {
      return freeCrossbars[p] >= needs(task, p) &&
             resident[p] + task.inputBytes + task.outputBytes <= memoryLimit;
    };
    bool anyInStage = false;
    for (int64_t p = 0; p < arch.coreCount && !anyInStage; ++p)
      anyInStage = inStage(p) && fits(p);
    // A compute of a placed copy runs on its core, if it fits there.
    bool toCopy = !firstOfCopy && fits(pinned->second);
    for (int64_t p = 0; p < arch.coreCount; ++p) {
      if (!fits(p) || (anyInStage && !inStage(p)) || (toCopy && p != pinned->second))
        continue;
      double start = coreFree[p];
      for (const Edge &e : task.preds) {
        const Node &pred = tasks[e.task];
        double arrival = pred.finish;
        if (pred.core != p)
          arrival += cost.transferNs(pred.core, p, e.bytes);
        start = std::max(start, arrival);
      }
      double finish = start + task.cost +
                      (task.globalBytes ? cost.loadNs(p, task.globalBytes) : 0);
      candidates.push_back({p, start, finish});
    }
    // O_EFT = EFT + OCT; OCT is the same on every core, so the earliest
    // finish wins, among the cores that leave room for the large
    // computes to come (or the earliest of all when none does).
    llvm::stable_sort(candidates, [](const Candidate &a, const Candidate &b) {
      return a.finish < b.finish;
    });
    // In a pipeline, a core's work is its part of every round: work
    // without weights goes beside its largest input while that core keeps
    // within kBesideInputShare of its stage's time, else to the least
    // loaded core.
    if (options.looping && options.balanceWeightless && task.crossbars == 0) {
      llvm::stable_sort(candidates, [&](const Candidate &a, const Candidate &b) {
        return coreWork[a.core] < coreWork[b.core];
      });
      const Edge *largest = nullptr;
      for (const Edge &e : task.preds)
        if (!largest || e.bytes > largest->bytes)
          largest = &e;
      if (largest) {
        int64_t home = tasks[largest->task].core;
        auto it = llvm::find_if(candidates,
                                [&](const Candidate &c) { return c.core == home; });
        if (it != candidates.end() &&
            coreWork[home] + task.cost <= kBesideInputShare * stages.ns[stage])
          std::rotate(candidates.begin(), it, it + 1);
      }
    }
    int64_t best = -1;
    double bestStart = 0, bestFinish = 0;
    if (!candidates.empty()) {
      // The earliest finish that keeps the large computes apart, else
      // the earliest that leaves room at all, else the earliest.
      const Candidate *chosen = nullptr;
      for (bool apart : {true, false}) {
        if (chosen || !packing.leavesRoom(freeCrossbars[0], 0, apart))
          continue;
        for (const Candidate &c : candidates)
          if (packing.leavesRoom(freeCrossbars[c.core], needs(task, c.core), apart)) {
            chosen = &c;
            break;
          }
      }
      if (!chosen)
        chosen = &candidates.front();
      best = chosen->core;
      bestStart = chosen->start;
      bestFinish = chosen->finish;
    }
    if (best < 0) {
      int64_t freeTotal = 0, mostFree = 0;
      for (int64_t f : freeCrossbars) {
        freeTotal += f;
        mostFree = std::max(mostFree, f);
      }
      return Misfit{t, mostFree < task.crossbars, task.crossbars, freeTotal, mostFree,
                    task.inputBytes + task.outputBytes, memoryLimit};
    }
    if (stage >= 0 && coreStage[best] < 0) {
      coreStage[best] = stage;
      ++stageCores[stage];
    }
    task.core = best;
    task.start = bestStart;
    task.finish = bestFinish;
    packing.take(freeCrossbars[best], needs(task, best));
    freeCrossbars[best] -= needs(task, best);
    if (task.copy >= 0 && firstOfCopy)
      copyCore[task.copy] = best;
    coreFree[best] = bestFinish;
    coreWork[best] += task.cost;
    resident[best] += task.outputBytes;
    for (const Edge &e : task.preds)
      if (--tasks[e.task].unplacedConsumers == 0)
        resident[tasks[e.task].core] -= tasks[e.task].outputBytes;
    // The producers' cores spend the send of the data on it.
    for (const Edge &e : task.preds) {
      Node &pred = tasks[e.task];
      if (pred.core != best)
        coreFree[pred.core] += cost.localReadNs(e.bytes) +
                               cost.nocNs(pred.core, best, e.bytes);
    }
    makespan = std::max(makespan, bestFinish);
    for (const Edge &s : task.succs)
      if (--tasks[s.task].pendingPreds == 0)
        ready.push(s.task);
  }
  Schedule result;
  result.makespan = makespan;
  for (const Node &task : tasks)
    result.placements.push_back({task.core, task.start, task.finish});
  return result;
}
