//===- Timing.h - when a compiled program finishes on the chip --*- C++ -*-===//
//
// Replays a compiled program directory with pimsim-nn's timing model (target
// spec, section 6): every core issues its instructions in order, one at a
// time (rob_size 1); local and global memory accesses, vector and crossbar
// work take what the architecture file says; a send waits for its receiver
// (the rendezvous of ready messages), each core's NoC switch carries one
// message at a time and the global memory serves one request at a time. It
// computes no values, so it needs no inputs.
//
// The replay tells when each core finishes and where its time went, which
// is what the report uses to say why a program is fast or slow.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_SIMULATOR_TIMING_H
#define PIMC_SIMULATOR_TIMING_H

#include "pimc/Arch/Arch.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace pimc::sim {

/// Where one core's time went, in ns.
struct CoreTiming {
  double finishNs = 0;
  double computeNs = 0;    // crossbar, vector, scalar and local copies
  double transferNs = 0;   // its own part of ld, st, send and recv
  double sendWaitNs = 0;   // blocked in send until the receiver is there
  double recvWaitNs = 0;   // blocked in recv until the sender is there
  double memoryWaitNs = 0; // queued for the global memory or its NoC switch
  double eventWaitNs = 0;  // blocked in wait
  uint64_t instructions = 0;
  /// The peer this core waited for longest in rendezvous, and how long.
  int64_t slowestPeer = -1;
  double slowestPeerNs = 0;
  /// The model node it spent most of its own time on in its first round.
  int32_t mainNode = -1;
  double rendezvousNs() const { return sendWaitNs + recvWaitNs; }
  double busyNs() const { return computeNs + transferNs; }
};

/// When the instructions of one model node ran, on all cores together, and
/// the dynamic energy they took in the first round.
struct NodeTiming {
  double startNs = -1, endNs = 0; // its first compute, its last completion
  double busyNs = 0;              // its instructions' own time
  double waitNs = 0;              // blocked in its transfers and waits
  int64_t cores = 0;
  int64_t crossbars = 0;      // of the array groups its mvmuls read
  int64_t crossbarReads = 0;  // crossbars read, summed over its mvmuls
  double crossbarPj = 0, vectorPj = 0, memoryPj = 0, nocPj = 0;
  double dynamicPj() const { return crossbarPj + vectorPj + memoryPj + nocPj; }
};

/// What a core does in a stretch of its timeline.
enum class Activity : uint8_t {
  Matrix,    // mvmul
  Vector,    // vector unit
  Scalar,    // sldi, setbw and the other scalar instructions
  Copy,      // lmv, lldi
  Load,      // ld, queueing for the global memory included
  Store,     // st, likewise
  Send,      // its own part of a send
  Recv,      // its own part of a recv
  SendWait,  // blocked in send until the receiver is there
  RecvWait,  // blocked in recv until the sender is there
  EventWait, // wait
  Sync,      // sync
};
llvm::StringRef activityName(Activity activity);

/// A stretch [startNs, endNs) of one core's timeline: `count` instructions
/// of one activity for model node `node` (-1 when unknown), one after the
/// other. Scalar instructions between them (address loads) are folded in
/// and counted in `scalars`.
struct Slice {
  Activity activity;
  int32_t node = -1;
  int32_t count = 1, scalars = 0;
  double startNs = 0, endNs = 0;
};

/// A completed send/recv pair: the sender's and the receiver's slices of
/// its own part.
struct Flow {
  int64_t sender, receiver;
  size_t sendSlice, recvSlice; // indexes into Timing::slices[sender / receiver]
  int64_t bytes;
};

/// A message on the NoC: data, a rendezvous' ready message or answer, or a
/// global-memory request (to or from node coreCount).
struct Message {
  int64_t from, to, bytes;
  double departNs, arriveNs;
};

/// A stretch of the critical path: core `core` working on model node
/// `node` (-1 when unknown), or waiting for a transfer to complete.
struct PathStep {
  int64_t core = 0;
  int32_t node = -1;
  bool transfer = false;
  double startNs = 0, endNs = 0;
};

/// The chip's energy in the first round (one inference), as pimsim-nn adds
/// it up, in pJ. The static part depends on how long the chip runs, so it is
/// a power here. Per-instruction fetch, decode and register-file energies
/// are not modelled (the reference chips set none).
struct Energy {
  double crossbarPj = 0; // mvmul: DACs, crossbar reads and ADCs
  int64_t crossbarReads = 0; // crossbars read, summed over the mvmuls
  double vectorPj = 0;
  double memoryPj = 0; // local and global memory accesses
  double nocPj = 0;    // the flits of every message
  double staticMw = 0; // the cores' units and memories, and the global memory
  double dynamicPj() const { return crossbarPj + vectorPj + memoryPj + nocPj; }
};

/// Times no run of the same programs can beat under the timing model, and
/// why (docs/bound.md derives each).
struct LatencyBound {
  /// The least time of the busiest core's own instructions: each takes at
  /// least its own work, with no wait for a peer, the NoC or the memory.
  double coreWorkNs = 0;
  int64_t workCore = -1;
  /// The busiest NoC switch: a core's switch sends one message at a time.
  double injectionNs = 0;
  int64_t injectionCore = -1;
  /// The global memory serves one request at a time.
  double globalMemoryNs = 0;
  /// The programs as ordered, with no contention for a switch or the
  /// global memory: each instruction waits only for the one before it on
  /// its core and, for a transfer, for its peer.
  double chainNs = 0;
  /// What bounds a round of looping programs: each core runs its program
  /// once a round, whatever the order of its instructions.
  double roundNs() const { return std::max({coreWorkNs, injectionNs, globalMemoryNs}); }
  /// What bounds one inference.
  double latencyNs() const { return std::max(roundNs(), chainNs); }
};

struct Timing {
  double latencyNs = 0; // when the last core finishes its first round: one inference
  /// The chain of work and transfers that ends when the last core does, in
  /// time order (for one round): where a core waited for a peer, the chain
  /// goes on in that peer, up to its arrival.
  std::vector<PathStep> criticalPath;
  /// With several rounds: the time between two rounds of the whole chip in
  /// the steady state (1 / throughput), over the later half of the rounds.
  double roundNs = 0;
  /// With several rounds: where each core's time goes in one round of the
  /// steady state, averaged over the same rounds (finishNs and instructions
  /// are left 0). The busiest core bounds the round; the others' waits say
  /// whether a later stage holds them up (send) or an earlier one starves
  /// them (recv).
  std::vector<CoreTiming> roundCores;
  std::vector<CoreTiming> cores;
  std::vector<NodeTiming> nodes; // by node index, when marks are given
  Energy energy;
  LatencyBound bound;
  /// With ReplayOptions::traceRounds: every core's timeline, its transfers
  /// and the NoC's messages in those first rounds.
  std::vector<std::vector<Slice>> slices; // by core
  std::vector<Flow> flows;
  std::vector<Message> messages;
};

/// Where each core's instructions of one model node begin: (first pc, node
/// index) pairs in pc order.
using NodeMarks = std::vector<std::pair<uint64_t, int32_t>>;

/// Replays the program in `directory` on `arch` for one inference (pimsim-nn's
/// latency mode), or with every core looping its program `rounds` times (its
/// throughput mode). With `marks` (one list per core, for `nodeCount` nodes),
/// the time and energy are also told per node (give them for one round
/// only). With `traceRounds`, the timelines of that many first rounds are
/// kept too.
llvm::Expected<Timing> replayTiming(llvm::StringRef directory, const Arch &arch,
                                    const std::vector<NodeMarks> *marks = nullptr,
                                    size_t nodeCount = 0, int64_t rounds = 1,
                                    int64_t traceRounds = 0);

} // namespace pimc::sim

#endif // PIMC_SIMULATOR_TIMING_H
