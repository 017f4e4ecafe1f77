//===- Machine.h - the functional simulator's loaded program ----*- C++ -*-===//
//
// Internal to lib/Simulator. Simulator.cpp loads and checks an artifact
// directory into a LoadedProgram; Machine.cpp executes it. Everything the
// loader can check once (opcodes, register indices, widths, core ids, array
// groups) is checked there, so the interpreter only checks addresses, which
// live in registers.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_LIB_SIMULATOR_MACHINE_H
#define PIMC_LIB_SIMULATOR_MACHINE_H

#include "pimc/Simulator/Simulator.h"
#include "pimc/Target/Pimsim/Artifacts.h"
#include "pimc/Target/Pimsim/Isa.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace pimc::sim::detail {

/// An instruction as the interpreter runs it (12 bytes, so that programs of
/// tens of millions of instructions stay small). Field use per opcode:
///   sldi/saddi/smuli   rd, rs1, a = imm        sadd/ssub/smul  rd, rs1, rs2
///   setbw              a = ibiw, b = obiw      mvmul   rd, rs1, a = group, b = relu
///   vector             rd, rs1, rs2, a = len   ld/st   rd, rs1, a = size
///   lldi               rd, a = imm, b = len    lmv     rd, rs1, a = len
///   send/recv          rd, a = size, b = core  wait    rs2 = event register, a = value
///   sync               rs2 = event register, b = core
struct Op {
  isa::Opcode code = isa::Opcode::Nop;
  uint8_t rd = 0, rs1 = 0, rs2 = 0;
  int32_t a = 0, b = 0;
};

/// The instruction `op` was lowered from (for messages); `weightBits` is the
/// mbiw every mvmul was checked to carry.
isa::Instruction toInstruction(const Op &op, int64_t weightBits);
/// "vvadd rd=1 rs1=2 rs2=3 len=64": the fields the opcode uses.
std::string describe(const isa::Instruction &inst);

struct Group {
  int64_t crossbars = 0, rows = 0, cols = 0;
  const float *weights = nullptr; // rows x cols, row-major
};

struct CoreProgram {
  int64_t id = 0;
  std::string path;
  std::vector<Op> ops;
  std::vector<Group> groups;
};

struct Geometry {
  int64_t elementBytes = 1;
  int64_t localBytes = 0;
  int64_t globalBytes = 0;
  int64_t outputsPerCrossbar = 0;
  int64_t xbarRows = 0;
  int64_t weightBits = 0;
};

/// A zero-filled float array from calloc, so that untouched pages of large
/// memories are never committed.
class Memory {
public:
  bool allocate(size_t count) {
    data.reset(static_cast<float *>(std::calloc(count ? count : 1, sizeof(float))));
    size = count;
    return data != nullptr;
  }
  float *get() const { return data.get(); }
  size_t count() const { return size; }

private:
  struct Free {
    void operator()(float *p) const { std::free(p); }
  };
  std::unique_ptr<float, Free> data;
  size_t size = 0;
};

struct LoadedProgram {
  Geometry geometry;
  std::vector<CoreProgram> cores;              // core_cnt of config.json, by id
  std::unique_ptr<llvm::MemoryBuffer> weights; // weights.bin, which groups point into
};

/// Reads and checks the artifacts in `directory` (and its `manifest`).
llvm::Expected<LoadedProgram> loadProgram(llvm::StringRef directory, Manifest &manifest);

/// Executes every core until all finish; `global` holds
/// geometry.globalBytes / elementBytes slots. Fills the statistics of
/// `result`.
llvm::Error execute(const LoadedProgram &program, Memory &global, const Options &options,
                    Result &result);

} // namespace pimc::sim::detail

#endif // PIMC_LIB_SIMULATOR_MACHINE_H
