//===- IsaTest.cpp - .pim and JSON encodings ------------------------------===//

#include "pimc/Target/Pimsim/Isa.h"

#include "gtest/gtest.h"

#include <array>

using namespace pimc::isa;

namespace {
std::array<uint8_t, kPimRecordBytes> encode(const Instruction &inst) {
  std::array<uint8_t, kPimRecordBytes> record;
  encodeRecord(inst, record.data());
  return record;
}

// The records of the target spec's worked example (section 11, xxd).
TEST(Isa, MatchesTheSpecExampleBytes) {
  using Bytes = std::array<uint8_t, kPimRecordBytes>;
  EXPECT_EQ(encode(Instruction::setbw(8, 8)),
            (Bytes{8, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(encode(Instruction::sldi(1, 1024)),
            (Bytes{1, 1, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(encode(Instruction::mvmul(1, 0, 8, 0)),
            (Bytes{9, 1, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(encode(Instruction::send(1, 1, 128)),
            (Bytes{0x1d, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0}));
  EXPECT_EQ(encode(Instruction::recv(0, 0, 128)),
            (Bytes{0x1e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0}));
  EXPECT_EQ(encode(Instruction::vector(Opcode::Vrelu, 1, 0, 0, 128)),
            (Bytes{0x12, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0}));
  uint8_t header[kPimHeaderBytes];
  encodeHeader(5, header);
  EXPECT_EQ(std::vector<uint8_t>(header, header + kPimHeaderBytes),
            (std::vector<uint8_t>{'P', 'I', 'M', 'B', 1, 0, 0, 0, 5, 0, 0, 0}));
}

std::vector<Instruction> everyKind() {
  std::vector<Instruction> list = {
      Instruction::setbw(8, 16), Instruction::sldi(3, -7),
      Instruction::saddi(4, 3, 100), Instruction::mvmul(2, 1, 8, 5),
      Instruction::vector(Opcode::Vvadd, 1, 2, 3, 64),
      Instruction::vector(Opcode::Vmv, 1, 2, 3, 17),
      Instruction::vector(Opcode::Vsigm, 4, 5, 0, 9),
      Instruction::transfer(Opcode::Ld, 2, 30, 784),
      Instruction::transfer(Opcode::St, 30, 2, 10),
      Instruction::send(6, 143, 1024), Instruction::recv(7, 12, 512)};
  Instruction sync;
  sync.op = Opcode::Sync;
  sync.core = 3;
  sync.eventRegister = 2;
  Instruction wait;
  wait.op = Opcode::Wait;
  wait.eventRegister = 2;
  wait.waitValue = 4;
  list.push_back(sync);
  list.push_back(wait);
  return list;
}

TEST(Isa, RecordsRoundTrip) {
  for (const Instruction &inst : everyKind()) {
    auto record = encode(inst);
    EXPECT_EQ(decodeRecord(record.data()), inst) << opcodeName(inst.op).str();
  }
  // lmv has no `size` in the binary form.
  Instruction lmv = Instruction::transfer(Opcode::Lmv, 1, 2, 48);
  auto record = encode(lmv);
  Instruction decoded = decodeRecord(record.data());
  EXPECT_EQ(decoded.len, 48);
  EXPECT_EQ(decoded.size, 0);
}

TEST(Isa, JsonRoundTrips) {
  for (const Instruction &inst : everyKind()) {
    llvm::Expected<Instruction> back = fromJson(llvm::json::Value(toJson(inst)));
    ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
    EXPECT_EQ(*back, inst) << opcodeName(inst.op).str();
  }
  // The spec's JSON form of send sets rd and rs1 to the same register.
  llvm::json::Object send = toJson(Instruction::send(5, 1, 128));
  EXPECT_EQ(send.getInteger("rd"), 5);
  EXPECT_EQ(send.getInteger("rs1"), 5);
  EXPECT_FALSE(static_cast<bool>(
      fromJson(llvm::json::Object{{"op", "vsomething"}})));
}

TEST(Isa, OpcodeNumbersSkipTwentyOne) {
  EXPECT_EQ(static_cast<int>(opcodeFromName("vmv").value()), 22);
  EXPECT_EQ(static_cast<int>(opcodeFromName("sync").value()), 32);
  EXPECT_EQ(opcodeClass(Opcode::Setbw), OpClass::Matrix);
  EXPECT_EQ(opcodeClass(Opcode::Saddi), OpClass::Scalar);
  EXPECT_EQ(opcodeClass(Opcode::Wait), OpClass::Transfer);
  EXPECT_FALSE(isOpcode(33));
}
} // namespace
