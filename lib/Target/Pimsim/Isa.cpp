//===- Isa.cpp - the pimsim-nn instruction set ----------------------------===//

#include "pimc/Target/Pimsim/Isa.h"
#include "pimc/Support/InputLimits.h"
#include "pimc/Target/Pimsim/Artifacts.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace pimc::isa;

static const char *const kNames[] = {
    "nop",   "sldi",  "sld",   "sadd",  "ssub",  "smul",     "saddi", "smuli",
    "setbw", "mvmul", "vvadd", "vvsub", "vvmul", "vvdmul",   "vvmax", "vvsll",
    "vvsra", "vavg",  "vrelu", "vtanh", "vsigm", "vsoftmax", "vmv",   "vrsu",
    "vrsl",  "ld",    "st",    "lldi",  "lmv",   "send",     "recv",  "wait",
    "sync"};

llvm::StringRef pimc::isa::opcodeName(Opcode op) {
  return kNames[static_cast<unsigned>(op)];
}

std::optional<Opcode> pimc::isa::opcodeFromName(llvm::StringRef name) {
  for (unsigned i = 0; i < std::size(kNames); ++i)
    if (name == kNames[i])
      return static_cast<Opcode>(i);
  return std::nullopt;
}

bool pimc::isa::isOpcode(int64_t value) { return value >= 0 && value <= 32; }

OpClass pimc::isa::opcodeClass(Opcode op) {
  unsigned code = static_cast<unsigned>(op);
  if (code == 0)
    return OpClass::Nop;
  if (code <= 7)
    return OpClass::Scalar;
  if (code <= 9)
    return OpClass::Matrix;
  if (code <= 24)
    return OpClass::Vector;
  return OpClass::Transfer;
}

bool Instruction::operator==(const Instruction &o) const {
  return op == o.op && rd == o.rd && rs1 == o.rs1 && rs2 == o.rs2 &&
         imm == o.imm && len == o.len && size == o.size &&
         offsetSelect == o.offsetSelect && offsetValue == o.offsetValue &&
         ibiw == o.ibiw && obiw == o.obiw && mbiw == o.mbiw && relu == o.relu &&
         group == o.group && core == o.core && eventRegister == o.eventRegister &&
         waitValue == o.waitValue;
}

Instruction Instruction::setbw(int32_t ibiw, int32_t obiw) {
  Instruction i;
  i.op = Opcode::Setbw;
  i.ibiw = ibiw;
  i.obiw = obiw;
  return i;
}
Instruction Instruction::sldi(int32_t rd, int32_t imm) {
  Instruction i;
  i.op = Opcode::Sldi;
  i.rd = rd;
  i.imm = imm;
  return i;
}
Instruction Instruction::saddi(int32_t rd, int32_t rs1, int32_t imm) {
  Instruction i;
  i.op = Opcode::Saddi;
  i.rd = rd;
  i.rs1 = rs1;
  i.imm = imm;
  return i;
}
Instruction Instruction::mvmul(int32_t rd, int32_t rs1, int32_t mbiw,
                               int32_t group) {
  Instruction i;
  i.op = Opcode::Mvmul;
  i.rd = rd;
  i.rs1 = rs1;
  i.mbiw = mbiw;
  i.group = group;
  return i;
}
Instruction Instruction::vector(Opcode op, int32_t rd, int32_t rs1, int32_t rs2,
                                int32_t len) {
  Instruction i;
  i.op = op;
  i.rd = rd;
  i.rs1 = rs1;
  i.rs2 = rs2;
  i.len = len;
  return i;
}
Instruction Instruction::transfer(Opcode op, int32_t rd, int32_t rs1,
                                  int32_t bytes) {
  Instruction i;
  i.op = op;
  i.rd = rd;
  i.rs1 = rs1;
  if (op == Opcode::Lmv || op == Opcode::Lldi)
    i.len = bytes;
  if (op != Opcode::Lldi)
    i.size = bytes; // lmv reads `size` for its hazard range
  return i;
}
Instruction Instruction::send(int32_t reg, int32_t core, int32_t bytes) {
  Instruction i;
  i.op = Opcode::Send;
  i.rd = i.rs1 = reg; // the data is read at rd, the hazard check uses rs1
  i.core = core;
  i.size = bytes;
  return i;
}
Instruction Instruction::recv(int32_t rd, int32_t core, int32_t bytes) {
  Instruction i;
  i.op = Opcode::Recv;
  i.rd = rd;
  i.core = core;
  i.size = bytes;
  return i;
}

//===----------------------------------------------------------------------===//
// .pim records
//===----------------------------------------------------------------------===//

static void put32(uint8_t *p, int32_t v) {
  uint32_t u = static_cast<uint32_t>(v);
  for (int b = 0; b < 4; ++b)
    p[b] = static_cast<uint8_t>(u >> (8 * b));
}
static int32_t get32(const uint8_t *p) {
  uint32_t u = 0;
  for (int b = 0; b < 4; ++b)
    u |= static_cast<uint32_t>(p[b]) << (8 * b);
  return static_cast<int32_t>(u);
}

void pimc::isa::encodeHeader(uint32_t count, uint8_t header[kPimHeaderBytes]) {
  std::memcpy(header, "PIMB", 4);
  put32(header + 4, 1);
  put32(header + 8, static_cast<int32_t>(count));
}

void pimc::isa::encodeRecord(const Instruction &i, uint8_t r[kPimRecordBytes]) {
  std::memset(r, 0, kPimRecordBytes);
  unsigned code = static_cast<unsigned>(i.op);
  r[0] = static_cast<uint8_t>(code);
  int32_t r2 = 0, g1 = 0, g2 = 0, g3 = 0;
  uint8_t rd = static_cast<uint8_t>(i.rd), r1 = static_cast<uint8_t>(i.rs1);
  switch (opcodeClass(i.op)) {
  case OpClass::Nop:
    rd = r1 = 0;
    break;
  case OpClass::Scalar:
    r2 = i.imm;
    g2 = i.op == Opcode::Sld ? i.offsetValue : 0;
    break;
  case OpClass::Matrix:
    if (i.op == Opcode::Setbw) {
      rd = r1 = 0;
      g1 = i.ibiw;
      g2 = i.obiw;
    } else {
      r2 = i.mbiw;
      g1 = i.relu;
      g2 = i.group;
    }
    break;
  case OpClass::Vector:
    r2 = i.rs2;
    g1 = i.offsetSelect;
    g2 = i.offsetValue;
    g3 = i.len;
    break;
  case OpClass::Transfer:
    g1 = i.offsetSelect;
    g2 = i.offsetValue;
    switch (i.op) {
    case Opcode::Ld:
    case Opcode::St:
      g3 = i.size;
      break;
    case Opcode::Lldi:
      r1 = 0;
      r2 = i.imm;
      g3 = i.len;
      break;
    case Opcode::Lmv:
      g3 = i.len;
      break;
    case Opcode::Send:
      r2 = i.core;
      g3 = i.size;
      break;
    case Opcode::Recv:
      r1 = 0;
      r2 = i.core;
      g3 = i.size;
      break;
    case Opcode::Wait:
      rd = r1 = 0;
      g1 = i.eventRegister;
      g2 = i.waitValue;
      break;
    case Opcode::Sync:
      rd = r1 = 0;
      r2 = i.core;
      g1 = i.eventRegister;
      g2 = 0;
      break;
    default:
      break;
    }
    break;
  }
  r[1] = rd;
  r[2] = r1;
  put32(r + 4, r2);
  put32(r + 8, g1);
  put32(r + 12, g2);
  put32(r + 16, g3);
}

Instruction pimc::isa::decodeRecord(const uint8_t r[kPimRecordBytes]) {
  Instruction i;
  i.op = static_cast<Opcode>(r[0]);
  i.rd = r[1];
  i.rs1 = r[2];
  int32_t r2 = get32(r + 4), g1 = get32(r + 8), g2 = get32(r + 12),
          g3 = get32(r + 16);
  switch (opcodeClass(i.op)) {
  case OpClass::Nop:
    break;
  case OpClass::Scalar:
    i.imm = r2;
    i.offsetValue = i.op == Opcode::Sld ? g2 : 0;
    break;
  case OpClass::Matrix:
    if (i.op == Opcode::Setbw) {
      i.ibiw = g1;
      i.obiw = g2;
    } else {
      i.mbiw = r2;
      i.relu = g1;
      i.group = g2;
    }
    break;
  case OpClass::Vector:
    i.rs2 = r2;
    i.offsetSelect = g1;
    i.offsetValue = g2;
    i.len = g3;
    break;
  case OpClass::Transfer:
    i.offsetSelect = g1;
    i.offsetValue = g2;
    switch (i.op) {
    case Opcode::Ld:
    case Opcode::St:
      i.size = g3;
      break;
    case Opcode::Lldi:
      i.imm = r2;
      i.len = g3;
      break;
    case Opcode::Lmv:
      i.len = g3; // the binary form has no `size`
      break;
    case Opcode::Send:
    case Opcode::Recv:
      i.core = r2;
      i.size = g3;
      break;
    case Opcode::Wait:
      i.offsetSelect = i.offsetValue = 0;
      i.eventRegister = g1;
      i.waitValue = g2;
      break;
    case Opcode::Sync:
      i.offsetSelect = i.offsetValue = 0;
      i.core = r2;
      i.eventRegister = g1;
      break;
    default:
      break;
    }
    break;
  }
  return i;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

llvm::json::Object pimc::isa::toJson(const Instruction &i) {
  llvm::json::Object o{{"op", opcodeName(i.op)}};
  auto offset = [&] {
    o["offset"] = llvm::json::Object{{"offset_select", i.offsetSelect},
                                     {"offset_value", i.offsetValue}};
  };
  switch (i.op) {
  case Opcode::Nop:
    break;
  case Opcode::Sldi:
    o["rd"] = i.rd;
    o["imm"] = i.imm;
    break;
  case Opcode::Sld:
    o["rd"] = i.rd;
    o["rs1"] = i.rs1;
    o["offset_value"] = i.offsetValue;
    break;
  case Opcode::Sadd:
  case Opcode::Ssub:
  case Opcode::Smul:
    o["rd"] = i.rd;
    o["rs1"] = i.rs1;
    o["rs2"] = i.rs2;
    break;
  case Opcode::Saddi:
  case Opcode::Smuli:
    o["rd"] = i.rd;
    o["rs1"] = i.rs1;
    o["imm"] = i.imm;
    break;
  case Opcode::Setbw:
    o["ibiw"] = i.ibiw;
    o["obiw"] = i.obiw;
    break;
  case Opcode::Mvmul:
    o["rd"] = i.rd;
    o["rs1"] = i.rs1;
    o["mbiw"] = i.mbiw;
    o["relu"] = i.relu;
    o["group"] = i.group;
    break;
  case Opcode::Vrelu:
  case Opcode::Vtanh:
  case Opcode::Vsigm:
    o["rd"] = i.rd;
    o["rs1"] = i.rs1;
    o["len"] = i.len;
    offset();
    break;
  case Opcode::Vmv:
    o["rd"] = i.rd;
    o["rs1"] = i.rs1;
    o["rs2"] = i.rs2;
    o["len"] = i.len;
    break;
  case Opcode::Ld:
  case Opcode::St:
    o["rd"] = i.rd;
    o["rs1"] = i.rs1;
    o["size"] = i.size;
    offset();
    break;
  case Opcode::Lldi:
    o["rd"] = i.rd;
    o["imm"] = i.imm;
    o["len"] = i.len;
    offset();
    break;
  case Opcode::Lmv:
    o["rd"] = i.rd;
    o["rs1"] = i.rs1;
    o["len"] = i.len;
    o["size"] = i.size;
    offset();
    break;
  case Opcode::Send:
    o["rd"] = i.rd;
    o["rs1"] = i.rs1;
    o["core"] = i.core;
    o["size"] = i.size;
    offset();
    break;
  case Opcode::Recv:
    o["rd"] = i.rd;
    o["core"] = i.core;
    o["size"] = i.size;
    offset();
    break;
  case Opcode::Wait:
    o["event_register"] = i.eventRegister;
    o["wait_value"] = i.waitValue;
    break;
  case Opcode::Sync:
    o["core"] = i.core;
    o["event_register"] = i.eventRegister;
    break;
  default: // the other vector instructions
    o["rd"] = i.rd;
    o["rs1"] = i.rs1;
    o["rs2"] = i.rs2;
    o["len"] = i.len;
    offset();
    break;
  }
  return o;
}

llvm::Expected<Instruction> pimc::isa::fromJson(const llvm::json::Value &value) {
  const llvm::json::Object *o = value.getAsObject();
  if (!o)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "an instruction must be a JSON object");
  std::optional<llvm::StringRef> name = o->getString("op");
  if (!name)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "an instruction has no \"op\"");
  std::optional<Opcode> op = opcodeFromName(*name);
  if (!op)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "unknown op '" + *name + "' (pimsim-nn: Opcode::_from_string: invalid "
                                 "argument)");
  Instruction i;
  i.op = *op;
  auto field = [&](const llvm::json::Object &obj, llvm::StringRef key) {
    return static_cast<int32_t>(obj.getInteger(key).value_or(0));
  };
  i.rd = field(*o, "rd");
  i.rs1 = field(*o, "rs1");
  i.rs2 = field(*o, "rs2");
  i.imm = field(*o, "imm");
  i.len = field(*o, "len");
  i.size = field(*o, "size");
  i.ibiw = field(*o, "ibiw");
  i.obiw = field(*o, "obiw");
  i.mbiw = field(*o, "mbiw");
  i.relu = field(*o, "relu");
  i.group = field(*o, "group");
  i.core = field(*o, "core");
  i.eventRegister = field(*o, "event_register");
  i.waitValue = field(*o, "wait_value");
  if (i.op == Opcode::Sld)
    i.offsetValue = field(*o, "offset_value");
  else if (const llvm::json::Object *offset = o->getObject("offset")) {
    i.offsetSelect = field(*offset, "offset_select");
    i.offsetValue = field(*offset, "offset_value");
  }
  return i;
}

static llvm::Error programError(llvm::StringRef path, const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "'" + path + "': " + what);
}

llvm::Error pimc::isa::visitProgram(
    llvm::StringRef path, llvm::function_ref<void(size_t count)> size,
    llvm::function_ref<llvm::Error(size_t pc, const Instruction &inst)> each) {
  auto buffer = readRegularFile(path, /*requiresNullTerminator=*/false);
  if (!buffer)
    return buffer.takeError();
  llvm::StringRef data = (*buffer)->getBuffer();
  if (path.ends_with(".pim")) {
    auto bytes = reinterpret_cast<const uint8_t *>(data.data());
    if (data.size() < kPimHeaderBytes || std::memcmp(bytes, "PIMB", 4) != 0)
      return programError(path, "not a PIMB file");
    if (get32(bytes + 4) != 1)
      return programError(path, "unsupported PIMB version " +
                                    llvm::Twine(get32(bytes + 4)));
    uint32_t count = static_cast<uint32_t>(get32(bytes + 8));
    if (data.size() < kPimHeaderBytes + uint64_t(count) * kPimRecordBytes)
      return programError(path, "is shorter than its " + llvm::Twine(count) +
                                    " records");
    size(count);
    for (uint32_t n = 0; n < count; ++n) {
      const uint8_t *record = bytes + kPimHeaderBytes + size_t(n) * kPimRecordBytes;
      if (!isOpcode(record[0]))
        return programError(path, llvm::formatv("record {0} has opcode {1}, "
                                                "which pimsim-nn does not know",
                                                n, record[0]));
      if (llvm::Error e = each(n, decodeRecord(record)))
        return e;
    }
    return llvm::Error::success();
  }
  llvm::Expected<llvm::json::Value> json = parseJsonWithinDepth(data);
  if (!json)
    return programError(path, "not valid JSON: " + llvm::toString(json.takeError()));
  const llvm::json::Array *array = json->getAsArray();
  if (!array)
    return programError(path, "a per-core JSON program must be an array");
  size(array->size());
  for (size_t n = 0; n < array->size(); ++n) {
    llvm::Expected<Instruction> inst = fromJson((*array)[n]);
    if (!inst)
      return programError(path, llvm::formatv("instruction {0}: {1}", n,
                                              llvm::toString(inst.takeError())));
    if (llvm::Error e = each(n, *inst))
      return e;
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<Instruction>> pimc::isa::readProgram(llvm::StringRef path) {
  std::vector<Instruction> program;
  if (llvm::Error e = visitProgram(
          path, [&](size_t count) { program.reserve(count); },
          [&](size_t, const Instruction &inst) {
            program.push_back(inst);
            return llvm::Error::success();
          }))
    return std::move(e);
  return program;
}

//===----------------------------------------------------------------------===//
// Streaming writer
//===----------------------------------------------------------------------===//

llvm::Expected<std::unique_ptr<ProgramWriter>>
ProgramWriter::create(llvm::StringRef pimPath, llvm::StringRef jsonPath) {
  std::unique_ptr<ProgramWriter> writer(new ProgramWriter());
  llvm::Expected<std::unique_ptr<OutputFile>> pim = OutputFile::create(pimPath);
  if (!pim)
    return pim.takeError();
  writer->pim = std::move(*pim);
  uint8_t header[kPimHeaderBytes];
  encodeHeader(0, header);
  writer->pim->os().write(reinterpret_cast<const char *>(header), sizeof(header));
  if (!jsonPath.empty()) {
    llvm::Expected<std::unique_ptr<OutputFile>> json =
        OutputFile::create(jsonPath, llvm::sys::fs::OF_Text);
    if (!json)
      return json.takeError();
    writer->json = std::move(*json);
    writer->json->os() << "[";
  }
  return writer;
}

ProgramWriter::~ProgramWriter() = default;

void ProgramWriter::write(const Instruction &inst) {
  uint8_t record[kPimRecordBytes];
  encodeRecord(inst, record);
  pim->os().write(reinterpret_cast<const char *>(record), sizeof(record));
  if (json)
    json->os() << (written ? ",\n " : "\n ") << llvm::json::Value(toJson(inst));
  ++written;
}

llvm::Error ProgramWriter::finish() {
  uint8_t header[kPimHeaderBytes];
  encodeHeader(static_cast<uint32_t>(written), header);
  pim->os().seek(0);
  pim->os().write(reinterpret_cast<const char *>(header), sizeof(header));
  if (llvm::Error e = pim->close())
    return e;
  if (json) {
    json->os() << "\n]\n";
    if (llvm::Error e = json->close())
      return e;
  }
  return llvm::Error::success();
}
