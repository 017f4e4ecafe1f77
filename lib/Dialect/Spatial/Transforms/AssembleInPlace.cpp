//===- AssembleInPlace.cpp - stage 6b: buffers built where pieces arrive --===//
//
// A buffer is an empty tensor with pieces inserted into it one by one
// (through spat.reshape views between the inserts). Spatial-to-PIM writes a
// piece in place only when the buffer exists before the piece is made; the
// communication order often receives a piece first, and it is then copied.
// A buffer whose pieces are disjoint (static offsets, unit strides) is
// rebuilt: it is created at the start of its core's program, and each piece
// is inserted right after it is made. Inserts of disjoint pieces commute, so
// the buffer ends up the same.
//
//===----------------------------------------------------------------------===//

#include "pimc/Dialect/Spatial/SpatialDialect.h"
#include "pimc/Dialect/Spatial/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace pimc::spat {
#define GEN_PASS_DEF_SPATASSEMBLEINPLACE
#include "pimc/Dialect/Spatial/Transforms/Passes.h.inc"
} // namespace pimc::spat

using namespace mlir;
using namespace pimc;
using namespace pimc::spat;

namespace {

/// A piece writes more rows than this: its buffer is left as it is (the
/// disjointness check lists every row).
constexpr int64_t kMaxRows = 1 << 16;

/// The row-major element ranges [begin, end) an insert writes into its
/// destination, or false when its place is not static with unit strides.
bool writtenRanges(tensor::InsertSliceOp insert,
                   std::vector<std::pair<int64_t, int64_t>> &ranges) {
  if (!insert.getOffsets().empty() || !insert.getSizes().empty() ||
      !insert.getStrides().empty() ||
      llvm::any_of(insert.getStaticStrides(), [](int64_t s) { return s != 1; }))
    return false;
  RankedTensorType type = insert.getDestType();
  int64_t rank = type.getRank();
  if (rank == 0 || !type.hasStaticShape())
    return false;
  ArrayRef<int64_t> offsets = insert.getStaticOffsets(), sizes = insert.getStaticSizes();
  SmallVector<int64_t> stride(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    stride[d] = stride[d + 1] * type.getDimSize(d + 1);
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < rank; ++d)
    rows *= sizes[d];
  if (rows > kMaxRows)
    return false;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t begin = offsets[rank - 1];
    for (int64_t d = rank - 2, rest = r; d >= 0; --d) {
      begin += (offsets[d] + rest % sizes[d]) * stride[d];
      rest /= sizes[d];
    }
    ranges.push_back({begin, begin + sizes[rank - 1]});
  }
  return true;
}

/// Where each op of a core's program was before any buffer was rebuilt
/// (ops made since are not in it): comparing these is constant time, while
/// Operation::isBeforeInBlock renumbers the block after every change.
using Positions = DenseMap<Operation *, unsigned>;

/// Rebuilds the buffer `empty` starts, if its pieces are disjoint and one
/// of them is made before the version of the buffer it goes into.
void assemble(tensor::EmptyOp empty, Positions &position) {
  Block *block = empty->getBlock();
  SmallVector<Operation *> chain;
  SmallVector<tensor::InsertSliceOp> inserts;
  Value buffer = empty;
  while (buffer.hasOneUse()) {
    Operation *user = *buffer.getUsers().begin();
    if (auto reshape = dyn_cast<ReshapeOp>(user)) {
      chain.push_back(user);
      buffer = reshape.getResult();
      continue;
    }
    auto insert = dyn_cast<tensor::InsertSliceOp>(user);
    if (!insert || insert.getDest() != buffer || insert.getSource() == buffer)
      break;
    chain.push_back(user);
    inserts.push_back(insert);
    buffer = insert.getResult();
  }
  // Each piece's position, -1 for one made outside the block; a piece made
  // by an earlier rebuild has none, and its buffer is left alone.
  std::vector<std::pair<int64_t, int64_t>> ranges;
  DenseMap<Operation *, int64_t> madeAt;
  bool early = false;
  for (tensor::InsertSliceOp insert : inserts) {
    if (!writtenRanges(insert, ranges))
      return;
    Operation *made = insert.getSource().getDefiningOp();
    int64_t at = -1;
    if (made && made->getBlock() == block) {
      auto it = position.find(made);
      if (it == position.end())
        return;
      at = it->second;
    }
    madeAt[insert] = at;
    if (at >= 0 && at < int64_t(position.lookup(insert.getDest().getDefiningOp())))
      early = true;
  }
  llvm::sort(ranges);
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].first < ranges[i - 1].second)
      return;
  if (!early)
    return;

  // The pieces in the order they are made (those made outside the block
  // first).
  llvm::stable_sort(inserts, [&](tensor::InsertSliceOp a, tensor::InsertSliceOp b) {
    return madeAt[a] < madeAt[b];
  });
  position.erase(empty); // it moves
  empty->moveBefore(&block->front());
  OpBuilder b(empty->getContext());
  Value current = empty;
  Operation *last = empty;
  int64_t lastAt = -1; // the position `last` follows
  auto viewAs = [&](Value value, RankedTensorType type) -> Value {
    if (value.getType() == type)
      return value;
    Value view = b.create<ReshapeOp>(empty.getLoc(), type, value);
    last = view.getDefiningOp();
    return view;
  };
  for (tensor::InsertSliceOp insert : inserts) {
    int64_t at = madeAt[insert];
    if (at > lastAt) {
      b.setInsertionPointAfter(insert.getSource().getDefiningOp());
      lastAt = at;
    } else {
      b.setInsertionPointAfter(last);
    }
    Value view = viewAs(current, insert.getDestType());
    auto rebuilt = b.create<tensor::InsertSliceOp>(
        insert.getLoc(), insert.getSource(), view, insert.getMixedOffsets(),
        insert.getMixedSizes(), insert.getMixedStrides());
    last = rebuilt;
    current = rebuilt.getResult();
  }
  Value assembled = viewAs(current, cast<RankedTensorType>(buffer.getType()));
  buffer.replaceAllUsesWith(assembled);
  for (Operation *op : llvm::reverse(chain)) {
    position.erase(op);
    op->erase();
  }
}

struct SpatAssembleInPlacePass
    : public spat::impl::SpatAssembleInPlaceBase<SpatAssembleInPlacePass> {
  void runOnOperation() override {
    for (CoreOp core : getOperation().getOps<CoreOp>()) {
      Positions position;
      unsigned next = 0;
      for (Operation &op : core.getBody().front())
        position[&op] = next++;
      SmallVector<tensor::EmptyOp> empties(core.getBody().getOps<tensor::EmptyOp>());
      for (tensor::EmptyOp empty : empties)
        assemble(empty, position);
    }
  }
};
} // namespace
