//===- Constants.cpp - f32 constant data ----------------------------------===//

#include "pimc/Support/Constants.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace pimc;

/// Constants up to this many elements stay inline in the IR.
static constexpr int64_t kInlineElements = 16;

std::optional<FloatData> FloatData::get(Attribute attr) {
  FloatData data;
  if (auto resource = dyn_cast<DenseF32ResourceElementsAttr>(attr)) {
    std::optional<ArrayRef<float>> values = resource.tryGetAsArrayRef();
    if (!values)
      return std::nullopt;
    data.view = *values;
    return data;
  }
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense || !dense.getElementType().isF32())
    return std::nullopt;
  if (!dense.isSplat()) {
    ArrayRef<char> raw = dense.getRawData();
    data.view = ArrayRef<float>(reinterpret_cast<const float *>(raw.data()),
                                raw.size() / sizeof(float));
    return data;
  }
  data.owned.assign(dense.getNumElements(), dense.getSplatValue<float>());
  data.view = data.owned;
  return data;
}

std::optional<SmallVector<int64_t>> pimc::getIntValues(Attribute attr) {
  auto dense = dyn_cast<DenseIntElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &value : dense)
    values.push_back(value.getSExtValue());
  return values;
}

static std::string blobName(StringRef name) {
  std::string result;
  for (char c : name)
    result += (isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (result.empty() || isdigit(static_cast<unsigned char>(result[0])))
    result = "w_" + result;
  return result;
}

ElementsAttr pimc::makeFloatConstant(RankedTensorType type,
                                     std::vector<float> values, StringRef name) {
  assert((int64_t)values.size() == type.getNumElements());
  if (type.getNumElements() <= kInlineElements)
    return DenseElementsAttr::get(type, ArrayRef<float>(values));
  auto owner = std::make_shared<std::vector<float>>(std::move(values));
  return viewFloatConstant(type, *owner, name, owner, /*irOwned=*/true);
}

ElementsAttr pimc::viewFloatConstant(RankedTensorType type,
                                     ArrayRef<float> values, StringRef name,
                                     std::shared_ptr<const void> keepAlive,
                                     bool irOwned) {
  if (type.getNumElements() <= kInlineElements)
    return DenseElementsAttr::get(type, values);
  AsmResourceBlob blob = UnmanagedAsmResourceBlob::allocateInferAlign(
      values, [keepAlive = std::move(keepAlive)](void *, size_t, size_t) {}, irOwned);
  return DenseResourceElementsAttr::get(type, blobName(name), std::move(blob));
}

static DialectResourceBlobManager::BlobEntry *entryOf(Attribute attr) {
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  return resource ? resource.getRawHandle().getResource() : nullptr;
}

/// Whether an op under `root` other than `op` holds a resource entry for
/// which `holds` is true.
static bool heldByAnother(Operation *root, Operation *op,
                          llvm::function_ref<bool(DialectResourceBlobManager::BlobEntry *)> holds) {
  WalkResult held = root->walk([&](Operation *other) {
    if (other != op)
      for (NamedAttribute attr : other->getAttrs())
        if (DialectResourceBlobManager::BlobEntry *entry = entryOf(attr.getValue());
            entry && holds(entry))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return held.wasInterrupted();
}

void ConstantDataReleaser::notifyOperationErased(Operation *op) {
  for (NamedAttribute attr : op->getAttrs()) {
    DialectResourceBlobManager::BlobEntry *entry = entryOf(attr.getValue());
    if (!entry || !entry->getBlob())
      continue;
    if (!heldByAnother(root, op, [&](auto *other) { return other == entry; }))
      entry->setBlob(AsmResourceBlob());
  }
}

std::optional<MutableArrayRef<float>> pimc::ownedFloatData(Operation *root, Value value) {
  Operation *constant = value.getDefiningOp();
  if (!constant || !value.hasOneUse() || constant->getNumRegions())
    return std::nullopt;
  auto resource = llvm::find_if(constant->getAttrs(), [](NamedAttribute attr) {
    return isa<DenseF32ResourceElementsAttr>(attr.getValue());
  });
  if (resource == constant->getAttrs().end())
    return std::nullopt;
  DialectResourceBlobManager::BlobEntry *entry = entryOf(resource->getValue());
  AsmResourceBlob *blob = entry->getBlob();
  if (!blob || !blob->isMutable() || blob->getData().empty())
    return std::nullopt;
  ArrayRef<char> data = blob->getData();
  bool shared = heldByAnother(root, constant, [&](auto *other) {
    AsmResourceBlob *otherBlob = other->getBlob();
    if (!otherBlob)
      return false;
    ArrayRef<char> otherData = otherBlob->getData();
    return otherData.data() < data.end() && data.data() < otherData.end();
  });
  if (shared)
    return std::nullopt;
  MutableArrayRef<char> bytes = blob->getMutableData();
  return MutableArrayRef<float>(reinterpret_cast<float *>(bytes.data()),
                                bytes.size() / sizeof(float));
}

LogicalResult pimc::applyPatternsReleasingConstants(Operation *root,
                                                    RewritePatternSet &&patterns,
                                                    GreedyRewriteConfig config) {
  ConstantDataReleaser releaser(root);
  config.listener = &releaser;
  return applyPatternsAndFoldGreedily(root, std::move(patterns), config);
}

/// Whether `entry` has data: a released one holds an empty blob.
static bool hasData(const DialectResourceBlobManager::BlobEntry *entry) {
  return entry->getBlob() && !entry->getBlob()->getData().empty();
}

/// The resource entries the ops under `root` hold, with data.
static llvm::SetVector<DialectResourceBlobManager::BlobEntry *> heldEntries(Operation *root) {
  llvm::SetVector<DialectResourceBlobManager::BlobEntry *> held;
  auto hold = [&](Attribute attr) {
    if (DialectResourceBlobManager::BlobEntry *entry = entryOf(attr); entry && hasData(entry))
      held.insert(entry);
  };
  // Attribute by attribute: a dictionary of an op's properties would be
  // built for every op.
  root->walk([&](Operation *op) {
    if (std::optional<RegisteredOperationName> name = op->getRegisteredInfo())
      for (StringAttr attrName : name->getAttributeNames())
        if (std::optional<Attribute> attr = op->getInherentAttr(attrName); attr && *attr)
          hold(*attr);
    for (NamedAttribute attr : op->getDiscardableAttrs())
      hold(attr.getValue());
  });
  return held;
}

/// A view of `blob` that no pass may rewrite: every clone shares the data.
static AsmResourceBlob viewOf(const AsmResourceBlob &blob) {
  return UnmanagedAsmResourceBlob::allocateWithAlign(blob.getData(), blob.getDataAlignment(),
                                                     {}, /*dataIsMutable=*/false);
}

KeptModule::KeptModule(OwningOpRef<ModuleOp> kept) : module(std::move(kept)) {
  for (DialectResourceBlobManager::BlobEntry *entry : heldEntries(module->getOperation())) {
    AsmResourceBlob data = std::move(*entry->getBlob());
    entry->setBlob(viewOf(data));
    entries.push_back({entry, std::move(data)});
  }
}

KeptModule::~KeptModule() {
  // Whatever holds the entries then, the data stays with them.
  for (Entry &e : entries)
    e.entry->setBlob(std::move(e.data));
}

/// Orders the uses of `copy` as those of `original` are ordered, the users
/// mapped by `mapping`: patterns that take the first fitting user of a
/// value then choose as they would on the original.
static void orderUsesAs(Value original, Value copy, IRMapping &mapping) {
  llvm::DenseMap<std::pair<Operation *, unsigned>, unsigned> position;
  for (OpOperand &use : original.getUses())
    position[{mapping.lookup(use.getOwner()), use.getOperandNumber()}] = position.size();
  if (position.size() < 2)
    return;
  SmallVector<unsigned> indices;
  for (OpOperand &use : copy.getUses())
    indices.push_back(position.lookup({use.getOwner(), use.getOperandNumber()}));
  copy.shuffleUseList(indices);
}

OwningOpRef<ModuleOp> KeptModule::clone() {
  assert(module && "the kept module was released");
  for (Entry &e : entries)
    if (!hasData(e.entry))
      e.entry->setBlob(viewOf(e.data));
  IRMapping mapping;
  OwningOpRef<ModuleOp> copy = cast<ModuleOp>(module->getOperation()->clone(mapping));
  module->walk([&](Operation *op) {
    for (Value result : op->getResults())
      orderUsesAs(result, mapping.lookup(result), mapping);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          orderUsesAs(argument, mapping.lookup(argument), mapping);
  });
  return copy;
}

void pimc::releaseConstantData(Operation *root) {
  for (DialectResourceBlobManager::BlobEntry *entry : heldEntries(root))
    entry->setBlob(AsmResourceBlob());
}

void KeptModule::discard(ModuleOp run) {
  // The kept entries are viewed again by the next clone.
  releaseConstantData(run);
}

void KeptModule::release(ModuleOp run) {
  llvm::SetVector<DialectResourceBlobManager::BlobEntry *> held = heldEntries(run);
  module = nullptr;
  for (Entry &e : entries)
    e.entry->setBlob(held.contains(e.entry) ? std::move(e.data) : AsmResourceBlob());
  entries.clear();
}
