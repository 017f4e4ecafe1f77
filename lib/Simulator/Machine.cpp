//===- Machine.cpp - executing a loaded program ---------------------------===//
//
// Each core runs until it blocks (a send or recv whose partner has not
// arrived, or a wait whose event count is short) or finishes; a FIFO of
// runnable cores drives the rest. A rendezvous completes when its second
// side arrives: that side copies the data and retires the blocked
// partner's instruction. When no core can run and some are unfinished, the
// blocked cores are reported.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>

using namespace pimc;
using namespace pimc::sim;
using namespace pimc::sim::detail;
using isa::Opcode;

// The mvmul kernel gets an AVX2 variant picked at load time. Without FMA,
// both variants round identically.
#if defined(__x86_64__) && defined(__ELF__)
#define PIMC_AVX2_CLONE __attribute__((target_clones("avx2", "default")))
#else
#define PIMC_AVX2_CLONE
#endif

namespace {

enum class Status : uint8_t { Ready, Send, Recv, Wait, Done };

struct CoreState {
  const CoreProgram *program = nullptr;
  size_t pc = 0;
  int32_t regs[32] = {};
  int64_t events[32] = {};
  Status status = Status::Ready;
  bool queued = false;
  int64_t partner = -1; // the peer of a blocked send or recv
  uint64_t executed = 0;
  Memory local;
};

// Registers wrap like the simulator's C ints, without C++'s overflow UB.
int32_t wrapAdd(int32_t a, int32_t b) { return int32_t(uint32_t(a) + uint32_t(b)); }
int32_t wrapSub(int32_t a, int32_t b) { return int32_t(uint32_t(a) - uint32_t(b)); }
int32_t wrapMul(int32_t a, int32_t b) { return int32_t(uint32_t(a) * uint32_t(b)); }

template <typename F> void map1(float *z, const float *x, int64_t len, int64_t stride, F f) {
  for (int64_t k = 0; k < len; ++k)
    z[k * stride] = f(x[k * stride]);
}

template <typename F>
void map2(float *z, const float *x, const float *y, int64_t len, int64_t stride, F f) {
  for (int64_t k = 0; k < len; ++k)
    z[k * stride] = f(x[k * stride], y[k * stride]);
}

class Machine {
public:
  Machine(const LoadedProgram &program, Memory &global, const Options &options)
      : program(program), geo(program.geometry), global(global.get()),
        limit(options.maxInstructions ? options.maxInstructions
                                      : std::numeric_limits<uint64_t>::max()) {}

  llvm::Error run(Result &result);

private:
  template <bool kUnit> llvm::Error runCore(CoreState &c);
  template <bool kUnit> bool local(int64_t addr, int64_t bytes, bool aligned, const char *what);
  bool inGlobal(int64_t addr, int64_t bytes, const char *what);
  LLVM_ATTRIBUTE_NOINLINE bool outOfBounds(const char *space, int64_t addr, int64_t bytes,
                                           int64_t capacity, const char *what);
  template <bool kUnit> void mvmul(float *mem, const Op &op, const int32_t *r, const Group &g);
  const float *operand(const float *mem, int64_t dst, int64_t src, int64_t bytes,
                       std::vector<float> &scratch);
  const float *copy(const float *mem, int64_t lo, int64_t hi, std::vector<float> &scratch);

  void wake(CoreState &c);
  void retire(CoreState &c);
  std::string at(const CoreState &c) const;
  std::string where(const CoreState &c) const;
  llvm::Error fault(const CoreState &c) const;
  llvm::Error stuck() const;

  const LoadedProgram &program;
  const Geometry &geo;
  float *global;
  const uint64_t limit;
  uint64_t total = 0;
  std::vector<CoreState> cores;
  std::deque<size_t> runnable;
  std::vector<float> scratchA, scratchB, accumulator, liveInputs;
  std::vector<int32_t> liveRows;
  std::string why; // what went wrong, for fault()
};

} // namespace

template <bool kUnit>
bool Machine::local(int64_t addr, int64_t bytes, bool aligned, const char *what) {
  if (LLVM_LIKELY(addr >= 0 && addr + bytes <= geo.localBytes &&
                  (kUnit || !aligned || addr % geo.elementBytes == 0)))
    return true;
  return outOfBounds("local", addr, bytes, geo.localBytes, what);
}

bool Machine::inGlobal(int64_t addr, int64_t bytes, const char *what) {
  if (LLVM_LIKELY(addr >= 0 && addr + bytes <= geo.globalBytes && addr % geo.elementBytes == 0))
    return true;
  return outOfBounds("global", addr, bytes, geo.globalBytes, what);
}

bool Machine::outOfBounds(const char *space, int64_t addr, int64_t bytes, int64_t capacity,
                          const char *what) {
  if (addr >= 0 && addr + bytes <= capacity)
    why = llvm::formatv("{0} address {1} ({2}) is not a multiple of the {3}-byte element "
                        "(one value per element slot)",
                        space, addr, what, geo.elementBytes);
  else
    why = llvm::formatv("the {0} bytes at {1} address {2} ({3}) are outside the "
                        "{4}-byte {1} memory",
                        bytes, space, addr, what, capacity);
  return false;
}

// Local memory [lo, hi) copied aside, with the same layout.
const float *Machine::copy(const float *mem, int64_t lo, int64_t hi, std::vector<float> &scratch) {
  if (scratch.size() < size_t(hi - lo))
    scratch.resize(hi - lo);
  std::memcpy(scratch.data(), mem + lo, (hi - lo) * sizeof(float));
  return scratch.data();
}

// The source of an element-wise operation writing at `dst`. A source that
// the in-order writes would overwrite before reading (it starts below dst
// and reaches into it) is read from a copy, so that every instruction reads
// all its operands before it writes, as the hardware does.
const float *Machine::operand(const float *mem, int64_t dst, int64_t src, int64_t bytes,
                              std::vector<float> &scratch) {
  if (LLVM_LIKELY(!(src < dst && dst < src + bytes)))
    return mem + src;
  return copy(mem, src, src + bytes, scratch);
}

// acc[0..cols) += sum_k xs[k] * W[rows[k]][0..cols), four rows at a time so
// that each pass over acc does four multiply-adds per element.
PIMC_AVX2_CLONE static void accumulate(float *__restrict acc, const float *__restrict weights,
                                       int64_t cols, const int32_t *rows, const float *xs,
                                       int64_t count) {
  int64_t k = 0;
  for (; k + 4 <= count; k += 4) {
    const float x0 = xs[k], x1 = xs[k + 1], x2 = xs[k + 2], x3 = xs[k + 3];
    const float *__restrict w0 = weights + rows[k] * cols;
    const float *__restrict w1 = weights + rows[k + 1] * cols;
    const float *__restrict w2 = weights + rows[k + 2] * cols;
    const float *__restrict w3 = weights + rows[k + 3] * cols;
    for (int64_t j = 0; j < cols; ++j)
      acc[j] += (x0 * w0[j] + x1 * w1[j]) + (x2 * w2[j] + x3 * w3[j]);
  }
  for (; k < count; ++k) {
    const float x = xs[k];
    const float *__restrict w = weights + rows[k] * cols;
    for (int64_t j = 0; j < cols; ++j)
      acc[j] += x * w[j];
  }
}

// out[j] = sum_i in[i] * W[i][j] over the group's programmed rows x cols;
// the other outputs of its crossbars are 0 (unprogrammed cells conduct
// nothing). Rows with a zero input are skipped: after a ReLU many are.
template <bool kUnit>
void Machine::mvmul(float *mem, const Op &op, const int32_t *r, const Group &g) {
  const int64_t eb = kUnit ? 1 : geo.elementBytes;
  const float *in = mem + r[op.rs1];
  int32_t *rows = liveRows.data();
  float *xs = liveInputs.data();
  int64_t live = 0;
  for (int64_t i = 0; i < g.rows; ++i) {
    rows[live] = int32_t(i);
    xs[live] = in[i * eb];
    live += xs[live] != 0.0f;
  }
  float *acc = accumulator.data();
  const int64_t cols = g.cols;
  std::fill_n(acc, cols, 0.0f);
  accumulate(acc, g.weights, cols, rows, xs, live);
  float *out = mem + r[op.rd];
  const int64_t outputs = geo.outputsPerCrossbar * g.crossbars;
  if (op.b)
    for (int64_t j = 0; j < cols; ++j)
      out[j * eb] = std::max(acc[j], 0.0f);
  else
    for (int64_t j = 0; j < cols; ++j)
      out[j * eb] = acc[j];
  for (int64_t j = cols; j < outputs; ++j)
    out[j * eb] = 0.0f;
}

void Machine::wake(CoreState &c) {
  c.status = Status::Ready;
  if (!c.queued) {
    c.queued = true;
    runnable.push_back(&c - cores.data());
  }
}

// Retires the send or recv a blocked core waits at, now that its partner
// has arrived.
void Machine::retire(CoreState &c) {
  ++c.pc;
  ++c.executed;
  ++total;
  if (c.pc == c.program->ops.size())
    c.status = Status::Done;
  else
    wake(c);
}

std::string Machine::at(const CoreState &c) const {
  return llvm::formatv("pc {0} `{1}`", c.pc,
                       describe(toInstruction(c.program->ops[c.pc], geo.weightBits)));
}

std::string Machine::where(const CoreState &c) const {
  return llvm::formatv("core {0} ", c.program->id).str() + at(c);
}

llvm::Error Machine::fault(const CoreState &c) const {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 where(c) + " in '" + c.program->path + "': " + why);
}

llvm::Error Machine::stuck() const {
  std::vector<std::string> lines;
  bool unmatched = false;
  for (const CoreState &c : cores) {
    if (c.status == Status::Done)
      continue;
    const Op &op = c.program->ops[c.pc];
    std::string line = where(c);
    if (c.status == Status::Wait) {
      line += llvm::formatv(" waits for event register {0} to reach {1} (it holds {2})", op.rs2,
                            op.a, c.events[op.rs2]);
    } else {
      const CoreState &peer = cores[c.partner];
      if (peer.status == Status::Done) {
        unmatched = true;
        line += llvm::formatv(" waits for core {0}, which has finished", c.partner);
      } else {
        line += llvm::formatv(" waits for core {0}, which is blocked at {1}", c.partner, at(peer));
      }
    }
    lines.push_back(std::move(line));
  }
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 (unmatched ? "unmatched transfer: " : "deadlock: ") +
                                     llvm::join(lines, "; "));
}

template <bool kUnit> llvm::Error Machine::runCore(CoreState &c) {
  const int64_t eb = kUnit ? 1 : geo.elementBytes;
  const CoreProgram &prog = *c.program;
  const Op *ops = prog.ops.data();
  const size_t n = prog.ops.size();
  float *mem = c.local.get();
  int32_t *r = c.regs;
  const uint64_t budget = total >= limit ? 0 : limit - total;
  uint64_t done = 0;
  size_t pc = c.pc;
  auto stop = [&](Status status) {
    c.pc = pc;
    c.status = status;
    c.executed += done;
    total += done;
  };

  for (; pc < n; ++pc, ++done) {
    if (LLVM_UNLIKELY(done == budget)) {
      stop(Status::Ready);
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     llvm::formatv("stopped at the limit of {0} instructions "
                                                   "({1})",
                                                   limit, where(c)));
    }
    const Op &op = ops[pc];
    switch (op.code) {
    case Opcode::Sldi:
      r[op.rd] = op.a;
      continue;
    case Opcode::Saddi:
      r[op.rd] = wrapAdd(r[op.rs1], op.a);
      continue;
    case Opcode::Smuli:
      r[op.rd] = wrapMul(r[op.rs1], op.a);
      continue;
    case Opcode::Sadd:
      r[op.rd] = wrapAdd(r[op.rs1], r[op.rs2]);
      continue;
    case Opcode::Ssub:
      r[op.rd] = wrapSub(r[op.rs1], r[op.rs2]);
      continue;
    case Opcode::Smul:
      r[op.rd] = wrapMul(r[op.rs1], r[op.rs2]);
      continue;
    case Opcode::Setbw: // checked against the manifest at load time
      continue;

    case Opcode::Mvmul: {
      const Group &g = prog.groups[op.a];
      if (!local<kUnit>(r[op.rs1], g.rows * eb, true, "rs1, the programmed rows") ||
          !local<kUnit>(r[op.rd], geo.outputsPerCrossbar * g.crossbars * eb, true, "rd"))
        break;
      mvmul<kUnit>(mem, op, r, g);
      continue;
    }

    case Opcode::Vvadd:
    case Opcode::Vvsub:
    case Opcode::Vvmul:
    case Opcode::Vvmax:
    case Opcode::Vvdmul: {
      const int64_t len = op.a, bytes = len * eb;
      const int64_t d = r[op.rd], s1 = r[op.rs1], s2 = r[op.rs2];
      const bool dot = op.code == Opcode::Vvdmul;
      if (!local<kUnit>(s1, bytes, true, "rs1") || !local<kUnit>(s2, bytes, true, "rs2") ||
          !local<kUnit>(d, dot ? eb : bytes, true, "rd"))
        break;
      if (dot) {
        float sum = 0;
        for (int64_t k = 0; k < len; ++k)
          sum += mem[s1 + k * eb] * mem[s2 + k * eb];
        mem[d] = sum;
        continue;
      }
      const float *x = operand(mem, d, s1, bytes, scratchA);
      const float *y = operand(mem, d, s2, bytes, scratchB);
      float *z = mem + d;
      if (op.code == Opcode::Vvadd)
        map2(z, x, y, len, eb, [](float a, float b) { return a + b; });
      else if (op.code == Opcode::Vvsub)
        map2(z, x, y, len, eb, [](float a, float b) { return a - b; });
      else if (op.code == Opcode::Vvmul)
        map2(z, x, y, len, eb, [](float a, float b) { return a * b; });
      else
        map2(z, x, y, len, eb, [](float a, float b) { return std::max(a, b); });
      continue;
    }

    case Opcode::Vrelu:
    case Opcode::Vtanh:
    case Opcode::Vsigm:
    case Opcode::Vrsu:
    case Opcode::Vrsl: {
      const int64_t len = op.a, bytes = len * eb;
      const int64_t d = r[op.rd], s = r[op.rs1];
      if (!local<kUnit>(s, bytes, true, "rs1") || !local<kUnit>(d, bytes, true, "rd"))
        break;
      float bound = 0;
      if (op.code == Opcode::Vrsu || op.code == Opcode::Vrsl) {
        if (!local<kUnit>(r[op.rs2], eb, true, "rs2, the bound"))
          break;
        bound = mem[r[op.rs2]];
      }
      const float *x = operand(mem, d, s, bytes, scratchA);
      float *z = mem + d;
      switch (op.code) {
      case Opcode::Vrelu:
        map1(z, x, len, eb, [](float a) { return std::max(a, 0.0f); });
        break;
      case Opcode::Vtanh:
        map1(z, x, len, eb, [](float a) { return std::tanh(a); });
        break;
      case Opcode::Vsigm:
        map1(z, x, len, eb, [](float a) { return 1.0f / (1.0f + std::exp(-a)); });
        break;
      case Opcode::Vrsu:
        map1(z, x, len, eb, [bound](float a) { return std::min(a, bound); });
        break;
      default:
        map1(z, x, len, eb, [bound](float a) { return std::max(a, bound); });
        break;
      }
      continue;
    }

    case Opcode::Vavg: {
      const int64_t len = op.a, d = r[op.rd], s = r[op.rs1];
      if (!local<kUnit>(s, len * eb, true, "rs1") || !local<kUnit>(d, eb, true, "rd"))
        break;
      float sum = 0;
      for (int64_t k = 0; k < len; ++k)
        sum += mem[s + k * eb];
      mem[d] = sum / float(len);
      continue;
    }

    case Opcode::Vmv: { // rd[k] = rs1[k * stride], stride = reg[rs2] elements
      const int64_t len = op.a, bytes = len * eb, d = r[op.rd], s = r[op.rs1];
      const int64_t stride = r[op.rs2];
      if (!local<kUnit>(d, bytes, true, "rd"))
        break;
      if (len == 0)
        continue;
      int64_t span; // byte distance from the first element read to the last
      if (__builtin_mul_overflow((len - 1) * eb, stride, &span)) {
        why = llvm::formatv("the stride {0} overflows", stride);
        break;
      }
      const int64_t lo = s + std::min<int64_t>(span, 0), hi = s + std::max<int64_t>(span, 0) + eb;
      if (!local<kUnit>(lo, hi - lo, true, "rs1 with the stride of rs2"))
        break;
      // A gather may read behind and ahead of its writes: copy any overlap.
      const float *x = lo < d + bytes && d < hi ? copy(mem, lo, hi, scratchA) + (s - lo) : mem + s;
      for (int64_t k = 0; k < len; ++k)
        mem[d + k * eb] = x[k * stride * eb];
      continue;
    }

    case Opcode::Ld:
    case Opcode::St: {
      const bool load = op.code == Opcode::Ld;
      const int pair = load ? op.rs1 : op.rd;
      const int64_t g = int64_t((uint64_t(uint32_t(r[pair])) << 32) | uint32_t(r[pair + 1]));
      const int64_t l = load ? r[op.rd] : r[op.rs1], size = op.a;
      if (!inGlobal(g, size, load ? "rs1:rs1+1" : "rd:rd+1") ||
          !local<kUnit>(l, size, true, load ? "rd" : "rs1"))
        break;
      float *lp = mem + l, *gp = global + g / eb;
      const int64_t count = size / eb;
      if (load)
        for (int64_t k = 0; k < count; ++k)
          lp[k * eb] = gp[k];
      else
        for (int64_t k = 0; k < count; ++k)
          gp[k] = lp[k * eb];
      continue;
    }

    case Opcode::Lldi:
      if (!local<kUnit>(r[op.rd], op.b, false, "rd"))
        break;
      std::fill_n(mem + r[op.rd], op.b, float(op.a));
      continue;

    case Opcode::Lmv:
      if (!local<kUnit>(r[op.rd], op.a, false, "rd") ||
          !local<kUnit>(r[op.rs1], op.a, false, "rs1"))
        break;
      std::memmove(mem + r[op.rd], mem + r[op.rs1], size_t(op.a) * sizeof(float));
      continue;

    case Opcode::Send:
    case Opcode::Recv: {
      const bool sending = op.code == Opcode::Send;
      if (!local<kUnit>(r[op.rd], op.a, false, sending ? "rd, the source" : "rd"))
        break;
      CoreState &peer = cores[op.b];
      const int64_t self = prog.id;
      if (peer.status != (sending ? Status::Recv : Status::Send) || peer.partner != self) {
        c.partner = op.b;
        stop(sending ? Status::Send : Status::Recv);
        return llvm::Error::success();
      }
      const Op &theirs = peer.program->ops[peer.pc];
      if (theirs.a != op.a) {
        why =
            llvm::formatv("it {0} {1} bytes, but {2} {3} {4} bytes", sending ? "sends" : "receives",
                          op.a, where(peer), sending ? "receives" : "sends", theirs.a);
        break;
      }
      float *mine = mem + r[op.rd], *other = peer.local.get() + peer.regs[theirs.rd];
      if (sending)
        std::memcpy(other, mine, size_t(op.a) * sizeof(float));
      else
        std::memcpy(mine, other, size_t(op.a) * sizeof(float));
      retire(peer);
      continue;
    }

    case Opcode::Wait: {
      int64_t &count = c.events[op.rs2];
      if (count >= op.a) {
        count -= op.a;
        continue;
      }
      stop(Status::Wait);
      return llvm::Error::success();
    }

    case Opcode::Sync: {
      CoreState &target = cores[op.b];
      ++target.events[op.rs2];
      if (target.status == Status::Wait) {
        const Op &w = target.program->ops[target.pc];
        if (w.rs2 == op.rs2 && target.events[w.rs2] >= w.a)
          wake(target);
      }
      continue;
    }

    default:
      llvm_unreachable("the loader rejects every other opcode");
    }
    // A case broke out of the switch: `why` says what is wrong.
    stop(Status::Ready);
    return fault(c);
  }
  stop(Status::Done);
  return llvm::Error::success();
}

llvm::Error Machine::run(Result &result) {
  cores.resize(program.cores.size());
  size_t maxCols = 1;
  for (size_t i = 0; i < cores.size(); ++i) {
    CoreState &c = cores[i];
    c.program = &program.cores[i];
    for (const Group &g : c.program->groups)
      maxCols = std::max<size_t>(maxCols, g.cols);
    if (!c.local.allocate(geo.localBytes))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     llvm::formatv("cannot allocate the {0}-byte local memory "
                                                   "of core {1}",
                                                   geo.localBytes, i));
    if (c.program->ops.empty())
      c.status = Status::Done;
    else
      wake(c);
  }
  accumulator.resize(maxCols);
  liveRows.resize(geo.xbarRows);
  liveInputs.resize(geo.xbarRows);

  while (!runnable.empty()) {
    CoreState &c = cores[runnable.front()];
    runnable.pop_front();
    c.queued = false;
    if (c.status != Status::Ready)
      continue;
    llvm::Error error = geo.elementBytes == 1 ? runCore<true>(c) : runCore<false>(c);
    if (error)
      return error;
  }
  for (const CoreState &c : cores)
    if (c.status != Status::Done)
      return stuck();

  result.executed = total;
  result.cores.clear();
  for (const CoreState &c : cores)
    result.cores.push_back({c.executed});
  return llvm::Error::success();
}

llvm::Error detail::execute(const LoadedProgram &program, Memory &global, const Options &options,
                            Result &result) {
  return Machine(program, global, options).run(result);
}
