//===- PimOps.cpp - the pim dialect ---------------------------------------===//

#include "pimc/Dialect/Pim/PimDialect.h"
#include "pimc/Dialect/Pim/ModuleArch.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace pimc::pim;

#include "pimc/Dialect/Pim/PimDialect.cpp.inc"
#include "pimc/Dialect/Pim/PimEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "pimc/Dialect/Pim/PimAttrs.cpp.inc"

void PimDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "pimc/Dialect/Pim/PimAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "pimc/Dialect/Pim/PimOps.cpp.inc"
      >();
}

LogicalResult PimDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  if (attr.getName() == getArchAttrHelper().getName()) {
    auto arch = dyn_cast<ArchAttr>(attr.getValue());
    if (!arch)
      return op->emitOpError() << "'" << attr.getName().getValue() << "' must be a #pim.arch";
    if (!isa<ModuleOp>(op))
      return op->emitOpError() << "'" << attr.getName().getValue()
                               << "' is an attribute of the module";
    // Checked here once: the passes that read it find it parsed.
    if (llvm::Expected<std::shared_ptr<const pimc::Arch>> parsed = pimc::parseArch(arch); !parsed)
      return op->emitOpError() << "'" << attr.getName().getValue()
                               << "': " << llvm::toString(parsed.takeError());
  }
  if (attr.getName() == getMemoryBytesAttrHelper().getName() &&
      !isa<IntegerAttr>(attr.getValue()))
    return op->emitOpError() << "'" << attr.getName().getValue() << "' must be an integer";
  return success();
}

LogicalResult GlobalOp::verify() {
  if (getKind() == GlobalKind::constant)
    return getValue() && getValue()->getType() == getType()
               ? success()
               : emitOpError("a constant needs a value of its type");
  return getIndex() && !getValue()
             ? success()
             : emitOpError("an input or output has an index and no value");
}

LogicalResult CoreOp::verify() {
  if (getId() < 0)
    return emitOpError("core ids are not negative");
  for (Attribute attr : getGroups()) {
    auto group = cast<GroupAttr>(attr);
    if (group.getRows() <= 0 || group.getCols() <= 0)
      return emitOpError("array groups hold a non-empty weight window");
  }
  return success();
}

static LogicalResult verifyGlobalUse(Operation *op, StringRef name,
                                     SymbolTableCollection &symbols) {
  if (!symbols.lookupNearestSymbolFrom<GlobalOp>(
          op, StringAttr::get(op->getContext(), name)))
    return op->emitOpError() << "'" << name << "' is not a pim.global";
  return success();
}

LogicalResult LoadOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyGlobalUse(*this, getGlobal(), symbols);
}
LogicalResult StoreOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyGlobalUse(*this, getGlobal(), symbols);
}

//===----------------------------------------------------------------------===//
// Destination-passing style: every op is either all tensors (returning the
// updated `out`) or all memrefs (returning nothing).
//===----------------------------------------------------------------------===//

static bool isBuffer(Type type) { return isa<TensorType, BaseMemRefType>(type); }

static LogicalResult verifyDps(Operation *op) {
  bool tensors = false, memrefs = false;
  for (Value operand : op->getOperands()) {
    tensors |= isa<TensorType>(operand.getType());
    memrefs |= isa<BaseMemRefType>(operand.getType());
  }
  if (tensors && memrefs)
    return op->emitOpError("mixes tensors and memrefs");
  if (memrefs && op->getNumResults() != 0)
    return op->emitOpError("on memrefs returns nothing");
  return success();
}

static int64_t numElements(Value value) {
  return cast<ShapedType>(value.getType()).getNumElements();
}

static LogicalResult verifySameElements(Operation *op, ValueRange values) {
  for (Value value : values)
    if (isBuffer(value.getType()) && numElements(value) != numElements(values[0]))
      return op->emitOpError("operands must have the same number of elements");
  return success();
}

static LogicalResult verifyContiguousRows(Operation *op, Value value) {
  auto memref = dyn_cast<MemRefType>(value.getType());
  if (!memref || memref.getRank() == 0)
    return success();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(getStridesAndOffset(memref, strides, offset)) || strides.back() != 1)
    return op->emitOpError("rows must be contiguous in memory");
  return success();
}

LogicalResult MVMOp::verify() {
  if (failed(verifyDps(*this)))
    return failure();
  auto core = (*this)->getParentOfType<CoreOp>();
  if (!core)
    return emitOpError("must be inside a pim.core");
  ArrayAttr groups = core.getGroups();
  if (getGroup() < 0 || getGroup() >= (int64_t)groups.size())
    return emitOpError() << "group " << getGroup() << " is not one of the "
                         << groups.size() << " array groups of core "
                         << core.getId();
  auto group = cast<GroupAttr>(groups[getGroup()]);
  if (numElements(getInput()) != group.getRows())
    return emitOpError() << "array group " << getGroup() << " takes "
                         << group.getRows() << " elements";
  if (numElements(getOut()) < group.getCols())
    return emitOpError() << "array group " << getGroup() << " writes at least "
                         << group.getCols() << " elements";
  return verifyContiguousRows(*this, getInput());
}

#define PIM_VERIFY_SAME(OP, ...)                                              \
  LogicalResult OP::verify() {                                                 \
    if (failed(verifyDps(*this)))                                              \
      return failure();                                                        \
    return verifySameElements(*this, {__VA_ARGS__});                           \
  }
PIM_VERIFY_SAME(VVAddOp, getLhs(), getRhs(), getOut())
PIM_VERIFY_SAME(VVSubOp, getLhs(), getRhs(), getOut())
PIM_VERIFY_SAME(VVMulOp, getLhs(), getRhs(), getOut())
PIM_VERIFY_SAME(VVMaxOp, getLhs(), getRhs(), getOut())
PIM_VERIFY_SAME(VReluOp, getInput(), getOut())
PIM_VERIFY_SAME(VSigmOp, getInput(), getOut())
PIM_VERIFY_SAME(VTanhOp, getInput(), getOut())
PIM_VERIFY_SAME(LMVOp, getInput(), getOut())
PIM_VERIFY_SAME(VRSLOp, getInput(), getOut())
PIM_VERIFY_SAME(VRSUOp, getInput(), getOut())

LogicalResult LLDIOp::verify() {
  if (failed(verifyDps(*this)))
    return failure();
  int64_t value = getValueAttr().getInt();
  if (value < INT32_MIN || value > INT32_MAX)
    return emitOpError("lldi writes a 32-bit integer");
  return verifyContiguousRows(*this, getOut());
}
#undef PIM_VERIFY_SAME

LogicalResult VMVOp::verify() {
  if (failed(verifyDps(*this)))
    return failure();
  if (getStride() < 1)
    return emitOpError("stride must be positive");
  if ((numElements(getOut()) - 1) * getStride() >= numElements(getInput()))
    return emitOpError("gathers past the end of its input");
  return success();
}

LogicalResult LoadOp::verify() {
  if (failed(verifyDps(*this)))
    return failure();
  return verifyContiguousRows(*this, getOut());
}

LogicalResult RecvOp::verify() {
  if (failed(verifyDps(*this)))
    return failure();
  return verifyContiguousRows(*this, getOut());
}

//===----------------------------------------------------------------------===//
// Memory effects: memref operands are read (inputs) or written (out);
// transfers also touch global memory or the NoC, so they are never removed
// or reordered with one another.
//===----------------------------------------------------------------------===//

namespace {
struct GlobalMemoryResource
    : public SideEffects::Resource::Base<GlobalMemoryResource> {
  StringRef getName() final { return "pim.global_memory"; }
};
struct NetworkResource : public SideEffects::Resource::Base<NetworkResource> {
  StringRef getName() final { return "pim.network"; }
};
} // namespace

using Effects =
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>;

static void addOperandEffects(Operation *op, Effects &effects,
                              OpOperand *out) {
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<BaseMemRefType>(operand.get().getType()))
      continue;
    if (&operand == out)
      effects.emplace_back(MemoryEffects::Write::get(), &operand);
    else
      effects.emplace_back(MemoryEffects::Read::get(), &operand);
  }
}

#define PIM_DPS_EFFECTS(OP)                                                   \
  void OP::getEffects(Effects &effects) {                                      \
    addOperandEffects(*this, effects, &getOutMutable());                    \
  }
PIM_DPS_EFFECTS(MVMOp)
PIM_DPS_EFFECTS(VVAddOp)
PIM_DPS_EFFECTS(VVSubOp)
PIM_DPS_EFFECTS(VVMulOp)
PIM_DPS_EFFECTS(VVMaxOp)
PIM_DPS_EFFECTS(VReluOp)
PIM_DPS_EFFECTS(VSigmOp)
PIM_DPS_EFFECTS(VTanhOp)
PIM_DPS_EFFECTS(VMVOp)
PIM_DPS_EFFECTS(LMVOp)
PIM_DPS_EFFECTS(VRSLOp)
PIM_DPS_EFFECTS(VRSUOp)
PIM_DPS_EFFECTS(LLDIOp)
#undef PIM_DPS_EFFECTS

void LoadOp::getEffects(Effects &effects) {
  addOperandEffects(*this, effects, &getOutMutable());
  effects.emplace_back(MemoryEffects::Read::get(), GlobalMemoryResource::get());
}

void StoreOp::getEffects(Effects &effects) {
  addOperandEffects(*this, effects, nullptr);
  effects.emplace_back(MemoryEffects::Write::get(), GlobalMemoryResource::get());
}

void SendOp::getEffects(Effects &effects) {
  addOperandEffects(*this, effects, nullptr);
  effects.emplace_back(MemoryEffects::Write::get(), NetworkResource::get());
}

void RecvOp::getEffects(Effects &effects) {
  addOperandEffects(*this, effects, &getOutMutable());
  effects.emplace_back(MemoryEffects::Read::get(), NetworkResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), NetworkResource::get());
}

#define GET_OP_CLASSES
#include "pimc/Dialect/Pim/PimOps.cpp.inc"
