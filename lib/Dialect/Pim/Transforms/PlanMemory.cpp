//===- PlanMemory.cpp - stage 9: liveness planning ------------------------===//
//
// Every pim.alloc of a core gets a local-memory address. A buffer is live from
// its allocation to the last use of it or of any view of it; a use inside a
// loop that the buffer outlives keeps it live to the end of the loop. Buffers
// are placed first-fit in order of their first use, so that buffers whose
// live ranges do not overlap share memory.
//
//===----------------------------------------------------------------------===//

#include "pimc/Dialect/Pim/ModuleArch.h"
#include "pimc/Arch/Arch.h"
#include "pimc/Dialect/Pim/PimDialect.h"
#include "pimc/Dialect/Pim/Transforms/Passes.h"
#include "pimc/Support/Locations.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/FormatVariadic.h"

namespace pimc::pim {
#define GEN_PASS_DEF_PIMPLANMEMORY
#include "pimc/Dialect/Pim/Transforms/Passes.h.inc"
} // namespace pimc::pim

using namespace mlir;
using namespace pimc;
using namespace pimc::pim;

namespace {

constexpr int64_t kAlignment = 16;

struct Buffer {
  AllocOp alloc;
  int64_t size = 0;
  int64_t first = 0, last = 0; // positions in the core's program
  int64_t address = 0;
};

/// What a buffer holds, for diagnostics: the model node it is for.
std::string describe(Location loc) {
  std::string node = nodeName(loc);
  return node.empty() ? "an intermediate value" : node;
}

class CorePlanner {
public:
  CorePlanner(CoreOp core, const Arch &arch) : core(core), arch(arch) {}

  LogicalResult run() {
    // Positions: each op gets one when entered and its region ops after it;
    // `end` is the last position inside it.
    core.walk<WalkOrder::PreOrder>([&](Operation *op) {
      position[op] = next++;
      if (auto alloc = dyn_cast<AllocOp>(op))
        buffers.push_back({alloc});
    });
    core.walk<WalkOrder::PostOrder>([&](Operation *op) {
      int64_t last = position[op];
      for (Region &region : op->getRegions())
        for (Operation &inner : region.getOps())
          last = std::max(last, end[&inner]);
      end[op] = last;
    });
    int64_t elementBytes = arch.inputBytes();
    for (Buffer &buffer : buffers) {
      buffer.size = buffer.alloc.getType().getNumElements() * elementBytes;
      buffer.first = position[buffer.alloc];
      buffer.last = buffer.first;
      extend(buffer, buffer.alloc.getResult());
    }
    // Every instruction may read up to a crossbar's rows from its address, so
    // that much is kept free at the top of memory.
    int64_t capacity = arch.localMemory.memorySize - arch.matrix.xbarRows * elementBytes;
    llvm::sort(buffers, [](const Buffer &a, const Buffer &b) {
      return a.first != b.first ? a.first < b.first : a.size > b.size;
    });
    std::vector<const Buffer *> placed;
    int64_t peak = 0;
    for (Buffer &buffer : buffers) {
      // Ranges of the buffers live at the same time, sorted by address.
      SmallVector<std::pair<int64_t, int64_t>> busy;
      for (const Buffer *other : placed)
        if (other->first <= buffer.last && buffer.first <= other->last)
          busy.push_back({other->address, other->address + other->size});
      llvm::sort(busy);
      int64_t address = 0;
      for (auto [from, to] : busy) {
        if (address + buffer.size <= from)
          break;
        address = std::max(address, (to + kAlignment - 1) / kAlignment * kAlignment);
      }
      buffer.address = address;
      peak = std::max(peak, address + buffer.size);
      if (address + buffer.size > capacity)
        return buffer.alloc.emitError()
               << llvm::formatv("core {0}: local memory overflow: the buffer for "
                                "{1} ({2} bytes) does not fit; the buffers live "
                                "with it need {3} bytes and the core has {4} "
                                "(local memory of {5} bytes, {6} kept for crossbar "
                                "reads)",
                                core.getId(), describe(buffer.alloc.getLoc()),
                                buffer.size, address + buffer.size, capacity,
                                arch.localMemory.memorySize,
                                arch.matrix.xbarRows * elementBytes);
      placed.push_back(&buffer);
      buffer.alloc.setAddressAttr(
          IntegerAttr::get(IntegerType::get(core.getContext(), 64), address));
    }
    core.getContext()->getLoadedDialect<PimDialect>()->getMemoryBytesAttrHelper().setAttr(
        core, IntegerAttr::get(IntegerType::get(core.getContext(), 64), peak));
    return success();
  }

private:
  /// Extends `buffer`'s live range over the uses of `value`, a view of it.
  void extend(Buffer &buffer, Value value) {
    Block *home = buffer.alloc->getBlock();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      // A use nested in a loop the buffer outlives lasts the whole loop.
      Operation *ancestor = home->findAncestorOpInBlock(*user);
      int64_t last = ancestor ? end[ancestor] : end[user];
      buffer.last = std::max(buffer.last, last);
      if (isa<memref::SubViewOp, memref::CollapseShapeOp, memref::ExpandShapeOp,
              memref::CastOp, memref::ReinterpretCastOp>(user)) {
        extend(buffer, user->getResult(0));
      } else if (auto loop = dyn_cast<scf::ForOp>(user)) {
        if (use.getOperandNumber() >= loop.getNumControlOperands()) {
          unsigned i = use.getOperandNumber() - loop.getNumControlOperands();
          extend(buffer, loop.getRegionIterArgs()[i]);
          extend(buffer, loop.getResult(i));
        }
      } else if (auto yield = dyn_cast<scf::YieldOp>(user)) {
        if (auto loop = dyn_cast<scf::ForOp>(yield->getParentOp()))
          extend(buffer, loop.getResult(use.getOperandNumber()));
      }
    }
  }

  CoreOp core;
  const Arch &arch;
  DenseMap<Operation *, int64_t> position, end;
  int64_t next = 0;
  std::vector<Buffer> buffers;
};

struct PimPlanMemoryPass : public pim::impl::PimPlanMemoryBase<PimPlanMemoryPass> {
  using PimPlanMemoryBase::PimPlanMemoryBase;
  void runOnOperation() override {
    std::shared_ptr<const Arch> arch = archOf(getOperation());
    if (!arch)
      return signalPassFailure();
    for (CoreOp core : getOperation().getOps<CoreOp>())
      if (failed(CorePlanner(core, *arch).run()))
        return signalPassFailure();
  }
};
} // namespace
