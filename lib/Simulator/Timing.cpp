//===- Timing.cpp - replay of a compiled program's timing -----------------===//
//
// Cores advance one instruction at a time. Work that touches nothing shared
// is added to the core's clock at once; an instruction that meets another
// core or a shared resource (ld, st, send, recv, sync, wait) is handled when
// its core is the earliest one left, so that the global memory and the NoC
// switches serve requests in the order of their times.
//
//===----------------------------------------------------------------------===//

#include "pimc/Simulator/Timing.h"

#include "Machine.h"

#include "pimc/Arch/CostModel.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <queue>
#include <set>

using namespace pimc;
using namespace pimc::sim;
using namespace pimc::sim::detail;
using isa::Opcode;

namespace {

enum class Blocked { No, Send, Recv, Wait };

/// The vector operands an instruction reads: 2, 1, or 0 when it is not a
/// vector instruction.
int64_t vectorInputs(Opcode code) {
  switch (code) {
  case Opcode::Vvadd:
  case Opcode::Vvsub:
  case Opcode::Vvmul:
  case Opcode::Vvdmul:
  case Opcode::Vvmax:
  case Opcode::Vvsll:
  case Opcode::Vvsra:
    return 2;
  case Opcode::Vavg:
  case Opcode::Vrelu:
  case Opcode::Vtanh:
  case Opcode::Vsigm:
  case Opcode::Vsoftmax:
  case Opcode::Vmv:
  case Opcode::Vrsu:
  case Opcode::Vrsl:
    return 1;
  default:
    return 0;
  }
}

/// What an instruction that involves no other core does.
Activity localActivity(Opcode code) {
  switch (code) {
  case Opcode::Mvmul:
    return Activity::Matrix;
  case Opcode::Lldi:
  case Opcode::Lmv:
    return Activity::Copy;
  default:
    return vectorInputs(code) ? Activity::Vector : Activity::Scalar;
  }
}

bool isCompute(Activity activity) {
  return activity == Activity::Matrix || activity == Activity::Vector ||
         activity == Activity::Scalar || activity == Activity::Copy;
}

/// The parts of dynamic energy, in the order of Replay::addEnergy's fields.
enum class EnergyPart { Crossbar, Vector, Memory, Noc };

struct Core {
  size_t id = 0;
  const CoreProgram *program = nullptr;
  size_t pc = 0;
  double t = 0;
  Blocked blocked = Blocked::No;
  int64_t partner = -1;
  double since = 0;        // when the blocking instruction was issued
  double readyArrives = 0; // a blocked send's ready message, at the receiver
  double switchFree = 0;   // when this core's NoC switch is free again
  std::vector<std::vector<double>> events; // sync arrivals per event register
  std::map<int64_t, double> rendezvousByPeer;
  CoreTiming timing;
  const NodeMarks *marks = nullptr;
  size_t nextMark = 0;
  int32_t node = -1; // the model node of the instruction at pc
  std::vector<double> roundEnds; // when each pass over the program ended
  std::vector<CoreTiming> timingAtRoundEnds;
  std::map<int32_t, double> busyByNode; // in the first round
  /// For the critical path: each rendezvous this core waited in for a
  /// later peer, and when the core moved on to each model node.
  struct Wait {
    double done;
    int64_t peer;
    double peerArrived;
  };
  std::vector<Wait> waits;
  std::vector<std::pair<double, int32_t>> nodeStarts;
  bool done() const { return pc == program->ops.size(); }
};

class Replay {
public:
  Replay(const LoadedProgram &program, const Arch &arch, const std::vector<NodeMarks> *marks,
         size_t nodeCount, int64_t rounds, int64_t traceRounds)
      : program(program), arch(arch), cost(arch), gm(arch.globalNode()), marks(marks),
        nodes(nodeCount), nodeCores(nodeCount), nodeGroups(nodeCount), rounds(rounds),
        traceRounds(traceRounds) {}

  llvm::Expected<Timing> run() {
    cores.resize(program.cores.size());
    if (traceRounds > 0)
      slices.resize(cores.size());
    for (size_t i = 0; i < cores.size(); ++i) {
      cores[i].id = i;
      cores[i].program = &program.cores[i];
      cores[i].events.resize(32);
      if (marks && i < marks->size())
        cores[i].marks = &(*marks)[i];
      if (!cores[i].done())
        schedule(i);
    }
    while (!queue.empty()) {
      auto [t, id] = queue.top();
      queue.pop();
      Core &c = cores[id];
      if (c.blocked != Blocked::No || t != c.t || c.done())
        continue;
      advance(id);
    }
    Timing timing;
    for (size_t i = 0; i < cores.size(); ++i) {
      const Core &c = cores[i];
      if (!c.done())
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            llvm::formatv("the timing replay stops with core {0} blocked at pc {1} (a {2} "
                          "that never completes)",
                          i, c.pc, isa::opcodeName(c.program->ops[c.pc].code)));
      CoreTiming ct = c.timing;
      ct.finishNs = c.t;
      for (auto [peer, ns] : c.rendezvousByPeer)
        if (ns > ct.slowestPeerNs) {
          ct.slowestPeer = peer;
          ct.slowestPeerNs = ns;
        }
      double mainBusy = 0;
      for (auto [node, ns] : c.busyByNode)
        if (ns > mainBusy) {
          ct.mainNode = node;
          mainBusy = ns;
        }
      timing.latencyNs = std::max(timing.latencyNs, c.roundEnds.empty() ? 0 : c.roundEnds[0]);
      timing.cores.push_back(ct);
    }
    // The steady state of the looping programs: the chip completes a round
    // when its last core does.
    if (rounds > 1) {
      std::vector<double> chipEnds(rounds, 0);
      for (const Core &c : cores)
        for (size_t r = 0; r < c.roundEnds.size(); ++r)
          chipEnds[r] = std::max(chipEnds[r], c.roundEnds[r]);
      // Over the later half: a pipeline's rounds lengthen for a while
      // after it fills.
      size_t from = (rounds - 1) / 2;
      timing.roundNs = (chipEnds.back() - chipEnds[from]) / double(rounds - 1 - from);
      for (const Core &c : cores)
        timing.roundCores.push_back(
            c.timingAtRoundEnds.empty()
                ? CoreTiming()
                : perRound(c.timingAtRoundEnds.back(), c.timingAtRoundEnds[from],
                           double(rounds - 1 - from)));
    }
    for (size_t n = 0; n < nodes.size(); ++n) {
      nodes[n].cores = nodeCores[n].size();
      for (auto [core, group] : nodeGroups[n])
        nodes[n].crossbars += program.cores[core].groups[group].crossbars;
    }
    timing.nodes = std::move(nodes);
    timing.slices = std::move(slices);
    timing.flows = std::move(flows);
    timing.messages = std::move(messages);
    timing.criticalPath = criticalPath();
    timing.energy = energy;
    timing.bound = bound();
    timing.energy.staticMw =
        double(cores.size()) * (arch.coreStaticPower + arch.localMemory.staticPower) +
        arch.globalMemory.staticPower;
    return timing;
  }

private:
  using Entry = std::pair<double, size_t>;

  /// The time between two of a core's round ends, per round.
  static CoreTiming perRound(const CoreTiming &later, const CoreTiming &earlier,
                             double rounds) {
    CoreTiming t;
    t.computeNs = (later.computeNs - earlier.computeNs) / rounds;
    t.transferNs = (later.transferNs - earlier.transferNs) / rounds;
    t.sendWaitNs = (later.sendWaitNs - earlier.sendWaitNs) / rounds;
    t.recvWaitNs = (later.recvWaitNs - earlier.recvWaitNs) / rounds;
    t.memoryWaitNs = (later.memoryWaitNs - earlier.memoryWaitNs) / rounds;
    t.eventWaitNs = (later.eventWaitNs - earlier.eventWaitNs) / rounds;
    return t;
  }

  /// The chain that ends when the core that finishes its first round last
  /// does.
  std::vector<PathStep> criticalPath() const {
    if (cores.empty())
      return {};
    size_t c = 0;
    auto firstEnd = [&](size_t i) {
      return cores[i].roundEnds.empty() ? 0 : cores[i].roundEnds.front();
    };
    for (size_t i = 1; i < cores.size(); ++i)
      if (firstEnd(i) > firstEnd(c))
        c = i;
    return pathBack(c, firstEnd(c));
  }

  /// Walks back from time `t` on core `c` to the start: a core's own work
  /// back to the last rendezvous it waited in, then the transfer, then the
  /// peer it waited for, from when that peer arrived.
  std::vector<PathStep> pathBack(size_t c, double t) const {
    std::vector<PathStep> path;
    // Work of core `core` in [from, to), one step per node it ran.
    auto work = [&](size_t core, double from, double to) {
      const auto &starts = cores[core].nodeStarts;
      auto it = std::upper_bound(starts.begin(), starts.end(), std::make_pair(to, INT32_MIN));
      while (to > from) {
        bool inNode = it != starts.begin();
        double begin = inNode ? std::max(from, std::prev(it)->first) : from;
        int32_t node = inNode ? std::prev(it)->second : -1;
        if (to > begin)
          path.push_back({int64_t(core), node, false, begin, to});
        to = begin;
        if (inNode)
          --it;
      }
    };
    std::vector<size_t> nextWait(cores.size());
    for (size_t i = 0; i < cores.size(); ++i)
      nextWait[i] = cores[i].waits.size();
    while (t > 0) {
      const std::vector<Core::Wait> &waits = cores[c].waits;
      size_t &k = nextWait[c];
      while (k > 0 && waits[k - 1].done > t)
        --k;
      if (k == 0 || waits[k - 1].done <= 0) {
        work(c, 0, t);
        break;
      }
      const Core::Wait &w = waits[--k];
      work(c, w.done, t);
      path.push_back({int64_t(c), -1, true, std::max(0.0, w.peerArrived), w.done});
      t = w.peerArrived;
      c = w.peer;
    }
    std::reverse(path.begin(), path.end());
    return path;
  }

  /// The bounds of docs/bound.md: sums over each core's instructions of
  /// what they take at the least, and the programs replayed without
  /// contention (a replay of its own).
  LatencyBound bound() const {
    LatencyBound b;
    for (size_t id = 0; id < cores.size(); ++id) {
      double work = 0, injection = 0;
      for (const Op &op : cores[id].program->ops) {
        work += leastNs(cores[id], id, op);
        injection += injectedNs(id, op);
        if (op.code == Opcode::Ld)
          b.globalMemoryNs += cost.globalReadNs(op.a);
        if (op.code == Opcode::St)
          b.globalMemoryNs += cost.globalWriteNs(op.a);
      }
      if (work > b.coreWorkNs) {
        b.coreWorkNs = work;
        b.workCore = id;
      }
      if (injection > b.injectionNs) {
        b.injectionNs = injection;
        b.injectionCore = id;
      }
    }
    if (contention) {
      Replay free(program, arch, nullptr, 0, 1, 0);
      free.contention = false;
      if (llvm::Expected<Timing> relaxed = free.run())
        b.chainNs = relaxed->latencyNs;
      else
        llvm::consumeError(relaxed.takeError());
    }
    return b;
  }

  /// The least time instruction `op` of core `id` takes in any run: its own
  /// work, its messages' flight and the memories' access times, with no wait
  /// for a peer, a switch or the global memory.
  double leastNs(const Core &c, size_t id, const Op &op) const {
    if (double ns = localNs(c, op); ns >= 0)
      return ns;
    switch (op.code) {
    case Opcode::Ld:
      return cost.loadNs(id, op.a) + transferIssueNs();
    case Opcode::St:
      return cost.storeNs(id, op.a) + transferIssueNs();
    case Opcode::Send:
      // Its ready message out, the answer back, its read of the data.
      return cost.transferSenderNs(id, op.b, op.a) + transferIssueNs();
    case Opcode::Recv:
      // Its answer to the sender's ready message (which may have come
      // before it), the sender's read, the data's flight and its write.
      return noc(id, op.b, 1) + cost.localReadNs(op.a) + noc(op.b, id, op.a) +
             cost.localWriteNs(op.a) + transferIssueNs();
    case Opcode::Sync:
    case Opcode::Wait:
      return arch.corePeriod;
    default:
      return 0;
    }
  }

  /// What instruction `op` of core `id` keeps that core's NoC switch busy
  /// for: the messages it sends through it.
  double injectedNs(size_t id, const Op &op) const {
    switch (op.code) {
    case Opcode::Ld:
      return noc(id, gm, 1);
    case Opcode::St:
      return noc(id, gm, op.a);
    case Opcode::Sync:
      return noc(id, op.b, 1);
    case Opcode::Send:
      return noc(id, op.b, 1) + noc(id, op.b, op.a);
    case Opcode::Recv:
      return noc(id, op.b, 1); // the answer to the sender's ready message
    default:
      return 0;
    }
  }

  void schedule(size_t id) { queue.push({cores[id].t, id}); }

  // What an instruction takes beyond its own work (measured on pimsim-nn:
  // 2 cycles for compute, 4 for transfers).
  double issueNs() const { return 2 * arch.corePeriod; }
  double transferIssueNs() const { return 4 * arch.corePeriod; }
  double noc(int64_t from, int64_t to, int64_t bytes) const {
    return cost.nocNs(from, to, bytes);
  }

  /// Time of an instruction that involves no other core, or -1.
  double localNs(const Core &c, const Op &op) const {
    switch (op.code) {
    case Opcode::Nop:
      return 0;
    case Opcode::Sldi:
    case Opcode::Sld:
    case Opcode::Sadd:
    case Opcode::Ssub:
    case Opcode::Smul:
    case Opcode::Saddi:
    case Opcode::Smuli:
    case Opcode::Setbw:
      return arch.corePeriod;
    case Opcode::Mvmul:
      return cost.mvmNs(c.program->groups[op.a].crossbars) + issueNs();
    case Opcode::Lldi:
      return cost.localWriteNs(op.b) + issueNs();
    case Opcode::Lmv:
      return cost.localReadNs(op.a) + cost.localWriteNs(op.a) + issueNs();
    default:
      if (int64_t inputs = vectorInputs(op.code))
        return cost.vectorNs(inputs, op.a) + issueNs();
      return -1;
    }
  }

  /// The node core `c` works on, when its energy and time are told per node
  /// (in its first round).
  NodeTiming *nodeOf(const Core &c) {
    bool known = c.node >= 0 && size_t(c.node) < nodes.size() && c.roundEnds.empty();
    return known ? &nodes[c.node] : nullptr;
  }

  /// Adds dynamic energy spent by core `c` in its first round, to the chip's
  /// and to its node's.
  void addEnergy(const Core &c, EnergyPart part, double pj) {
    static constexpr std::pair<double Energy::*, double NodeTiming::*> fields[] = {
        {&Energy::crossbarPj, &NodeTiming::crossbarPj},
        {&Energy::vectorPj, &NodeTiming::vectorPj},
        {&Energy::memoryPj, &NodeTiming::memoryPj},
        {&Energy::nocPj, &NodeTiming::nocPj}};
    if (!c.roundEnds.empty())
      return;
    auto [chip, node] = fields[static_cast<int>(part)];
    energy.*chip += pj;
    if (NodeTiming *n = nodeOf(c))
      n->*node += pj;
  }

  /// Adds the dynamic energy of an instruction that involves no other core,
  /// in its core's first round.
  void addLocalEnergy(const Core &c, const Op &op) {
    if (!c.roundEnds.empty())
      return;
    switch (op.code) {
    case Opcode::Mvmul: {
      int64_t crossbars = c.program->groups[op.a].crossbars;
      addEnergy(c, EnergyPart::Crossbar, cost.mvmEnergyPj(crossbars));
      energy.crossbarReads += crossbars;
      if (NodeTiming *n = nodeOf(c)) {
        n->crossbarReads += crossbars;
        nodeGroups[c.node].insert({c.id, op.a});
      }
      addEnergy(c, EnergyPart::Memory,
                cost.localAccessPj(cost.mvmReadBytes(), cost.mvmWriteBytes(crossbars)));
      return;
    }
    case Opcode::Lldi:
      addEnergy(c, EnergyPart::Memory, cost.localAccessPj(0, op.b));
      return;
    case Opcode::Lmv:
      addEnergy(c, EnergyPart::Memory, cost.localAccessPj(op.a, op.a));
      return;
    default:
      if (int64_t inputs = vectorInputs(op.code)) {
        addEnergy(c, EnergyPart::Vector, cost.vectorEnergyPj(op.a));
        addEnergy(c, EnergyPart::Memory,
                  inputs * cost.localAccessPj(op.a * arch.inputBytes(), 0) +
                      cost.localAccessPj(0, op.a * arch.outputBytes()));
      }
      return;
    }
  }

  bool tracing(const Core &c) const { return int64_t(c.roundEnds.size()) < traceRounds; }

  /// Adds [start, end) of `activity` to core `id`'s timeline, extending its
  /// last slice when that is the same work (or address loads) for the same
  /// node and ends where this starts.
  void record(size_t id, Activity activity, double start, double end) {
    const Core &c = cores[id];
    if (!tracing(c) || end <= start)
      return;
    std::vector<Slice> &line = slices[id];
    if (!line.empty()) {
      Slice &last = line.back();
      if (last.endNs == start && last.node == c.node && isCompute(activity) &&
          isCompute(last.activity)) {
        if (activity == Activity::Scalar) {
          ++last.scalars;
        } else if (last.activity == activity) {
          ++last.count;
        } else if (last.activity == Activity::Scalar) {
          last.activity = activity;
          last.scalars += last.count;
          last.count = 1;
        } else {
          line.push_back({activity, c.node, 1, 0, start, end});
          return;
        }
        last.endNs = end;
        return;
      }
    }
    line.push_back({activity, c.node, 1, 0, start, end});
  }

  /// The model node of core `c`'s instruction at its pc.
  void findNode(Core &c, size_t id) {
    if (!c.marks)
      return;
    while (c.nextMark < c.marks->size() && (*c.marks)[c.nextMark].first <= c.pc) {
      c.node = (*c.marks)[c.nextMark].second;
      c.nodeStarts.push_back({c.t, c.node});
      ++c.nextMark;
      if (c.node >= 0 && size_t(c.node) < nodeCores.size())
        nodeCores[c.node].insert(id);
    }
  }
  /// Charges [start, end) of core `c`, `busy` of it its own work, to its
  /// node; a node starts with its first crossbar or vector instruction, not
  /// with a transfer, load or fill done early.
  void charge(Core &c, double start, double end, double busy, bool computes = false) {
    if (c.node < 0 || size_t(c.node) >= nodes.size() || !c.roundEnds.empty())
      return;
    c.busyByNode[c.node] += busy;
    NodeTiming &n = nodes[c.node];
    if (computes)
      n.startNs = n.startNs < 0 ? start : std::min(n.startNs, start);
    n.endNs = std::max(n.endNs, end);
    n.busyNs += busy;
    n.waitNs += std::max(0.0, end - start - busy);
  }

  /// Runs core `id` from its clock until it blocks, finishes, or reaches an
  /// instruction that must wait for earlier cores to act first.
  void advance(size_t id) {
    Core &c = cores[id];
    const std::vector<Op> &ops = c.program->ops;
    while (c.pc < ops.size()) {
      const Op &op = ops[c.pc];
      findNode(c, id);
      if (double ns = localNs(c, op); ns >= 0) {
        isa::OpClass kind = isa::opcodeClass(op.code);
        charge(c, c.t, c.t + ns, ns,
               kind == isa::OpClass::Matrix || kind == isa::OpClass::Vector);
        addLocalEnergy(c, op);
        if (traceRounds > 0)
          record(id, localActivity(op.code), c.t, c.t + ns);
        c.t += ns;
        c.timing.computeNs += ns;
        ++c.timing.instructions;
        step(c);
        continue;
      }
      if (!queue.empty() && queue.top().first < c.t) {
        schedule(id);
        return;
      }
      ++c.timing.instructions;
      double issued = c.t, busyBefore = c.timing.computeNs + c.timing.transferNs;
      switch (op.code) {
      case Opcode::Ld:
        load(c, id, op.a);
        charge(c, issued, c.t, c.timing.computeNs + c.timing.transferNs - busyBefore);
        record(id, Activity::Load, issued, c.t);
        break;
      case Opcode::St:
        store(c, id, op.a);
        charge(c, issued, c.t, c.timing.computeNs + c.timing.transferNs - busyBefore);
        record(id, Activity::Store, issued, c.t);
        break;
      case Opcode::Sync:
        sync(c, id, op.b, op.rs2);
        charge(c, issued, c.t, c.t - issued);
        record(id, Activity::Sync, issued, c.t);
        break;
      case Opcode::Wait:
        if (!wait(c, op.rs2, op.a))
          return;
        break;
      case Opcode::Send:
      case Opcode::Recv:
        if (!rendezvous(id, op))
          return;
        break;
      default:
        break;
      }
      step(c);
    }
  }

  /// Moves past the instruction at pc; after the last one, the program
  /// starts again until it has run `rounds` times (pimsim-nn's throughput
  /// mode loops every core).
  void step(Core &c) {
    if (++c.pc < c.program->ops.size())
      return;
    c.roundEnds.push_back(c.t);
    c.timingAtRoundEnds.push_back(c.timing);
    if (int64_t(c.roundEnds.size()) < rounds) {
      c.pc = 0;
      c.nextMark = 0;
    }
  }

  /// Sends a message through `core`'s switch no earlier than `at`; returns
  /// when it has arrived.
  double message(Core &c, int64_t from, int64_t to, int64_t bytes, double at) {
    addEnergy(c, EnergyPart::Noc, cost.nocEnergyPj(from, to, bytes));
    double depart = contention ? std::max(at, c.switchFree) : at;
    c.timing.memoryWaitNs += depart - at;
    c.switchFree = depart + noc(from, to, bytes);
    if (tracing(c))
      messages.push_back({from, to, bytes, depart, c.switchFree});
    return c.switchFree;
  }

  void load(Core &c, int64_t id, int64_t bytes) {
    double issued = c.t;
    double arrive = message(c, id, gm, 1, c.t);
    double start = contention ? std::max(arrive, globalFree) : arrive;
    c.timing.memoryWaitNs += start - arrive;
    globalFree = start + cost.globalReadNs(bytes);
    addEnergy(c, EnergyPart::Memory, cost.globalAccessPj(bytes, 0) + cost.localAccessPj(0, bytes));
    c.t = globalFree + cost.localWriteNs(bytes) + transferIssueNs();
    c.timing.transferNs += c.t - issued - (start - arrive);
  }

  void store(Core &c, int64_t id, int64_t bytes) {
    double issued = c.t;
    double arrive = message(c, id, gm, bytes, c.t + cost.localReadNs(bytes));
    double start = contention ? std::max(arrive, globalFree) : arrive;
    c.timing.memoryWaitNs += start - arrive;
    globalFree = start + cost.globalWriteNs(bytes);
    addEnergy(c, EnergyPart::Memory, cost.localAccessPj(bytes, 0) + cost.globalAccessPj(0, bytes));
    // Its empty response costs nothing, as the data response of ld.
    c.t = globalFree + transferIssueNs();
    c.timing.transferNs += c.t - issued - (start - arrive);
  }

  void sync(Core &c, int64_t id, int64_t target, int64_t reg) {
    double arrival = message(c, id, target, 1, c.t);
    c.t += arch.corePeriod;
    c.timing.computeNs += arch.corePeriod;
    Core &other = cores[target];
    other.events[reg].push_back(arrival);
    if (other.blocked == Blocked::Wait && other.program->ops[other.pc].rs2 == reg) {
      other.blocked = Blocked::No;
      other.t = other.since;
      if (wait(other, reg, other.program->ops[other.pc].a)) {
        step(other);
        schedule(target);
      }
    }
  }

  /// Completes a wait for `count` events if they have been sent; else blocks.
  bool wait(Core &c, int64_t reg, int64_t count) {
    std::vector<double> &arrivals = c.events[reg];
    if (int64_t(arrivals.size()) < count) {
      c.blocked = Blocked::Wait;
      c.since = c.t;
      return false;
    }
    std::sort(arrivals.begin(), arrivals.end());
    double ready = count ? arrivals[count - 1] : c.t;
    arrivals.erase(arrivals.begin(), arrivals.begin() + count);
    double start = c.t;
    c.t = std::max(c.t, ready) + arch.corePeriod;
    c.timing.eventWaitNs += c.t - start - arch.corePeriod;
    charge(c, start, c.t, arch.corePeriod);
    record(c.id, Activity::EventWait, start, c.t);
    return true;
  }

  /// A send or recv of core `id`: blocks until the peer's matching one, then
  /// completes both.
  bool rendezvous(size_t id, const Op &op) {
    Core &c = cores[id];
    bool sending = op.code == Opcode::Send;
    int64_t peerId = op.b;
    Core &peer = cores[peerId];
    c.since = c.t;
    if (sending)
      c.readyArrives = message(c, id, peerId, 1, c.t);
    Blocked waitsFor = sending ? Blocked::Recv : Blocked::Send;
    if (peer.blocked != waitsFor || peer.partner != int64_t(id)) {
      c.blocked = sending ? Blocked::Send : Blocked::Recv;
      c.partner = peerId;
      return false;
    }
    size_t senderId = sending ? id : peerId, receiverId = sending ? peerId : id;
    Core &sender = cores[senderId], &receiver = cores[receiverId];
    int64_t bytes = op.a;
    // The receiver answers the sender's ready message once both are there;
    // the sender then reads its data and queues it on its switch.
    double answer = message(receiver, receiverId, senderId, 1,
                            std::max(receiver.since, sender.readyArrives));
    double read = answer + cost.localReadNs(bytes);
    double arrive = message(sender, senderId, receiverId, bytes, read);
    double senderDone = read + transferIssueNs();
    addEnergy(sender, EnergyPart::Memory, cost.localAccessPj(bytes, 0));
    addEnergy(receiver, EnergyPart::Memory, cost.localAccessPj(0, bytes));
    bool traced = tracing(sender) && tracing(receiver);
    double receiverDone = arrive + cost.localWriteNs(bytes) + transferIssueNs();
    auto account = [&](Core &core, int64_t peer, double done, double own) {
      double total = done - core.since;
      bool sends = &core == &sender;
      core.timing.transferNs += std::min(own, total);
      (sends ? core.timing.sendWaitNs : core.timing.recvWaitNs) += std::max(0.0, total - own);
      core.rendezvousByPeer[peer] += std::max(0.0, total - own);
      charge(core, core.since, done, std::min(own, total));
      if (tracing(core)) {
        double ownStart = done - std::min(own, total);
        record(core.id, sends ? Activity::SendWait : Activity::RecvWait, core.since, ownStart);
        // Its own part is a slice of its own even when it takes no time:
        // the flow starts or ends there.
        slices[core.id].push_back(
            {sends ? Activity::Send : Activity::Recv, core.node, 1, 0, ownStart, done});
      }
      core.t = done;
      core.blocked = Blocked::No;
    };
    // The side that came first waited for the other.
    bool senderFirst = sender.since < receiver.since;
    Core &early = senderFirst ? sender : receiver;
    early.waits.push_back({senderFirst ? senderDone : receiverDone,
                           int64_t(senderFirst ? receiverId : senderId),
                           (senderFirst ? receiver : sender).since});
    account(sender, receiverId, senderDone,
            noc(senderId, receiverId, 1) + cost.localReadNs(bytes));
    account(receiver, senderId, receiverDone,
            noc(senderId, receiverId, bytes) + cost.localWriteNs(bytes));
    if (traced)
      flows.push_back({int64_t(senderId), int64_t(receiverId), slices[senderId].size() - 1,
                       slices[receiverId].size() - 1, bytes});
    // The peer was blocked at its instruction: it moves past it.
    step(peer);
    schedule(peerId);
    return true;
  }

  const LoadedProgram &program;
  const Arch &arch;
  CostModel cost;
  int64_t gm;
  double globalFree = 0;
  Energy energy;
  std::vector<Core> cores;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  const std::vector<NodeMarks> *marks;
  std::vector<NodeTiming> nodes;
  std::vector<std::set<size_t>> nodeCores;
  std::vector<std::set<std::pair<size_t, int64_t>>> nodeGroups; // (core, array group)
  int64_t rounds;
  int64_t traceRounds;
  /// Whether switches and the global memory serve one request at a time
  /// (off for the bound's replay).
  bool contention = true;
  std::vector<std::vector<Slice>> slices;
  std::vector<Flow> flows;
  std::vector<Message> messages;
};

} // namespace

llvm::Expected<Timing> pimc::sim::replayTiming(llvm::StringRef directory, const Arch &arch,
                                               const std::vector<NodeMarks> *marks,
                                               size_t nodeCount, int64_t rounds,
                                               int64_t traceRounds) {
  Manifest manifest;
  llvm::Expected<LoadedProgram> program = loadProgram(directory, manifest);
  if (!program)
    return program.takeError();
  if (int64_t(program->cores.size()) > arch.coreCount)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   llvm::formatv("the program has {0} cores, the chip {1}",
                                                 program->cores.size(), arch.coreCount));
  if (rounds < 1)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the timing replay needs at least one round");
  return Replay(*program, arch, marks, nodeCount, rounds, traceRounds).run();
}

llvm::StringRef pimc::sim::activityName(Activity activity) {
  switch (activity) {
  case Activity::Matrix:
    return "mvm";
  case Activity::Vector:
    return "vector";
  case Activity::Scalar:
    return "scalar";
  case Activity::Copy:
    return "copy";
  case Activity::Load:
    return "ld";
  case Activity::Store:
    return "st";
  case Activity::Send:
    return "send";
  case Activity::Recv:
    return "recv";
  case Activity::SendWait:
    return "wait to send";
  case Activity::RecvWait:
    return "wait to receive";
  case Activity::EventWait:
    return "wait for event";
  case Activity::Sync:
    return "sync";
  }
  return "?";
}
