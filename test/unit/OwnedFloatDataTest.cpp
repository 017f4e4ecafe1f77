//===- OwnedFloatDataTest.cpp - weights a pass may rewrite in place -------===//
//
// A constant's data may be rewritten in place only when nothing else can
// read it: the IR owns it, one op uses the constant, and no other constant
// views any of its bytes.
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

struct OwnedFloatDataTest : public ::testing::Test {
  OwnedFloatDataTest() : builder(&context) {
    context.loadDialect<arith::ArithDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToStart(module->getBody());
  }

  /// A constant of `count` values from `first` of `owner`, and one use.
  Value constant(const std::shared_ptr<std::vector<float>> &owner, size_t first, int64_t count,
                 bool irOwned) {
    auto type = RankedTensorType::get({count}, builder.getF32Type());
    ElementsAttr value = viewFloatConstant(
        type, ArrayRef<float>(*owner).slice(first, count), "w", owner, irOwned);
    Value result = builder.create<arith::ConstantOp>(builder.getUnknownLoc(), value);
    builder.create<arith::NegFOp>(builder.getUnknownLoc(), result);
    return result;
  }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
  std::shared_ptr<std::vector<float>> weights =
      std::make_shared<std::vector<float>>(64, 1.0f);
};

TEST_F(OwnedFloatDataTest, DataTheIrOwnsAloneIsWritable) {
  Value w = constant(weights, 0, 32, /*irOwned=*/true);
  std::optional<MutableArrayRef<float>> data = ownedFloatData(*module, w);
  ASSERT_TRUE(data);
  ASSERT_EQ(data->size(), 32u);
  (*data)[3] = 5.0f;
  EXPECT_EQ((*weights)[3], 5.0f);
}

TEST_F(OwnedFloatDataTest, DataAModelStillReadsIsNot) {
  Value w = constant(weights, 0, 32, /*irOwned=*/false);
  EXPECT_FALSE(ownedFloatData(*module, w));
}

TEST_F(OwnedFloatDataTest, AConstantWithASecondUseIsNot) {
  Value w = constant(weights, 0, 32, /*irOwned=*/true);
  builder.create<arith::NegFOp>(builder.getUnknownLoc(), w);
  EXPECT_FALSE(ownedFloatData(*module, w));
}

TEST_F(OwnedFloatDataTest, DataAnotherConstantOverlapsIsNot) {
  Value w = constant(weights, 0, 32, /*irOwned=*/true);
  Value apart = constant(weights, 32, 32, /*irOwned=*/true);
  EXPECT_TRUE(ownedFloatData(*module, w));
  // Its last value is the first of another constant.
  constant(weights, 31, 17, /*irOwned=*/true);
  EXPECT_FALSE(ownedFloatData(*module, w));
  EXPECT_FALSE(ownedFloatData(*module, apart));
}

TEST_F(OwnedFloatDataTest, AKeptModulesClonesShareTheirData) {
  constant(weights, 0, 32, /*irOwned=*/true);
  KeptModule kept(std::move(module));
  OwningOpRef<ModuleOp> run = kept.clone();
  Value w = run->getBody()->front().getResult(0);
  EXPECT_FALSE(ownedFloatData(*run, w));
}

TEST_F(OwnedFloatDataTest, ReleasedDataIsFreed) {
  constant(weights, 0, 32, /*irOwned=*/true);
  std::weak_ptr<std::vector<float>> alive = weights;
  weights.reset();
  EXPECT_FALSE(alive.expired());
  releaseConstantData(*module);
  EXPECT_TRUE(alive.expired());
}

} // namespace
