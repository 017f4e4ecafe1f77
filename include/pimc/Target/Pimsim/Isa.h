//===- Isa.h - the pimsim-nn instruction set --------------------*- C++ -*-===//
//
// Instructions as pimsim-nn reads them: the opcode numbers of `.pim` records
// (note the gap at 21), the fields each opcode uses, and the `.pim` and JSON
// encodings (target spec sections 3-5).
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_TARGET_PIMSIM_ISA_H
#define PIMC_TARGET_PIMSIM_ISA_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace pimc {
class OutputFile;
} // namespace pimc

namespace pimc::isa {

enum class Opcode : uint8_t {
  Nop = 0, Sldi = 1, Sld = 2, Sadd = 3, Ssub = 4, Smul = 5, Saddi = 6,
  Smuli = 7, Setbw = 8, Mvmul = 9, Vvadd = 10, Vvsub = 11, Vvmul = 12,
  Vvdmul = 13, Vvmax = 14, Vvsll = 15, Vvsra = 16, Vavg = 17, Vrelu = 18,
  Vtanh = 19, Vsigm = 20, Vsoftmax = 21, Vmv = 22, Vrsu = 23, Vrsl = 24,
  Ld = 25, St = 26, Lldi = 27, Lmv = 28, Send = 29, Recv = 30, Wait = 31,
  Sync = 32,
};

enum class OpClass { Nop, Scalar, Matrix, Vector, Transfer };

/// The lowercase JSON name of an opcode ("mvmul").
llvm::StringRef opcodeName(Opcode op);
std::optional<Opcode> opcodeFromName(llvm::StringRef name);
/// Whether `value` is an opcode pimsim-nn defines (0..32).
bool isOpcode(int64_t value);
OpClass opcodeClass(Opcode op);

/// One instruction with every field any opcode uses; unused fields are 0.
struct Instruction {
  Opcode op = Opcode::Nop;
  int32_t rd = 0, rs1 = 0, rs2 = 0;
  int32_t imm = 0;
  int32_t len = 0, size = 0;          // elements (vector) / bytes (transfer)
  int32_t offsetSelect = 0, offsetValue = 0;
  int32_t ibiw = 0, obiw = 0;         // setbw
  int32_t mbiw = 0, relu = 0, group = 0; // mvmul
  int32_t core = 0;                   // send/recv/sync
  int32_t eventRegister = 0, waitValue = 0; // wait/sync

  bool operator==(const Instruction &other) const;

  static Instruction setbw(int32_t ibiw, int32_t obiw);
  static Instruction sldi(int32_t rd, int32_t imm);
  static Instruction saddi(int32_t rd, int32_t rs1, int32_t imm);
  static Instruction mvmul(int32_t rd, int32_t rs1, int32_t mbiw, int32_t group);
  static Instruction vector(Opcode op, int32_t rd, int32_t rs1, int32_t rs2,
                            int32_t len);
  static Instruction transfer(Opcode op, int32_t rd, int32_t rs1, int32_t bytes);
  static Instruction send(int32_t reg, int32_t core, int32_t bytes);
  static Instruction recv(int32_t rd, int32_t core, int32_t bytes);
};

constexpr size_t kPimHeaderBytes = 12, kPimRecordBytes = 20;

/// The 20-byte `.pim` record of an instruction.
void encodeRecord(const Instruction &inst, uint8_t record[kPimRecordBytes]);
Instruction decodeRecord(const uint8_t record[kPimRecordBytes]);
void encodeHeader(uint32_t count, uint8_t header[kPimHeaderBytes]);

/// The JSON object pimsim-nn reads for an instruction.
llvm::json::Object toJson(const Instruction &inst);
/// Reads an instruction object; missing fields are 0, as in pimsim-nn.
llvm::Expected<Instruction> fromJson(const llvm::json::Value &value);

/// Reads a `core_<id>.pim` or `core_<id>.json` program.
llvm::Expected<std::vector<Instruction>> readProgram(llvm::StringRef path);

/// Calls `size` with the instruction count of a program file, then `each`
/// for every instruction in order. A `.pim` file is decoded one record at a
/// time, so that a large program never exists in memory all at once.
llvm::Error visitProgram(
    llvm::StringRef path, llvm::function_ref<void(size_t count)> size,
    llvm::function_ref<llvm::Error(size_t pc, const Instruction &inst)> each);

/// Streams one core's program to `.pim` (and, optionally, `.json`) files, so
/// that the whole program never has to be held in memory.
class ProgramWriter {
public:
  static llvm::Expected<std::unique_ptr<ProgramWriter>>
  create(llvm::StringRef pimPath, llvm::StringRef jsonPath /* "" for none */);
  ~ProgramWriter();
  void write(const Instruction &inst);
  /// Patches the record count into the header and closes the files.
  llvm::Error finish();
  uint64_t count() const { return written; }

private:
  ProgramWriter() = default;
  std::unique_ptr<OutputFile> pim, json;
  uint64_t written = 0;
};

} // namespace pimc::isa

#endif // PIMC_TARGET_PIMSIM_ISA_H
