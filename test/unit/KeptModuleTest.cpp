//===- KeptModuleTest.cpp - a module kept to be cloned, its weights shared -===//
//
// A run on a clone erases the constant it rewrites (the releaser frees its
// data); the kept module still holds it for the next clone.
//
//===----------------------------------------------------------------------===//

#include "pimc/Support/Constants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

#include "gtest/gtest.h"

#include <memory>

using namespace mlir;
using namespace pimc;

namespace {

struct KeptModuleTest : public ::testing::Test {
  KeptModuleTest() {
    context.loadDialect<arith::ArithDialect>();
    OpBuilder b(&context);
    module = ModuleOp::create(b.getUnknownLoc());
    b.setInsertionPointToStart(module->getBody());
    auto type = RankedTensorType::get({32}, b.getF32Type());
    // The data is freed when the blob lets go of its owner.
    auto owner = std::make_shared<std::vector<float>>(32, 2.0f);
    alive = owner;
    ElementsAttr value = viewFloatConstant(type, *owner, "w", owner);
    b.create<arith::ConstantOp>(b.getUnknownLoc(), value);
  }

  /// What a run that rewrites the constant does: erase it, releasing.
  static void rewriteConstant(ModuleOp run) {
    Operation *constant = &run.getBody()->front();
    ConstantDataReleaser releaser(run);
    IRRewriter rewriter(run.getContext(), &releaser);
    rewriter.eraseOp(constant);
  }

  static std::optional<float> firstValue(ModuleOp run) {
    auto attr = cast<DenseF32ResourceElementsAttr>(run.getBody()->front().getAttr("value"));
    std::optional<ArrayRef<float>> values = attr.tryGetAsArrayRef();
    if (!values || values->empty())
      return std::nullopt;
    return values->front();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::weak_ptr<std::vector<float>> alive;
};

TEST_F(KeptModuleTest, EveryCloneSeesTheDataARunReleased) {
  KeptModule kept(std::move(module));
  OwningOpRef<ModuleOp> first = kept.clone();
  rewriteConstant(*first);
  EXPECT_FALSE(alive.expired());
  kept.discard(*first);
  OwningOpRef<ModuleOp> second = kept.clone();
  EXPECT_EQ(firstValue(*second), 2.0f);
}

TEST_F(KeptModuleTest, ReleaseFreesWhatTheRunDropped) {
  KeptModule kept(std::move(module));
  OwningOpRef<ModuleOp> run = kept.clone();
  rewriteConstant(*run);
  kept.release(*run);
  EXPECT_FALSE(kept.kept());
  EXPECT_TRUE(alive.expired());
}

TEST_F(KeptModuleTest, ReleaseLeavesWhatTheRunHolds) {
  KeptModule kept(std::move(module));
  OwningOpRef<ModuleOp> run = kept.clone();
  kept.release(*run);
  EXPECT_FALSE(alive.expired());
  EXPECT_EQ(firstValue(*run), 2.0f);
  // The run's entry owns the data now: erasing the constant frees it.
  rewriteConstant(*run);
  EXPECT_TRUE(alive.expired());
}

TEST_F(KeptModuleTest, ClonesOrderUsesAsTheKeptModule) {
  // Two users of the constant, its uses ordered first user first (a clone
  // made op by op would list the last one first).
  Operation *constant = &module->getBody()->front();
  OpBuilder b(&context);
  b.setInsertionPointToEnd(module->getBody());
  Value value = constant->getResult(0);
  b.create<arith::NegFOp>(b.getUnknownLoc(), value);
  b.create<arith::NegFOp>(b.getUnknownLoc(), value);
  auto userOrder = [](Value v) {
    std::vector<int> order;
    for (Operation *user : v.getUsers())
      order.push_back(std::distance(user->getBlock()->begin(), user->getIterator()));
    return order;
  };
  if (userOrder(value) != std::vector<int>{1, 2})
    value.shuffleUseList({1, 0});
  ASSERT_EQ(userOrder(value), (std::vector<int>{1, 2}));
  KeptModule kept(std::move(module));
  OwningOpRef<ModuleOp> run = kept.clone();
  EXPECT_EQ(userOrder(run->getBody()->front().getResult(0)), (std::vector<int>{1, 2}));
}

} // namespace
