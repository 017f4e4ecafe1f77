//===- Simulator.cpp - loading and checking a program directory -----------===//
//
// Loads manifest.json, config.json, the core_<id> programs, weights.bin and
// gmem.bin, and rejects, naming the file, core, pc and instruction,
// everything pimsim-nn would reject or never finish (target spec sections
// 4, 8 and 9) plus what pimc never emits and the simulator runs unreliably
// (offsets, send with rd != rs1). Machine.cpp executes what passes.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"

#include "pimc/Support/InputLimits.h"
#include "pimc/Target/Pimsim/Artifacts.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace pimc;
using namespace pimc::sim;
using namespace pimc::sim::detail;
using isa::Opcode;
using llvm::formatv;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

std::string detail::describe(const isa::Instruction &i) {
  std::string text = isa::opcodeName(i.op).str();
  llvm::raw_string_ostream os(text);
  auto field = [&](const char *name, int64_t value) { os << ' ' << name << '=' << value; };
  switch (i.op) {
  case Opcode::Nop:
    break;
  case Opcode::Sldi:
    field("rd", i.rd);
    field("imm", i.imm);
    break;
  case Opcode::Sld:
    field("rd", i.rd);
    field("rs1", i.rs1);
    field("offset_value", i.offsetValue);
    break;
  case Opcode::Sadd:
  case Opcode::Ssub:
  case Opcode::Smul:
    field("rd", i.rd);
    field("rs1", i.rs1);
    field("rs2", i.rs2);
    break;
  case Opcode::Saddi:
  case Opcode::Smuli:
    field("rd", i.rd);
    field("rs1", i.rs1);
    field("imm", i.imm);
    break;
  case Opcode::Setbw:
    field("ibiw", i.ibiw);
    field("obiw", i.obiw);
    break;
  case Opcode::Mvmul:
    field("rd", i.rd);
    field("rs1", i.rs1);
    field("mbiw", i.mbiw);
    field("relu", i.relu);
    field("group", i.group);
    break;
  case Opcode::Vrelu:
  case Opcode::Vtanh:
  case Opcode::Vsigm:
    field("rd", i.rd);
    field("rs1", i.rs1);
    field("len", i.len);
    break;
  case Opcode::Ld:
  case Opcode::St:
    field("rd", i.rd);
    field("rs1", i.rs1);
    field("size", i.size);
    break;
  case Opcode::Lldi:
    field("rd", i.rd);
    field("imm", i.imm);
    field("len", i.len);
    break;
  case Opcode::Lmv:
    field("rd", i.rd);
    field("rs1", i.rs1);
    field("len", i.len);
    break;
  case Opcode::Send:
    field("rd", i.rd);
    field("rs1", i.rs1);
    field("core", i.core);
    field("size", i.size);
    break;
  case Opcode::Recv:
    field("rd", i.rd);
    field("core", i.core);
    field("size", i.size);
    break;
  case Opcode::Wait:
    field("event_register", i.eventRegister);
    field("wait_value", i.waitValue);
    break;
  case Opcode::Sync:
    field("core", i.core);
    field("event_register", i.eventRegister);
    break;
  default: // the other vector instructions
    field("rd", i.rd);
    field("rs1", i.rs1);
    field("rs2", i.rs2);
    field("len", i.len);
    break;
  }
  if (i.op != Opcode::Sld && (i.offsetSelect || i.offsetValue)) {
    field("offset_select", i.offsetSelect);
    field("offset_value", i.offsetValue);
  }
  return text;
}

isa::Instruction detail::toInstruction(const Op &op, int64_t weightBits) {
  isa::Instruction i;
  i.op = op.code;
  i.rd = op.rd;
  i.rs1 = op.rs1;
  switch (op.code) {
  case Opcode::Sldi:
  case Opcode::Saddi:
  case Opcode::Smuli:
    i.imm = op.a;
    break;
  case Opcode::Sadd:
  case Opcode::Ssub:
  case Opcode::Smul:
    i.rs2 = op.rs2;
    break;
  case Opcode::Setbw:
    i.rd = i.rs1 = 0;
    i.ibiw = op.a;
    i.obiw = op.b;
    break;
  case Opcode::Mvmul:
    i.mbiw = int32_t(weightBits);
    i.group = op.a;
    i.relu = op.b;
    break;
  case Opcode::Ld:
  case Opcode::St:
    i.size = op.a;
    break;
  case Opcode::Lldi:
    i.imm = op.a;
    i.len = op.b;
    break;
  case Opcode::Lmv:
    i.len = op.a;
    break;
  case Opcode::Send:
  case Opcode::Recv:
    i.size = op.a;
    i.core = op.b;
    break;
  case Opcode::Wait:
    i.eventRegister = op.rs2;
    i.waitValue = op.a;
    break;
  case Opcode::Sync:
    i.eventRegister = op.rs2;
    i.core = op.b;
    break;
  default: // vector
    i.rs2 = op.rs2;
    i.len = op.a;
    break;
  }
  return i;
}

namespace {
struct CoreContext {
  const Manifest &manifest;
  int64_t id = 0, coreCount = 0, groupCount = 0;
  bool pim = false;
};
} // namespace

/// Checks one instruction and lowers it into `op`; returns why it is
/// rejected, or "" when it is fine. `widthsSet` tracks whether a setbw came
/// before.
static std::string lower(const isa::Instruction &i, const CoreContext &ctx, bool &widthsSet,
                         Op &op) {
  const Manifest &m = ctx.manifest;
  switch (i.op) {
  case Opcode::Nop:
    return "nop never retires on pimsim-nn, so the core would never finish";
  case Opcode::Sld:
    return "sld is broken on pimsim-nn (it loads nothing and writes 0 into r0)";
  case Opcode::Vsoftmax:
    return "pimsim-nn does not support opcode vsoftmax";
  case Opcode::Vvsll:
  case Opcode::Vvsra:
    return "shifts are not supported on f32 values";
  case Opcode::Sadd:
  case Opcode::Ssub:
  case Opcode::Smul:
    if (ctx.pim)
      return "a .pim record has no rs2, so pimsim-nn would read r0 as the second operand";
    break;
  default:
    break;
  }
  if (i.offsetSelect || i.offsetValue)
    return "nonzero offset: pimsim-nn applies offsets inconsistently, and pimc computes every "
           "address into a register";
  isa::OpClass cls = isa::opcodeClass(i.op);
  if (cls != isa::OpClass::Scalar && i.op != Opcode::Setbw && !widthsSet)
    return "comes before the first setbw (the bit widths are 0 at reset)";

  std::string why;
  auto reg = [&](int32_t r, const char *field, int32_t max = 31) {
    if ((r < 0 || r > max) && why.empty())
      why = formatv("register {0}={1} is outside 0..{2}", field, r, max);
    return uint8_t(r);
  };
  auto count = [&](int32_t value, const char *field) {
    if (value < 0 && why.empty())
      why = formatv("negative {0}", field);
    return value;
  };
  auto peer = [&](int32_t core, bool selfAllowed) {
    if ((core < 0 || core >= ctx.coreCount) && why.empty())
      why = formatv("core {0} does not exist (core_cnt is {1})", core, ctx.coreCount);
    else if (!selfAllowed && core == ctx.id && why.empty())
      why = "a transfer with the core itself never completes";
    return core;
  };

  op.code = i.op;
  switch (i.op) {
  case Opcode::Sldi:
    op.rd = reg(i.rd, "rd");
    op.a = i.imm;
    break;
  case Opcode::Saddi:
  case Opcode::Smuli:
    op.rd = reg(i.rd, "rd");
    op.rs1 = reg(i.rs1, "rs1");
    op.a = i.imm;
    break;
  case Opcode::Sadd:
  case Opcode::Ssub:
  case Opcode::Smul:
    op.rd = reg(i.rd, "rd");
    op.rs1 = reg(i.rs1, "rs1");
    op.rs2 = reg(i.rs2, "rs2");
    break;
  case Opcode::Setbw:
    if (i.ibiw != m.inputBits || i.obiw != m.outputBits)
      return formatv("the widths differ from the manifest's input_bits/output_bits {0}/{1}",
                     m.inputBits, m.outputBits);
    widthsSet = true;
    op.a = i.ibiw;
    op.b = i.obiw;
    break;
  case Opcode::Mvmul:
    if (i.mbiw <= 0)
      return "mbiw must be positive (pimsim-nn divides by it)";
    if (i.mbiw != m.weightBits)
      return formatv("mbiw differs from the manifest's weight_bits {0}", m.weightBits);
    if (i.group < 0 || i.group >= ctx.groupCount)
      return formatv("group {0} is outside core {1}'s {2} array groups", i.group, ctx.id,
                     ctx.groupCount);
    op.rd = reg(i.rd, "rd");
    op.rs1 = reg(i.rs1, "rs1");
    op.a = i.group;
    op.b = i.relu;
    break;
  case Opcode::Vrelu:
  case Opcode::Vtanh:
  case Opcode::Vsigm:
    op.rd = reg(i.rd, "rd");
    op.rs1 = reg(i.rs1, "rs1");
    op.a = count(i.len, "len");
    break;
  case Opcode::Ld:
  case Opcode::St:
    op.rd = reg(i.rd, "rd", i.op == Opcode::St ? 30 : 31);
    op.rs1 = reg(i.rs1, "rs1", i.op == Opcode::Ld ? 30 : 31);
    op.a = count(i.size, "size");
    if (i.size % m.elementBytes && why.empty())
      why = formatv("size {0} is not a multiple of the {1}-byte element", i.size, m.elementBytes);
    break;
  case Opcode::Lldi:
    op.rd = reg(i.rd, "rd");
    op.a = i.imm;
    op.b = count(i.len, "len");
    break;
  case Opcode::Lmv:
    op.rd = reg(i.rd, "rd");
    op.rs1 = reg(i.rs1, "rs1");
    op.a = count(i.len, "len");
    break;
  case Opcode::Send:
  case Opcode::Recv:
    if (i.op == Opcode::Send && i.rd != i.rs1)
      return "rd and rs1 differ: pimsim-nn reads the data at rd but orders the send by rs1";
    op.rd = reg(i.rd, "rd");
    op.rs1 = op.rd;
    op.a = count(i.size, "size");
    op.b = peer(i.core, /*selfAllowed=*/false);
    break;
  case Opcode::Wait:
    op.rs2 = reg(i.eventRegister, "event_register");
    op.a = count(i.waitValue, "wait_value");
    break;
  case Opcode::Sync: // a sync to the core itself works on pimsim-nn
    op.rs2 = reg(i.eventRegister, "event_register");
    op.b = peer(i.core, /*selfAllowed=*/true);
    break;
  case Opcode::Vavg:
    if (i.len <= 0)
      return "vavg needs len > 0";
    [[fallthrough]];
  default: // the other vector instructions
    op.rd = reg(i.rd, "rd");
    op.rs1 = reg(i.rs1, "rs1");
    op.rs2 = reg(i.rs2, "rs2");
    op.a = count(i.len, "len");
    break;
  }
  return why;
}

static llvm::Error loadCore(const CoreContext &ctx, const std::string &path, CoreProgram &core) {
  core.id = ctx.id;
  core.path = path;
  bool widthsSet = false;
  auto each = [&](size_t pc, const isa::Instruction &inst) -> llvm::Error {
    core.ops.emplace_back();
    std::string why = lower(inst, ctx, widthsSet, core.ops.back());
    if (!why.empty())
      return fail(
          formatv("core {0} pc {1} `{2}` in '{3}': {4}", ctx.id, pc, describe(inst), path, why));
    return llvm::Error::success();
  };
  if (llvm::Error error = isa::visitProgram(
          path, [&](size_t count) { core.ops.reserve(count); }, each))
    return error;
  if (core.ops.empty())
    return llvm::Error::success();
  Opcode last = core.ops.back().code;
  if (isa::opcodeClass(last) == isa::OpClass::Scalar || last == Opcode::Setbw)
    return fail(formatv("core {0} pc {1} `{2}` in '{3}': the last instruction is scalar or setbw, "
                        "which never retires on pimsim-nn, so the core would never finish",
                        ctx.id, core.ops.size() - 1,
                        describe(toInstruction(core.ops.back(), ctx.manifest.weightBits)), path));
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

/// Reads config.json: the core count and the array-group map, which must
/// agree with the manifest. Returns core_cnt.
static llvm::Expected<int64_t> readConfig(llvm::StringRef directory, const Manifest &m) {
  std::string path = join(directory, kInstructionConfigFile);
  auto buffer = readRegularFile(path, /*requiresNullTerminator=*/true, kMaxJsonFileBytes);
  if (!buffer)
    return buffer.takeError();
  llvm::Expected<llvm::json::Value> json = parseJsonWithinDepth((*buffer)->getBuffer());
  if (!json)
    return fail("'" + path + "' is not valid JSON: " + llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  std::optional<int64_t> coreCount = root ? root->getInteger("core_cnt") : std::nullopt;
  if (!coreCount)
    return fail("'" + path + "' has no integer 'core_cnt'");
  if (*coreCount < 1 || *coreCount > m.coreCount)
    return fail(formatv("'{0}': core_cnt {1} is outside 1..{2} (the manifest's core count)", path,
                        *coreCount, m.coreCount));
  const llvm::json::Object *map = root->getObject("array_group_map");
  if (!map)
    return fail("'" + path + "' has no object 'array_group_map'");
  for (int64_t id = 0; id < *coreCount; ++id) {
    std::string key = formatv("core{0}", id);
    const llvm::json::Array *groups = map->getArray(key);
    if (!groups)
      return fail(formatv("'{0}' is missing 'array_group_map.{1}'", path, key));
    std::vector<int64_t> counts;
    int64_t sum = 0;
    for (const llvm::json::Value &v : *groups) {
      std::optional<int64_t> n = v.getAsInteger();
      if (!n || *n <= 0)
        return fail(formatv("'{0}': 'array_group_map.{1}' must contain positive crossbar counts",
                            path, key));
      counts.push_back(*n);
      sum += *n;
    }
    if (sum > m.crossbarsPerCore)
      return fail(formatv("'{0}': 'array_group_map.{1}' assigns {2} crossbars, but hardware "
                          "provides {3}",
                          path, key, sum, m.crossbarsPerCore));
    std::vector<int64_t> expected;
    for (const ArrayGroupInfo &g : m.cores[id].groups)
      expected.push_back(g.crossbars);
    if (counts != expected)
      return fail(formatv("'{0}': 'array_group_map.{1}' is [{2}], but the manifest's array "
                          "groups of core {3} have [{4}] crossbars",
                          path, key, llvm::join(llvm::map_range(counts, llvm::itostr), ", "), id,
                          llvm::join(llvm::map_range(expected, llvm::itostr), ", ")));
  }
  return *coreCount;
}

/// The program file of every core id below `coreCount` (.pim over .json).
static llvm::Expected<std::vector<std::string>> findPrograms(llvm::StringRef directory,
                                                             int64_t coreCount) {
  std::vector<std::string> pim(coreCount), json(coreCount);
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(directory, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (!name.consume_front("core_"))
      continue;
    auto [digits, extension] = name.split('.');
    uint64_t id = 0;
    if (digits.empty() || !llvm::all_of(digits, llvm::isDigit) || digits.getAsInteger(10, id) ||
        (extension != "pim" && extension != "json"))
      return fail(formatv("malformed per-core instruction filename '{0}' (expected "
                          "core_<id>.json or core_<id>.pim)",
                          it->path()));
    if (id >= uint64_t(coreCount))
      return fail(formatv("'{0}' is for core {1}, but config.json has core_cnt {2}", it->path(), id,
                          coreCount));
    (extension == "pim" ? pim : json)[id] = it->path();
  }
  if (ec)
    return fail("cannot list '" + directory + "': " + ec.message());
  std::vector<std::string> paths(coreCount);
  for (int64_t id = 0; id < coreCount; ++id) {
    paths[id] = pim[id].empty() ? json[id] : pim[id];
    if (paths[id].empty())
      return fail(formatv("no program for core {0}: neither core_{0}.pim nor core_{0}.json is "
                          "in '{1}'",
                          id, directory));
  }
  return paths;
}

/// Checks the geometry and the array groups of the cores that run, and
/// reads their weights.
static llvm::Error loadWeights(llvm::StringRef directory, const Manifest &m, int64_t coreCount,
                               LoadedProgram &program) {
  std::string path = join(directory, kWeightsFile);
  uint64_t needed = 0;
  for (int64_t id = 0; id < coreCount; ++id) {
    if (m.cores[id].id != id)
      return fail(
          formatv("the manifest lists core {0} where core {1} belongs", m.cores[id].id, id));
    for (const ArrayGroupInfo &g : m.cores[id].groups) {
      if (g.rows < 0 || g.rows > m.xbarRows || g.cols < 0 ||
          g.cols > m.outputsPerCrossbar * g.crossbars || g.weightsOffset % sizeof(float))
        return fail(formatv("the manifest's array group of core {0} at weights offset {1} "
                            "has {2}x{3} weights, which do not fit {4} crossbars of {5} rows "
                            "and {6} outputs (or the offset is not a multiple of 4)",
                            id, g.weightsOffset, g.rows, g.cols, g.crossbars, m.xbarRows,
                            m.outputsPerCrossbar));
      needed = std::max<uint64_t>(needed, g.weightsOffset + g.rows * g.cols * sizeof(float));
    }
  }
  const float *weights = nullptr;
  if (needed) {
    // Mapped, not copied: the weights of a large model are most of its size.
    if (llvm::Error e = checkRegularFile(path))
      return e;
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false,
                                              /*IsVolatile=*/false, llvm::Align(alignof(float)));
    if (!buffer)
      return fail("cannot read '" + path + "': " + buffer.getError().message());
    if ((*buffer)->getBufferSize() < needed)
      return fail(formatv("'{0}' has {1} bytes, but the manifest's array groups need {2}", path,
                          (*buffer)->getBufferSize(), needed));
    program.weights = std::move(*buffer);
    weights = reinterpret_cast<const float *>(program.weights->getBufferStart());
  }
  program.cores.resize(coreCount);
  for (int64_t id = 0; id < coreCount; ++id)
    for (const ArrayGroupInfo &g : m.cores[id].groups)
      program.cores[id].groups.push_back(
          {g.crossbars, g.rows, g.cols,
           g.rows * g.cols ? weights + g.weightsOffset / sizeof(float) : nullptr});
  return llvm::Error::success();
}

static llvm::Error placeInputs(llvm::StringRef directory, const Manifest &m,
                               const std::vector<frontend::TensorData> &inputs, Memory &global) {
  int64_t slots = int64_t(global.count());
  if (m.globalImageElements < 0 || m.globalImageElements > slots)
    return fail(formatv("the manifest's global image of {0} elements exceeds the {1}-byte global "
                        "memory",
                        m.globalImageElements, m.globalMemoryBytes));
  if (m.globalImageElements) {
    std::string path = join(directory, kGlobalImageFile);
    uint64_t bytes = uint64_t(m.globalImageElements) * sizeof(float);
    // pimc writes exactly the image: more is not read.
    auto buffer = readRegularFile(path, /*requiresNullTerminator=*/true, bytes);
    if (!buffer)
      return buffer.takeError();
    if ((*buffer)->getBufferSize() < bytes)
      return fail(formatv("'{0}' has {1} bytes, but the manifest's global image needs {2}", path,
                          (*buffer)->getBufferSize(), bytes));
    std::memcpy(global.get(), (*buffer)->getBufferStart(), bytes);
  }
  if (inputs.size() != m.inputs.size())
    return fail(formatv("the program takes {0} inputs, but {1} were given", m.inputs.size(),
                        inputs.size()));
  for (size_t n = 0; n < inputs.size(); ++n) {
    const TensorLocation &where = m.inputs[n];
    const frontend::TensorData &input = inputs[n];
    if (input.dataType != frontend::kFloat || input.dims != where.shape ||
        int64_t(input.floats.size()) != where.numElements())
      return fail(
          formatv("input {0} '{1}' must be a float tensor of shape [{2}] (given: {3} "
                  "[{4}] with {5} values)",
                  n, where.name, llvm::join(llvm::map_range(where.shape, llvm::itostr), ","),
                  frontend::dataTypeName(input.dataType),
                  llvm::join(llvm::map_range(input.dims, llvm::itostr), ","), input.floats.size()));
    if (where.address < 0 || where.address % m.elementBytes || where.numElements() > slots ||
        where.address / m.elementBytes > slots - where.numElements())
      return fail(formatv("input '{0}' at global address {1} does not fit the global memory",
                          where.name, where.address));
    // std::copy: an empty input's data may be null.
    std::copy(input.floats.begin(), input.floats.end(),
              global.get() + where.address / m.elementBytes);
  }
  return llvm::Error::success();
}

static llvm::Error readOutputs(const Manifest &m, const Memory &global, Result &result) {
  for (const TensorLocation &where : m.outputs) {
    int64_t count = where.numElements();
    if (where.address < 0 || where.address % m.elementBytes || count < 0 ||
        count > int64_t(global.count()) ||
        where.address / m.elementBytes > int64_t(global.count()) - count)
      return fail(formatv("output '{0}' at global address {1} does not fit the global memory",
                          where.name, where.address));
    const float *start = global.get() + where.address / m.elementBytes;
    frontend::TensorData tensor;
    tensor.name = where.name;
    tensor.dataType = frontend::kFloat;
    tensor.dims = where.shape;
    tensor.setFloats(std::vector<float>(start, start + count));
    result.outputs.push_back(std::move(tensor));
  }
  return llvm::Error::success();
}

llvm::Expected<LoadedProgram> detail::loadProgram(llvm::StringRef directory,
                                                  Manifest &manifest) {
  llvm::Expected<Manifest> read = Manifest::read(directory);
  if (!read)
    return read.takeError();
  manifest = std::move(*read);
  const Manifest &m = manifest;
  if (m.localMemoryBytes <= 0 || m.globalMemoryBytes < 0 || m.crossbarsPerCore < 0 ||
      m.xbarRows < 0 || m.outputsPerCrossbar < 0)
    return fail("the manifest's memory sizes and crossbar geometry must not be negative, and "
                "local memory must not be empty");

  llvm::Expected<int64_t> coreCount = readConfig(directory, m);
  if (!coreCount)
    return coreCount.takeError();
  LoadedProgram program;
  program.geometry = {m.elementBytes,       m.localMemoryBytes, m.globalMemoryBytes,
                      m.outputsPerCrossbar, m.xbarRows,         m.weightBits};
  if (llvm::Error error = loadWeights(directory, m, *coreCount, program))
    return std::move(error);
  llvm::Expected<std::vector<std::string>> paths = findPrograms(directory, *coreCount);
  if (!paths)
    return paths.takeError();
  for (int64_t id = 0; id < *coreCount; ++id) {
    CoreContext ctx{m, id, *coreCount, int64_t(m.cores[id].groups.size()),
                    llvm::StringRef((*paths)[id]).ends_with(".pim")};
    if (llvm::Error error = loadCore(ctx, (*paths)[id], program.cores[id]))
      return std::move(error);
  }
  return program;
}

llvm::Expected<Result> pimc::sim::simulate(llvm::StringRef directory,
                                           const std::vector<frontend::TensorData> &inputs,
                                           const Options &options) {
  Manifest m;
  llvm::Expected<LoadedProgram> program = loadProgram(directory, m);
  if (!program)
    return program.takeError();
  Memory global;
  if (!global.allocate(m.globalMemoryBytes / m.elementBytes))
    return fail(formatv("cannot allocate the {0}-byte global memory", m.globalMemoryBytes));
  if (llvm::Error error = placeInputs(directory, m, inputs, global))
    return std::move(error);
  Result result;
  if (llvm::Error error = execute(*program, global, options, result))
    return std::move(error);
  if (llvm::Error error = readOutputs(m, global, result))
    return std::move(error);
  return result;
}
