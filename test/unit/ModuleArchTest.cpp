//===- ModuleArchTest.cpp - the architecture a module carries -------------===//
//
// pim.arch holds what Arch::parse needs: the architecture a pass reads from
// a module, printed and parsed again, is the one that was attached.
//
//===----------------------------------------------------------------------===//

#include "pimc/Dialect/Pim/ModuleArch.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace pimc;

namespace {

std::string configPath(llvm::StringRef name) {
  return (llvm::Twine(PIMC_SOURCE_DIR) + "/configs/" + name).str();
}

void expectSameArch(const Arch &a, const Arch &b) {
  EXPECT_EQ(a.path, b.path);
  EXPECT_EQ(a.networkFile, b.networkFile);
  EXPECT_EQ(a.json, b.json);
  EXPECT_EQ(a.networkJson, b.networkJson);
  EXPECT_EQ(a.coreCount, b.coreCount);
  EXPECT_EQ(a.corePeriod, b.corePeriod);
  EXPECT_EQ(a.matrix.xbarArrayCount, b.matrix.xbarArrayCount);
  EXPECT_EQ(a.matrix.xbarRows, b.matrix.xbarRows);
  EXPECT_EQ(a.matrix.cellPrecision, b.matrix.cellPrecision);
  EXPECT_EQ(a.vectorWidth, b.vectorWidth);
  EXPECT_EQ(a.localMemory.memorySize, b.localMemory.memorySize);
  EXPECT_EQ(a.layoutRows, b.layoutRows);
  EXPECT_EQ(a.layoutCols, b.layoutCols);
  EXPECT_EQ(a.nocLatency, b.nocLatency);
  EXPECT_EQ(a.nocEnergy, b.nocEnergy);
  EXPECT_EQ(a.weightBits, b.weightBits);
}

struct ModuleArchTest : public ::testing::Test {
  ModuleArchTest() {
    registry.insert<pim::PimDialect>();
    context.appendDialectRegistry(registry);
    context.loadDialect<pim::PimDialect>();
    module = ModuleOp::create(UnknownLoc::get(&context));
  }
  DialectRegistry registry;
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(ModuleArchTest, PrintedAndParsedItIsTheArchAttached) {
  llvm::Expected<Arch> file = Arch::load(configPath("chip-256.json"));
  ASSERT_TRUE(static_cast<bool>(file)) << llvm::toString(file.takeError());
  setArch(*module, *file);
  ASSERT_TRUE(succeeded(verify(*module)));
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);

  MLIRContext other(registry);
  OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(text, &other);
  ASSERT_TRUE(parsed);
  std::shared_ptr<const Arch> arch = archOf(*parsed);
  ASSERT_TRUE(arch);
  expectSameArch(*arch, *file);
}

TEST_F(ModuleArchTest, ParsesWhatTheAttributeCarries) {
  llvm::Expected<Arch> file = Arch::load(configPath("chip-144.json"));
  ASSERT_TRUE(static_cast<bool>(file)) << llvm::toString(file.takeError());
  // Under another name: not the architecture loaded, but the same chip.
  auto attr = pim::ArchAttr::get(&context, "elsewhere/chip.json", file->json,
                                 file->networkJson);
  llvm::Expected<std::shared_ptr<const Arch>> arch = parseArch(attr);
  ASSERT_TRUE(static_cast<bool>(arch)) << llvm::toString(arch.takeError());
  EXPECT_EQ((*arch)->path, "elsewhere/chip.json");
  Arch renamed = *file;
  renamed.path = "elsewhere/chip.json";
  expectSameArch(**arch, renamed);
}

TEST_F(ModuleArchTest, TheBuiltinChipIsNoAttribute) {
  llvm::Expected<Arch> file = Arch::load(configPath("chip-144.json"));
  ASSERT_TRUE(static_cast<bool>(file)) << llvm::toString(file.takeError());
  setArch(*module, *file);
  EXPECT_TRUE((*module)->hasAttr("pim.arch"));
  setArch(*module, Arch::builtinDefault());
  EXPECT_FALSE((*module)->hasAttr("pim.arch"));
  EXPECT_EQ(archOf(*module).get(), &Arch::builtinDefault());
}

TEST_F(ModuleArchTest, AnAttributeThatIsNoArchIsAnError) {
  auto attr = pim::ArchAttr::get(&context, "broken.json", "{", "{}");
  llvm::Expected<std::shared_ptr<const Arch>> arch = parseArch(attr);
  ASSERT_FALSE(static_cast<bool>(arch));
  EXPECT_NE(llvm::toString(arch.takeError()).find("architecture 'broken.json': not valid JSON"),
            std::string::npos);
  (*module)->setAttr("pim.arch", attr);
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_FALSE(archOf(*module));
  EXPECT_NE(message.find("not valid JSON"), std::string::npos);
}

} // namespace
