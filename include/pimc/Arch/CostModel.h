//===- CostModel.h - pimsim-nn timing and energy ----------------*- C++ -*-===//
//
// The latency and energy of each instruction class, from the architecture
// file, following the simulator's timing model (target spec section 6). All
// times are in ns and energies in pJ.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_ARCH_COSTMODEL_H
#define PIMC_ARCH_COSTMODEL_H

#include "pimc/Arch/Arch.h"

namespace pimc {

class CostModel {
public:
  explicit CostModel(const Arch &arch) : arch(arch) {}

  const Arch &getArch() const { return arch; }

  /// Crossbar compute time of one mvmul, without its memory traffic.
  double mvmComputeNs() const;
  /// One mvmul on a group of `crossbars` crossbars: the local read of the
  /// input (inflated x8 as the simulator does), the compute and the write.
  double mvmNs(int64_t crossbars) const;
  /// The crossbar energy of one mvmul (its memory accesses not included).
  double mvmEnergyPj(int64_t crossbars) const;
  /// The bytes one mvmul reads and writes in local memory.
  int64_t mvmReadBytes() const;
  int64_t mvmWriteBytes(int64_t crossbars) const;

  double localReadNs(int64_t bytes) const;
  double localWriteNs(int64_t bytes) const;
  /// When the programs loop: what an input of `bytes` from other cores
  /// costs the core that takes it, every round.
  double loopInputNs(int64_t bytes) const;
  double globalReadNs(int64_t bytes) const;
  double globalWriteNs(int64_t bytes) const;
  /// The dynamic energy of reading and writing so many bytes.
  double localAccessPj(int64_t readBytes, int64_t writeBytes) const;
  double globalAccessPj(int64_t readBytes, int64_t writeBytes) const;

  /// A vector instruction reading `inputs` operands of `len` elements.
  double vectorNs(int64_t inputs, int64_t len) const;
  double vectorEnergyPj(int64_t len) const;

  /// Flits of a message of `bytes` bytes.
  int64_t flits(int64_t bytes) const;
  /// Time a message of `bytes` spends on the NoC from node `from` to `to`
  /// (the global memory is node arch.globalNode()).
  double nocNs(int64_t from, int64_t to, int64_t bytes) const;
  double nocEnergyPj(int64_t from, int64_t to, int64_t bytes) const;

  /// A send/recv pair: the rendezvous, the read at the sender, the flits and
  /// the write at the receiver.
  double transferNs(int64_t from, int64_t to, int64_t bytes) const;
  /// The sender's part of it: the rendezvous and the read of its data.
  double transferSenderNs(int64_t from, int64_t to, int64_t bytes) const;
  /// ld of `bytes` from global memory into the local memory of `core`.
  double loadNs(int64_t core, int64_t bytes) const;
  /// st of `bytes` from the local memory of `core` to global memory.
  double storeNs(int64_t core, int64_t bytes) const;

private:
  const Arch &arch;
};

} // namespace pimc

#endif // PIMC_ARCH_COSTMODEL_H
