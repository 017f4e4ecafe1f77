//===- Constants.cpp - f32 constant data ----------------------------------===//

#include "pimc/Support/Constants.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/BuiltinDialect.h"

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
  return viewFloatConstant(type, *owner, name, owner);
}

ElementsAttr pimc::viewFloatConstant(RankedTensorType type,
                                     ArrayRef<float> values, StringRef name,
                                     std::shared_ptr<const void> keepAlive) {
  if (type.getNumElements() <= kInlineElements)
    return DenseElementsAttr::get(type, values);
  AsmResourceBlob blob = UnmanagedAsmResourceBlob::allocateInferAlign(
      values, [keepAlive = std::move(keepAlive)](void *, size_t, size_t) {});
  return DenseResourceElementsAttr::get(type, blobName(name), std::move(blob));
}

void ConstantDataReleaser::notifyOperationErased(Operation *op) {
  auto entryOf = [](Attribute attr) -> DialectResourceBlobManager::BlobEntry * {
    auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
    return resource ? resource.getRawHandle().getResource() : nullptr;
  };
  for (NamedAttribute attr : op->getAttrs()) {
    DialectResourceBlobManager::BlobEntry *entry = entryOf(attr.getValue());
    if (!entry || !entry->getBlob())
      continue;
    WalkResult held = root->walk([&](Operation *other) {
      if (other != op)
        for (NamedAttribute otherAttr : other->getAttrs())
          if (entryOf(otherAttr.getValue()) == entry)
            return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (!held.wasInterrupted())
      entry->setBlob(AsmResourceBlob());
  }
}

LogicalResult pimc::applyPatternsReleasingConstants(Operation *root,
                                                    RewritePatternSet &&patterns,
                                                    GreedyRewriteConfig config) {
  ConstantDataReleaser releaser(root);
  config.listener = &releaser;
  return applyPatternsAndFoldGreedily(root, std::move(patterns), config);
}
