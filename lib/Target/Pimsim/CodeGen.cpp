//===- CodeGen.cpp - stage 10: pimsim-nn code generation ------------------===//
//
// Walks each planned pim.core as an interpreter of its index arithmetic,
// views and loops, and streams the instructions of every pim operation to
// the core's program file as it goes: lanes are unrolled here and nowhere
// earlier, and no program is ever held in memory. Addresses are bytes of
// local memory held in registers; a register that already holds an address
// is reused rather than reloaded. The target's quirks are handled here:
// setbw first, offsets 0/0, send with rd = rs1, no sadd/ssub/smul, no nop,
// and the last instruction of a program is never a scalar one (every
// program ends with the instruction of a pim operation).
//
//===----------------------------------------------------------------------===//

#include "pimc/Target/Pimsim/CodeGen.h"
#include "pimc/Dialect/Pim/PimDialect.h"
#include "pimc/Support/Constants.h"
#include "pimc/Support/InputLimits.h"
#include "pimc/Support/Locations.h"
#include "pimc/Target/Pimsim/Artifacts.h"
#include "pimc/Target/Pimsim/Isa.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <map>

using namespace mlir;
using namespace pimc;
using pimc::isa::Instruction;
using pimc::isa::Opcode;
using pimc::isa::ProgramWriter;

CoreCodeStats CodeGenStats::total() const {
  CoreCodeStats t;
  for (const CoreCodeStats &c : cores) {
    t.instructions += c.instructions;
    t.mvm += c.mvm;
    t.vector += c.vector;
    t.scalar += c.scalar;
    t.registerOperands += c.registerOperands;
    t.setbw += c.setbw;
    t.send += c.send;
    t.recv += c.recv;
    t.sendBytes += c.sendBytes;
    t.recvBytes += c.recvBytes;
    t.load += c.load;
    t.store += c.store;
    t.loadBytes += c.loadBytes;
    t.storeBytes += c.storeBytes;
    t.copies += c.copies;
    t.copyBytes += c.copyBytes;
    t.other += c.other;
    t.groups += c.groups;
    t.crossbars += c.crossbars;
    t.memoryBytes = std::max(t.memoryBytes, c.memoryBytes);
  }
  return t;
}

static llvm::Error fail(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

namespace {

/// A memref during code generation: a byte base address and the strided
/// layout (in elements) of the view.
struct View {
  int64_t base = 0;
  int64_t offset = 0;
  SmallVector<int64_t> shape, strides;

  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  bool isContiguous() const {
    int64_t expected = 1;
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      if (shape[d] != 1 && strides[d] != expected)
        return false;
      expected *= shape[d];
    }
    return true;
  }
  /// Element offsets of the starts of the rows (the last dimension).
  SmallVector<int64_t> rowOffsets() const {
    SmallVector<int64_t> rows = {offset};
    for (size_t d = 0; d + 1 < shape.size(); ++d) {
      SmallVector<int64_t> next;
      for (int64_t r : rows)
        for (int64_t i = 0; i < shape[d]; ++i)
          next.push_back(r + i * strides[d]);
      rows = std::move(next);
    }
    return rows;
  }
  int64_t rowLength() const { return shape.empty() ? 1 : shape.back(); }
};

/// Registers and the values they are known to hold.
class Registers {
public:
  explicit Registers(ProgramWriter &writer, CoreCodeStats &stats)
      : writer(writer), stats(stats) {
    // Every register is 0 when a core starts.
    for (int r = 0; r < kCount; ++r)
      value[r] = 0;
  }

  /// A register holding `v`, loading it if none does; registers in `keep`
  /// are not reused.
  int get(int32_t v, std::initializer_list<int> keep = {}) {
    ++stats.registerOperands;
    for (int r = 0; r < kCount; ++r)
      if (known[r] && value[r] == v) {
        touch(r);
        return r;
      }
    int r = victim(keep, /*pair=*/false);
    emit(r, v);
    return r;
  }

  /// An even register r with r = high word and r + 1 = low word of `address`.
  int getPair(int64_t address, std::initializer_list<int> keep = {}) {
    int32_t high = static_cast<int32_t>(address >> 32);
    int32_t low = static_cast<int32_t>(address & 0xffffffff);
    stats.registerOperands += 2;
    for (int r = 0; r + 1 < kCount; r += 2)
      if (known[r] && known[r + 1] && value[r] == high && value[r + 1] == low) {
        touch(r);
        touch(r + 1);
        return r;
      }
    int r = victim(keep, /*pair=*/true);
    if (!known[r] || value[r] != high)
      emit(r, high);
    emit(r + 1, low);
    touch(r);
    return r;
  }

private:
  static constexpr int kCount = 32;

  void touch(int r) { used[r] = ++clock; }

  int victim(std::initializer_list<int> keep, bool pair) {
    int best = -1;
    for (int r = 0; r < kCount; r += pair ? 2 : 1) {
      auto kept = [&](int reg) { return llvm::is_contained(keep, reg); };
      if (kept(r) || (pair && kept(r + 1)))
        continue;
      uint64_t age = pair ? std::max(used[r], used[r + 1]) : used[r];
      if (best < 0 || age < (pair ? std::max(used[best], used[best + 1]) : used[best]))
        best = r;
    }
    return best;
  }

  void emit(int r, int32_t v) {
    writer.write(Instruction::sldi(r, v));
    ++stats.scalar;
    ++stats.instructions;
    known[r] = true;
    value[r] = v;
    touch(r);
  }

  ProgramWriter &writer;
  CoreCodeStats &stats;
  int32_t value[kCount];
  bool known[kCount] = {true, true, true, true, true, true, true, true,
                        true, true, true, true, true, true, true, true,
                        true, true, true, true, true, true, true, true,
                        true, true, true, true, true, true, true, true};
  uint64_t used[kCount] = {};
  uint64_t clock = 0;
};

/// Where a global tensor is: its address in global memory and, for an
/// input or output, how far apart its samples are (0 for a constant).
struct GlobalPlace {
  int64_t address = 0;
  int64_t sampleBytes = 0;
};

class CoreEmitter {
public:
  CoreEmitter(pim::CoreOp core, const Arch &arch,
              const std::map<std::string, GlobalPlace> &globalPlaces, int64_t samples,
              ProgramWriter &writer, CoreCodeStats &stats, std::vector<std::string> &nodes,
              llvm::StringMap<int32_t> &nodeIds)
      : core(core), arch(arch), globalPlaces(globalPlaces), samples(samples), writer(writer),
        stats(stats), registers(writer, stats), elementBytes(arch.inputBytes()),
        nodes(nodes), nodeIds(nodeIds) {}

  LogicalResult run() {
    bool any = false;
    core.walk([&](Operation *op) {
      any |= op->getDialect() == core->getDialect() && !llvm::isa<pim::AllocOp>(op) &&
             op != core.getOperation();
    });
    if (any) {
      writer.write(Instruction::setbw(arch.inputBits, arch.outputBits));
      ++stats.setbw;
      ++stats.instructions;
    }
    // The core's part of each sample, as soon as it is done with the last.
    for (sample = 0; sample < samples; ++sample)
      if (failed(walk(core.getBody().front())))
        return failure();
    return success();
  }

private:
  LogicalResult walk(Block &block) {
    for (Operation &op : block)
      if (failed(visit(op)))
        return failure();
    return success();
  }

  int64_t indexOf(Value value) { return indices.lookup(value); }
  /// The address of global `name`'s part of the current sample.
  int64_t globalAddress(StringRef name) {
    const GlobalPlace &place = globalPlaces.at(name.str());
    return place.address + sample * place.sampleBytes;
  }
  const View &viewOf(Value value) { return views[value]; }
  /// Byte address of element `element` (an element offset) of a view.
  int32_t address(const View &view, int64_t element) {
    return static_cast<int32_t>(view.base + element * elementBytes);
  }
  int32_t bytes(int64_t elements) {
    return static_cast<int32_t>(elements * elementBytes);
  }

  void emit(const Instruction &inst) {
    writer.write(inst);
    ++stats.instructions;
  }

  /// Marks where the instructions of another model node begin.
  void mark(Operation &op) {
    auto known = nodeOf.find(&op);
    if (known == nodeOf.end()) {
      std::string name = nodeName(op.getLoc());
      auto [it, isNew] = nodeIds.try_emplace(name, int32_t(nodes.size()));
      if (isNew)
        nodes.push_back(name);
      known = nodeOf.try_emplace(&op, it->second).first;
    }
    if (stats.nodeMarks.empty() || stats.nodeMarks.back().second != known->second) {
      if (!stats.nodeMarks.empty() && stats.nodeMarks.back().first == uint64_t(stats.instructions))
        stats.nodeMarks.back().second = known->second;
      else
        stats.nodeMarks.push_back({uint64_t(stats.instructions), known->second});
    }
  }

  LogicalResult visit(Operation &op) {
    if (!llvm::isa<scf::ForOp>(op))
      mark(op);
    return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
        .Case([&](arith::ConstantIndexOp c) {
          indices[c] = c.value();
          return success();
        })
        .Case([&](arith::AddIOp o) {
          indices[o] = indexOf(o.getLhs()) + indexOf(o.getRhs());
          return success();
        })
        .Case([&](arith::MulIOp o) {
          indices[o] = indexOf(o.getLhs()) * indexOf(o.getRhs());
          return success();
        })
        .Case([&](arith::SubIOp o) {
          indices[o] = indexOf(o.getLhs()) - indexOf(o.getRhs());
          return success();
        })
        .Case([&](arith::DivUIOp o) {
          indices[o] = indexOf(o.getLhs()) / indexOf(o.getRhs());
          return success();
        })
        .Case([&](arith::RemUIOp o) {
          indices[o] = indexOf(o.getLhs()) % indexOf(o.getRhs());
          return success();
        })
        .Case([&](pim::AllocOp alloc) -> LogicalResult {
          if (!alloc.getAddress())
            return alloc.emitOpError("has no address (run pim-plan-memory)");
          View view;
          view.base = *alloc.getAddress();
          MemRefType type = alloc.getType();
          view.shape.assign(type.getShape().begin(), type.getShape().end());
          view.strides.assign(type.getRank(), 1);
          for (int64_t d = type.getRank() - 2; d >= 0; --d)
            view.strides[d] = view.strides[d + 1] * view.shape[d + 1];
          views[alloc] = view;
          return success();
        })
        .Case([&](memref::SubViewOp subview) { return visitSubView(subview); })
        .Case([&](memref::CollapseShapeOp collapse) {
          const View &source = viewOf(collapse.getSrc());
          View view{source.base, source.offset, {}, {}};
          for (const ReassociationIndices &group : collapse.getReassociationIndices()) {
            int64_t size = 1;
            for (int64_t d : group)
              size *= source.shape[d];
            view.shape.push_back(size);
            // The stride of the innermost dimension that is not of size 1: a
            // column [n, 1] of a matrix collapses to n elements a row apart.
            int64_t stride = 1;
            for (int64_t d : llvm::reverse(group))
              if (source.shape[d] != 1) {
                stride = source.strides[d];
                break;
              }
            view.strides.push_back(stride);
          }
          views[collapse] = view;
          return success();
        })
        .Case([&](memref::ExpandShapeOp expand) {
          const View &source = viewOf(expand.getSrc());
          View view{source.base, source.offset, {}, {}};
          auto resultShape = expand.getResultType().getShape();
          for (auto [i, group] : llvm::enumerate(expand.getReassociationIndices())) {
            int64_t stride = source.strides.empty() ? 1 : source.strides[i];
            SmallVector<int64_t> groupStrides(group.size());
            for (int64_t j = group.size() - 1; j >= 0; --j) {
              groupStrides[j] = stride;
              stride *= resultShape[group[j]];
            }
            for (auto [j, d] : llvm::enumerate(group)) {
              view.shape.push_back(resultShape[d]);
              view.strides.push_back(groupStrides[j]);
            }
          }
          views[expand] = view;
          return success();
        })
        .Case([&](memref::CastOp cast) {
          views[cast] = viewOf(cast.getSource());
          return success();
        })
        .Case([&](scf::ForOp loop) { return visitFor(loop); })
        .Case([&](scf::YieldOp) { return success(); })
        .Case([&](pim::MVMOp mvm) {
          const View &in = viewOf(mvm.getInput()), &out = viewOf(mvm.getOut());
          int rs1 = registers.get(address(in, in.offset));
          int rd = registers.get(address(out, out.offset), {rs1});
          emit(Instruction::mvmul(rd, rs1, arch.weightBits, mvm.getGroup()));
          ++stats.mvm;
          return success();
        })
        .Case([&](pim::VVAddOp o) { return binary(Opcode::Vvadd, o.getLhs(), o.getRhs(), o.getOut()); })
        .Case([&](pim::VVSubOp o) { return binary(Opcode::Vvsub, o.getLhs(), o.getRhs(), o.getOut()); })
        .Case([&](pim::VVMulOp o) { return binary(Opcode::Vvmul, o.getLhs(), o.getRhs(), o.getOut()); })
        .Case([&](pim::VVMaxOp o) { return binary(Opcode::Vvmax, o.getLhs(), o.getRhs(), o.getOut()); })
        .Case([&](pim::VRSLOp o) { return binary(Opcode::Vrsl, o.getInput(), o.getBound(), o.getOut()); })
        .Case([&](pim::VRSUOp o) { return binary(Opcode::Vrsu, o.getInput(), o.getBound(), o.getOut()); })
        .Case([&](pim::LLDIOp o) {
          const View &out = viewOf(o.getOut());
          auto fill = [&](int64_t element, int64_t n) {
            int rd = registers.get(address(out, element));
            Instruction inst = Instruction::transfer(Opcode::Lldi, rd, 0, bytes(n));
            inst.imm = static_cast<int32_t>(o.getValue());
            emit(inst);
            ++stats.other;
          };
          if (out.isContiguous())
            fill(out.offset, out.numElements());
          else
            for (int64_t row : out.rowOffsets())
              fill(row, out.rowLength());
          return success();
        })
        .Case([&](pim::VReluOp o) { return unary(Opcode::Vrelu, o.getInput(), o.getOut()); })
        .Case([&](pim::VSigmOp o) { return unary(Opcode::Vsigm, o.getInput(), o.getOut()); })
        .Case([&](pim::VTanhOp o) { return unary(Opcode::Vtanh, o.getInput(), o.getOut()); })
        .Case([&](pim::VMVOp o) -> LogicalResult {
          const View &in = viewOf(o.getInput()), &out = viewOf(o.getOut());
          if (!out.isContiguous())
            return o.emitOpError("needs a contiguous destination");
          int rs1 = registers.get(address(in, in.offset));
          int rd = registers.get(address(out, out.offset), {rs1});
          int rs2 = registers.get(static_cast<int32_t>(o.getStride()), {rs1, rd});
          emit(Instruction::vector(Opcode::Vmv, rd, rs1, rs2,
                                   static_cast<int32_t>(out.numElements())));
          ++stats.vector;
          return success();
        })
        .Case([&](pim::LMVOp o) {
          return rows(o, viewOf(o.getInput()), viewOf(o.getOut()),
                      [&](int32_t from, int32_t to, int64_t n) {
                        int rs1 = registers.get(from);
                        int rd = registers.get(to, {rs1});
                        emit(Instruction::transfer(Opcode::Lmv, rd, rs1, bytes(n)));
                        ++stats.copies;
                        stats.copyBytes += bytes(n);
                      });
        })
        .Case([&](pim::LoadOp load) {
          const View &out = viewOf(load.getOut());
          int64_t global = globalAddress(load.getGlobal());
          int64_t first = indexOf(load.getOffset());
          return globalRows(out, load.getRowStride(), [&](int64_t element, int64_t local,
                                                          int64_t n) {
            int64_t from = global + (first + element) * elementBytes;
            int rs1 = registers.getPair(from);
            int rd = registers.get(address(out, local), {rs1, rs1 + 1});
            emit(Instruction::transfer(Opcode::Ld, rd, rs1, bytes(n)));
            ++stats.load;
            stats.loadBytes += bytes(n);
          });
        })
        .Case([&](pim::StoreOp store) {
          const View &in = viewOf(store.getInput());
          int64_t global = globalAddress(store.getGlobal());
          int64_t first = indexOf(store.getOffset());
          return globalRows(in, store.getRowStride(), [&](int64_t element, int64_t local,
                                                          int64_t n) {
            int64_t to = global + (first + element) * elementBytes;
            int rd = registers.getPair(to);
            int rs1 = registers.get(address(in, local), {rd, rd + 1});
            emit(Instruction::transfer(Opcode::St, rd, rs1, bytes(n)));
            ++stats.store;
            stats.storeBytes += bytes(n);
          });
        })
        .Case([&](pim::SendOp send) {
          const View &in = viewOf(send.getInput());
          // One message per row, whatever the layout: the receiver splits the
          // same way.
          for (int64_t row : in.rowOffsets()) {
            int reg = registers.get(address(in, row));
            emit(Instruction::send(reg, static_cast<int32_t>(send.getTarget()),
                                   bytes(in.rowLength())));
            ++stats.send;
            stats.sendBytes += bytes(in.rowLength());
          }
          return success();
        })
        .Case([&](pim::RecvOp recv) {
          const View &out = viewOf(recv.getOut());
          for (int64_t row : out.rowOffsets()) {
            int reg = registers.get(address(out, row));
            emit(Instruction::recv(reg, static_cast<int32_t>(recv.getSource()),
                                   bytes(out.rowLength())));
            ++stats.recv;
            stats.recvBytes += bytes(out.rowLength());
          }
          return success();
        })
        .Case([&](pim::SyncOp sync) {
          Instruction inst;
          inst.op = Opcode::Sync;
          inst.core = static_cast<int32_t>(sync.getTarget());
          inst.eventRegister = static_cast<int32_t>(sync.getEvent());
          emit(inst);
          ++stats.other;
          return success();
        })
        .Case([&](pim::WaitOp wait) {
          Instruction inst;
          inst.op = Opcode::Wait;
          inst.eventRegister = static_cast<int32_t>(wait.getEvent());
          inst.waitValue = static_cast<int32_t>(wait.getCount());
          emit(inst);
          ++stats.other;
          return success();
        })
        .Default([&](Operation *other) {
          return other->emitOpError("has no pimsim-nn code generation");
        });
  }

  LogicalResult visitSubView(memref::SubViewOp subview) {
    const View &source = viewOf(subview.getSource());
    // Subviews in loops are visited once per iteration: their static parts
    // are read in place rather than as attributes.
    auto values = [&](ArrayRef<int64_t> statics, OperandRange dynamics) {
      SmallVector<int64_t> result;
      auto dynamic = dynamics.begin();
      for (int64_t v : statics)
        result.push_back(ShapedType::isDynamic(v) ? indexOf(*dynamic++) : v);
      return result;
    };
    SmallVector<int64_t> offsets = values(subview.getStaticOffsets(), subview.getOffsets());
    SmallVector<int64_t> sizes = values(subview.getStaticSizes(), subview.getSizes());
    SmallVector<int64_t> strides = values(subview.getStaticStrides(), subview.getStrides());
    auto known = droppedDims.find(subview);
    if (known == droppedDims.end())
      known = droppedDims.try_emplace(subview, subview.getDroppedDims()).first;
    const llvm::SmallBitVector &dropped = known->second;
    View view{source.base, source.offset, {}, {}};
    for (size_t d = 0; d < offsets.size(); ++d) {
      view.offset += offsets[d] * source.strides[d];
      if (dropped.test(d))
        continue;
      view.shape.push_back(sizes[d]);
      view.strides.push_back(source.strides[d] * strides[d]);
    }
    views[subview] = view;
    return success();
  }

  LogicalResult visitFor(scf::ForOp loop) {
    int64_t lower = indexOf(loop.getLowerBound());
    int64_t upper = indexOf(loop.getUpperBound());
    int64_t step = indexOf(loop.getStep());
    SmallVector<View> carried;
    for (Value init : loop.getInitArgs())
      carried.push_back(viewOf(init));
    Block &body = *loop.getBody();
    auto yield = cast<scf::YieldOp>(body.getTerminator());
    for (int64_t i = lower; i < upper; i += step) {
      indices[loop.getInductionVar()] = i;
      for (auto [arg, view] : llvm::zip(loop.getRegionIterArgs(), carried))
        views[arg] = view;
      if (failed(walk(body)))
        return failure();
      for (auto [k, value] : llvm::enumerate(yield.getOperands()))
        carried[k] = viewOf(value);
    }
    for (auto [result, view] : llvm::zip(loop.getResults(), carried))
      views[result] = view;
    return success();
  }

  LogicalResult binary(Opcode opcode, Value lhs, Value rhs, Value out) {
    const View &a = viewOf(lhs), &b = viewOf(rhs), &o = viewOf(out);
    if (!a.isContiguous() || !b.isContiguous() || !o.isContiguous())
      return out.getParentRegion()->getParentOp()->emitOpError(
          "has a vector operation on a non-contiguous view");
    int rs1 = registers.get(address(a, a.offset));
    int rs2 = registers.get(address(b, b.offset), {rs1});
    int rd = registers.get(address(o, o.offset), {rs1, rs2});
    emit(Instruction::vector(opcode, rd, rs1, rs2,
                             static_cast<int32_t>(o.numElements())));
    ++stats.vector;
    return success();
  }

  LogicalResult unary(Opcode opcode, Value input, Value out) {
    const View &a = viewOf(input), &o = viewOf(out);
    if (!a.isContiguous() || !o.isContiguous())
      return out.getParentRegion()->getParentOp()->emitOpError(
          "has a vector operation on a non-contiguous view");
    int rs1 = registers.get(address(a, a.offset));
    int rd = registers.get(address(o, o.offset), {rs1});
    emit(Instruction::vector(opcode, rd, rs1, 0, static_cast<int32_t>(o.numElements())));
    ++stats.vector;
    return success();
  }

  /// Calls `each(from, to, elements)` for the contiguous runs of a local copy.
  template <typename F>
  LogicalResult rows(Operation *op, const View &from, const View &to, F each) {
    if (from.isContiguous() && to.isContiguous()) {
      each(address(from, from.offset), address(to, to.offset), to.numElements());
      return success();
    }
    SmallVector<int64_t> a = from.rowOffsets(), b = to.rowOffsets();
    if (a.size() != b.size() || from.rowLength() != to.rowLength())
      return op->emitOpError("copies between views of different row shapes");
    for (auto [x, y] : llvm::zip(a, b))
      each(address(from, x), address(to, y), to.rowLength());
    return success();
  }

  /// Calls `each(globalElement, localElement, elements)` for the runs of a
  /// local view exchanged with global memory, where its row r (its last
  /// dimension) is `rowStride` * r elements on (a stride of 0 reads or
  /// writes every row at the same place). Rows whose elements are not
  /// adjacent in local memory (a column of a matrix) go an element at a
  /// time.
  template <typename F>
  LogicalResult globalRows(const View &local, int64_t rowStride, F each) {
    if (local.isContiguous() && (local.shape.size() <= 1 || rowStride == local.rowLength())) {
      each(0, local.offset, local.numElements());
      return success();
    }
    int64_t length = local.rowLength();
    int64_t inner = local.strides.empty() ? 1 : local.strides.back();
    for (auto [r, row] : llvm::enumerate(local.rowOffsets())) {
      if (inner == 1 || length == 1) {
        each(int64_t(r) * rowStride, row, length);
        continue;
      }
      for (int64_t j = 0; j < length; ++j)
        each(int64_t(r) * rowStride + j, row + j * inner, 1);
    }
    return success();
  }

  pim::CoreOp core;
  const Arch &arch;
  const std::map<std::string, GlobalPlace> &globalPlaces;
  int64_t samples;
  int64_t sample = 0;
  ProgramWriter &writer;
  CoreCodeStats &stats;
  Registers registers;
  int64_t elementBytes;
  DenseMap<Value, int64_t> indices;
  DenseMap<Value, View> views;
  DenseMap<Operation *, llvm::SmallBitVector> droppedDims;
  std::vector<std::string> &nodes;
  llvm::StringMap<int32_t> &nodeIds;
  DenseMap<Operation *, int32_t> nodeOf;
};

/// The architecture file beside the program, naming its network file by a
/// path relative to it, so that `ChipTest OUT OUT/arch.json` runs as is:
/// the texts the program was compiled for, whatever the files hold now.
llvm::Error writeArch(const Arch &arch, StringRef directory) {
  llvm::Expected<llvm::json::Value> json = parseJsonWithinDepth(arch.json);
  if (!json || !json->getAsObject())
    return fail("architecture '" + arch.path + "' is not a JSON object" +
                (json ? "" : ": " + llvm::toString(json.takeError())));
  // Under its own name, unless pimc writes a file of that name.
  std::string networkName = llvm::sys::path::filename(arch.networkFile).str();
  if (networkName.empty() || isArtifactName(networkName))
    networkName = "network.json";
  if (auto *chip = json->getAsObject()->getObject("chip_config"))
    if (auto *network = chip->getObject("network_config"))
      (*network)["net_config_file_path"] = networkName;
  if (llvm::Error e = writeOutputFile(join(directory, kArchFile),
                                llvm::formatv("{0:1}\n", *json).str()))
    return e;
  return writeOutputFile(join(directory, networkName), arch.networkJson);
}
} // namespace

llvm::Error pimc::setSimulationMode(StringRef directory, bool throughput,
                                    int64_t simTimeMs) {
  std::string path = join(directory, kArchFile);
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return fail("cannot read '" + path + "'");
  llvm::Expected<llvm::json::Value> json = llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return json.takeError();
  llvm::json::Object *top = json->getAsObject();
  if (!top)
    return fail("'" + path + "' is not a JSON object");
  llvm::json::Object *sim = top->getObject("sim_config");
  if (!sim) {
    (*top)["sim_config"] = llvm::json::Object{{"sim_time", 1}};
    sim = top->getObject("sim_config");
  }
  (*sim)["sim_mode"] = throughput ? 0 : 1;
  if (throughput)
    (*sim)["sim_time"] = simTimeMs;
  return writeOutputFile(path, llvm::formatv("{0:1}\n", *json).str());
}

llvm::Expected<CodeGenStats> pimc::emitPimsimArtifacts(ModuleOp module,
                                                       const Arch &arch,
                                                       const CodeGenOptions &options) {
  if (arch.inputBits != arch.outputBits)
    return fail("pimc needs equal input and output bit widths (one element "
                "slot width)");
  if (std::error_code ec = llvm::sys::fs::create_directories(options.outputDir))
    return llvm::createStringError(ec, "cannot create '" + options.outputDir + "'");
  if (llvm::Error e = removePrograms(options.outputDir))
    return std::move(e);
  int64_t elementBytes = arch.inputBytes();

  // Global memory: constants read by ld first (they are the image), then the
  // model's inputs and outputs, each with room for every sample.
  SymbolTable symbols(module);
  std::map<std::string, GlobalPlace> globalPlaces;
  llvm::StringSet<> readGlobals;
  module.walk([&](pim::LoadOp load) { readGlobals.insert(load.getGlobal()); });
  SmallVector<pim::GlobalOp> globals(module.getOps<pim::GlobalOp>());
  int64_t gmemEnd = 0;
  auto place = [&](pim::GlobalOp global) {
    GlobalPlace &at = globalPlaces[global.getSymName().str()];
    at.address = gmemEnd;
    int64_t size = global.getType().getNumElements() * elementBytes;
    if (global.getKind() != pim::GlobalKind::constant) {
      at.sampleBytes = size;
      size *= options.samples;
    }
    gmemEnd = (gmemEnd + size + 15) / 16 * 16;
  };
  if (options.samples > 1)
    for (pim::GlobalOp global : globals)
      if (global.getKind() != pim::GlobalKind::constant &&
          (global.getType().getRank() == 0 || global.getType().getDimSize(0) != 1))
        return fail("global '" + global.getSymName() +
                    "' is not one sample: a program run once a sample needs inputs "
                    "and outputs whose first axis is 1");
  for (pim::GlobalOp global : globals)
    if (global.getKind() == pim::GlobalKind::constant &&
        readGlobals.contains(global.getSymName()))
      place(global);
  int64_t imageElements = gmemEnd / elementBytes;
  for (pim::GlobalKind kind : {pim::GlobalKind::input, pim::GlobalKind::output})
    for (pim::GlobalOp global : globals)
      if (global.getKind() == kind)
        place(global);

  Manifest manifest;
  manifest.elementBytes = elementBytes;
  manifest.inputBits = arch.inputBits;
  manifest.outputBits = arch.outputBits;
  manifest.weightBits = arch.weightBits;
  manifest.xbarRows = arch.matrix.xbarRows;
  manifest.xbarCols = arch.matrix.xbarCols;
  manifest.outputsPerCrossbar = arch.outputsPerCrossbar();
  manifest.crossbarsPerCore = arch.matrix.xbarArrayCount;
  manifest.localMemoryBytes = arch.localMemory.memorySize;
  manifest.globalMemoryBytes = std::max<int64_t>(gmemEnd, 16);
  manifest.globalImageElements = imageElements;
  for (pim::GlobalOp global : globals) {
    if (global.getKind() == pim::GlobalKind::constant)
      continue;
    TensorLocation location;
    location.name = global.getIoName() ? global.getIoName()->str()
                                       : global.getSymName().str();
    location.index = global.getIndex().value_or(0);
    location.shape.assign(global.getType().getShape().begin(),
                          global.getType().getShape().end());
    if (options.samples > 1)
      location.shape.front() = options.samples;
    location.address = globalPlaces[global.getSymName().str()].address;
    (global.getKind() == pim::GlobalKind::input ? manifest.inputs
                                                : manifest.outputs)
        .push_back(location);
  }
  auto byIndex = [](const TensorLocation &a, const TensorLocation &b) {
    return a.index < b.index;
  };
  llvm::sort(manifest.inputs, byIndex);
  llvm::sort(manifest.outputs, byIndex);

  // The global-memory image.
  {
    std::vector<float> image(imageElements, 0.0f);
    for (pim::GlobalOp global : globals) {
      auto it = globalPlaces.find(global.getSymName().str());
      if (global.getKind() != pim::GlobalKind::constant || it == globalPlaces.end())
        continue;
      std::optional<FloatData> data = FloatData::get(*global.getValue());
      if (!data)
        return fail("constant '" + global.getSymName() + "' is not f32 data");
      std::copy(data->values().begin(), data->values().end(),
                image.begin() + it->second.address / elementBytes);
    }
    llvm::Expected<std::unique_ptr<OutputFile>> file =
        OutputFile::create(join(options.outputDir, kGlobalImageFile));
    if (!file)
      return file.takeError();
    (*file)->os().write(reinterpret_cast<const char *>(image.data()),
                        image.size() * sizeof(float));
    if (llvm::Error e = (*file)->close())
      return std::move(e);
  }

  std::map<int64_t, pim::CoreOp> cores;
  for (pim::CoreOp core : module.getOps<pim::CoreOp>())
    if (!cores.emplace(core.getId(), core).second)
      return fail("two programs for core " + Twine(core.getId()));
  int64_t coreCount = cores.empty() ? 1 : cores.rbegin()->first + 1;
  if (coreCount > arch.coreCount)
    return fail(llvm::formatv("the program uses core {0}, the chip has {1} cores",
                              coreCount - 1, arch.coreCount));
  manifest.coreCount = coreCount;

  CodeGenStats stats;
  stats.globalMemoryBytes = manifest.globalMemoryBytes;
  llvm::json::Object groupMap;
  llvm::Expected<std::unique_ptr<OutputFile>> weightsFile =
      OutputFile::create(join(options.outputDir, kWeightsFile));
  if (!weightsFile)
    return weightsFile.takeError();
  llvm::raw_fd_ostream &weights = (*weightsFile)->os();
  uint64_t weightsOffset = 0;
  std::map<std::tuple<StringRef, int64_t, int64_t, int64_t, int64_t>, uint64_t> writtenBlocks;
  // Weights and array groups core by core (the weights file in order); then
  // the programs, each core on its own and in parallel where the context
  // allows it, with its own table of model nodes, merged in core order.
  struct CoreJob {
    pim::CoreOp core;
    std::unique_ptr<ProgramWriter> writer;
    CoreCodeStats stats;
    std::vector<std::string> nodes;
    llvm::StringMap<int32_t> nodeIds;
    std::string error;
  };
  std::vector<CoreJob> jobs(coreCount);
  for (int64_t id = 0; id < coreCount; ++id) {
    CoreJob &job = jobs[id];
    CoreCodeStats &coreStats = job.stats;
    coreStats.id = id;
    CoreInfo info;
    info.id = id;
    llvm::json::Array crossbarCounts;
    auto it = cores.find(id);
    std::string pimPath = join(options.outputDir, llvm::formatv("core_{0}.pim", id).str());
    std::string jsonPath =
        options.emitJson ? join(options.outputDir, llvm::formatv("core_{0}.json", id).str())
                         : std::string();
    llvm::Expected<std::unique_ptr<ProgramWriter>> writer =
        ProgramWriter::create(pimPath, jsonPath);
    if (!writer)
      return writer.takeError();
    job.writer = std::move(*writer);
    if (it != cores.end()) {
      pim::CoreOp core = it->second;
      job.core = core;
      auto memoryBytes =
          core.getContext()->getLoadedDialect<pim::PimDialect>()->getMemoryBytesAttrHelper();
      if (IntegerAttr memory = memoryBytes.getAttr(core))
        coreStats.memoryBytes = memory.getInt();
      for (Attribute attr : core.getGroups()) {
        auto group = cast<pim::GroupAttr>(attr);
        int64_t crossbars =
            (group.getCols() + arch.outputsPerCrossbar() - 1) / arch.outputsPerCrossbar();
        crossbarCounts.push_back(crossbars);
        ++coreStats.groups;
        coreStats.crossbars += crossbars;
        auto global = symbols.lookup<pim::GlobalOp>(group.getWeights().getValue());
        if (!global || !global.getValue())
          return fail("array group weights '" + group.getWeights().getValue() +
                      "' are not a constant global");
        std::optional<FloatData> data = FloatData::get(*global.getValue());
        if (!data)
          return fail("weights '" + group.getWeights().getValue() + "' are not f32");
        // A block of weights programmed on several cores (a replicated
        // layer) is stored once.
        auto [written, isNew] = writtenBlocks.try_emplace(
            std::make_tuple(group.getWeights().getValue(), group.getRow(), group.getCol(),
                            group.getRows(), group.getCols()),
            weightsOffset);
        uint64_t groupBytes = group.getRows() * group.getCols() * sizeof(float);
        if (isNew) {
          int64_t cols = global.getType().getRank() ? global.getType().getShape().back() : 1;
          for (int64_t r = 0; r < group.getRows(); ++r) {
            const float *row =
                data->values().data() + (group.getRow() + r) * cols + group.getCol();
            weights.write(reinterpret_cast<const char *>(row),
                          group.getCols() * sizeof(float));
          }
          weightsOffset += groupBytes;
        }
        info.groups.push_back(
            {crossbars, group.getRows(), group.getCols(), written->second});
        stats.weightBytes += groupBytes;
        stats.weightCount += group.getRows() * group.getCols();
      }
    }
    groupMap[llvm::formatv("core{0}", id).str()] = std::move(crossbarCounts);
    manifest.cores.push_back(std::move(info));
  }
  MLIRContext *context = module.getContext();
  ParallelDiagnosticHandler diagnostics(context);
  // A failed core keeps its error; the first in core order is reported.
  (void)failableParallelForEachN(context, 0, jobs.size(), [&](size_t id) {
    CoreJob &job = jobs[id];
    diagnostics.setOrderIDForThread(id);
    if (job.core && failed(CoreEmitter(job.core, arch, globalPlaces, options.samples,
                                       *job.writer, job.stats,
                                       job.nodes, job.nodeIds)
                               .run()))
      job.error = llvm::formatv("code generation of core {0} failed (see the "
                                "diagnostics above)",
                                id);
    else if (llvm::Error e = job.writer->finish())
      job.error = llvm::toString(std::move(e));
    job.writer.reset();
    diagnostics.eraseOrderIDForThread();
    return success(job.error.empty());
  });
  llvm::StringMap<int32_t> nodeIds;
  for (CoreJob &job : jobs) {
    if (!job.error.empty())
      return fail(job.error);
    // The core's node numbers become the program's.
    for (auto &[pc, node] : job.stats.nodeMarks) {
      auto [it, isNew] = nodeIds.try_emplace(job.nodes[node], int32_t(stats.nodes.size()));
      if (isNew)
        stats.nodes.push_back(job.nodes[node]);
      node = it->second;
    }
    stats.cores.push_back(std::move(job.stats));
  }
  if (llvm::Error e = (*weightsFile)->close())
    return std::move(e);
  llvm::json::Object config{{"core_cnt", coreCount},
                            {"array_group_map", std::move(groupMap)}};
  if (llvm::Error e = writeOutputFile(join(options.outputDir, kInstructionConfigFile),
                                llvm::formatv("{0:1}\n", llvm::json::Value(std::move(config))).str()))
    return std::move(e);
  if (llvm::Error e = manifest.write(options.outputDir))
    return std::move(e);
  if (llvm::Error e = writeArch(arch, options.outputDir))
    return std::move(e);
  return stats;
}
