//===- CostModel.cpp - pimsim-nn timing and energy ------------------------===//

#include "pimc/Arch/CostModel.h"

#include <algorithm>
#include <cmath>

using namespace pimc;

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

double CostModel::mvmComputeNs() const {
  const MatrixConfig &m = arch.matrix;
  // The simulator's "ceiling" division truncates; so do these.
  int64_t inputTimes = arch.inputBits / m.dacResolution;
  int64_t dacTimes = m.xbarRows / m.dacCount;
  int64_t adcTimes = m.xbarCols / m.adcCount;
  int64_t front = m.dacLatencyCycle +
                  static_cast<int64_t>(std::ceil(m.xbarLatency / m.period)) +
                  m.sampleHoldLatencyCycle;
  int64_t tail = m.shiftAdderLatencyCycle + m.outputBufferLatencyCycle;
  int64_t back = m.adcLatencyCycle + tail +
                 (adcTimes - 1) * std::max(m.adcLatencyCycle, tail);
  int64_t steps = inputTimes * dacTimes;
  int64_t cycles = m.pipelineMode
                       ? front + back + (steps - 1) * std::max(front, back)
                       : (front + back) * steps;
  return cycles * m.period;
}

int64_t CostModel::mvmReadBytes() const { return arch.matrix.xbarRows * arch.inputBytes() * 8; }

int64_t CostModel::mvmWriteBytes(int64_t crossbars) const {
  return arch.outputsPerCrossbar() * crossbars * arch.outputBytes();
}

double CostModel::mvmNs(int64_t crossbars) const {
  return localReadNs(mvmReadBytes()) + mvmComputeNs() + localWriteNs(mvmWriteBytes(crossbars));
}

double CostModel::mvmEnergyPj(int64_t crossbars) const {
  const MatrixConfig &m = arch.matrix;
  int64_t inputTimes = arch.inputBits / m.dacResolution;
  int64_t dacTimes = m.xbarRows / m.dacCount;
  int64_t adcTimes = m.xbarCols / m.adcCount;
  double frontE = m.period * (m.dacDynamicPower * m.dacLatencyCycle * m.dacCount +
                              m.sampleHoldDynamicPower *
                                  m.sampleHoldLatencyCycle * m.xbarCols) +
                  m.xbarReadPower * m.xbarLatency;
  double backE = m.period * (m.adcDynamicPower * m.adcLatencyCycle * m.adcCount +
                             m.shiftAdderDynamicPower * m.shiftAdderLatencyCycle +
                             m.outputBufferDynamicPower *
                                 m.outputBufferLatencyCycle);
  return crossbars * inputTimes * dacTimes * (frontE + adcTimes * backE);
}

static double access(const MemoryConfig &memory, int64_t bytes, int64_t cycles) {
  return ceilDiv(bytes, memory.dataWidth) * cycles * memory.period;
}

double CostModel::localReadNs(int64_t bytes) const {
  return access(arch.localMemory, bytes, arch.localMemory.readLatencyCycle);
}
/// A core spends as much on an input it receives as on this many local
/// writes of it: the receive's write, the read and write of the copy into
/// place (a convolution's padded input), halo rows again. The compiler's
/// throughput planning leaves it out of the instruction costs (the transfers
/// and copies do not exist yet). Of 1 to 12, 4 was best on the benchmark
/// models, both for planning bands and for sharing cores among stages.
constexpr double kLoopInputWrites = 4;

double CostModel::loopInputNs(int64_t bytes) const {
  return kLoopInputWrites * localWriteNs(bytes);
}

double CostModel::localWriteNs(int64_t bytes) const {
  return access(arch.localMemory, bytes, arch.localMemory.writeLatencyCycle);
}
double CostModel::globalReadNs(int64_t bytes) const {
  return access(arch.globalMemory, bytes, arch.globalMemory.readLatencyCycle);
}
double CostModel::globalWriteNs(int64_t bytes) const {
  return access(arch.globalMemory, bytes, arch.globalMemory.writeLatencyCycle);
}

static double accessPj(const MemoryConfig &memory, int64_t readBytes, int64_t writeBytes) {
  return ceilDiv(readBytes, memory.dataWidth) * memory.readDynamicEnergy +
         ceilDiv(writeBytes, memory.dataWidth) * memory.writeDynamicEnergy;
}

double CostModel::localAccessPj(int64_t readBytes, int64_t writeBytes) const {
  return accessPj(arch.localMemory, readBytes, writeBytes);
}
double CostModel::globalAccessPj(int64_t readBytes, int64_t writeBytes) const {
  return accessPj(arch.globalMemory, readBytes, writeBytes);
}

double CostModel::vectorNs(int64_t inputs, int64_t len) const {
  int64_t inBytes = len * arch.inputBytes();
  return inputs * localReadNs(inBytes) +
         ceilDiv(len, arch.vectorWidth) * arch.vectorLatencyCycle +
         localWriteNs(len * arch.outputBytes());
}

double CostModel::vectorEnergyPj(int64_t len) const {
  return ceilDiv(len, arch.vectorWidth) * arch.vectorDynamicEnergy;
}

int64_t CostModel::flits(int64_t bytes) const {
  return ceilDiv(std::max<int64_t>(bytes, 1), arch.busWidth);
}

double CostModel::nocNs(int64_t from, int64_t to, int64_t bytes) const {
  return std::floor(flits(bytes) * arch.nocLatencyNs(from, to));
}

double CostModel::nocEnergyPj(int64_t from, int64_t to, int64_t bytes) const {
  return flits(bytes) * arch.nocEnergyPj(from, to);
}

double CostModel::transferNs(int64_t from, int64_t to, int64_t bytes) const {
  return transferSenderNs(from, to, bytes) + nocNs(from, to, bytes) + localWriteNs(bytes);
}

double CostModel::transferSenderNs(int64_t from, int64_t to, int64_t bytes) const {
  return nocNs(from, to, 1) + nocNs(to, from, 1) + localReadNs(bytes);
}

double CostModel::loadNs(int64_t core, int64_t bytes) const {
  return nocNs(core, arch.globalNode(), 1) + globalReadNs(bytes) +
         localWriteNs(bytes);
}

double CostModel::storeNs(int64_t core, int64_t bytes) const {
  return localReadNs(bytes) + nocNs(core, arch.globalNode(), bytes) +
         globalWriteNs(bytes);
}
