//===- ArchTest.cpp - architecture files and the timing model -------------===//

#include "pimc/Arch/Arch.h"
#include "pimc/Arch/CostModel.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace pimc;

namespace {

std::string configPath(llvm::StringRef name) {
  return (llvm::Twine(PIMC_SOURCE_DIR) + "/configs/" + name).str();
}

TEST(Arch, LoadsTheReferenceChip) {
  llvm::Expected<Arch> arch = Arch::load(configPath("chip-144.json"));
  ASSERT_TRUE(static_cast<bool>(arch)) << llvm::toString(arch.takeError());
  EXPECT_EQ(arch->coreCount, 144);
  EXPECT_EQ(arch->matrix.xbarArrayCount, 64);
  EXPECT_EQ(arch->matrix.xbarRows, 128);
  EXPECT_EQ(arch->matrix.cellPrecision, 8);
  EXPECT_EQ(arch->outputsPerCrossbar(), 128);
  EXPECT_EQ(arch->vectorWidth, 32);
  EXPECT_EQ(arch->localMemory.dataWidth, 64);
  EXPECT_EQ(arch->localMemory.memorySize, 1048576); // pimsim-nn's default
  EXPECT_EQ(arch->globalMemory.readLatencyCycle, 40);
  EXPECT_EQ(arch->busWidth, 32);
  EXPECT_EQ(arch->hops(0, 143), 22);
  // 2 + 2 * hops per flit between cores, 15 to global memory.
  EXPECT_EQ(arch->nocLatencyNs(0, 1), 4);
  EXPECT_EQ(arch->nocLatencyNs(0, 13), 6);
  EXPECT_EQ(arch->nocLatencyNs(5, arch->globalNode()), 15);
  EXPECT_EQ(arch->nocEnergyPj(3, 4), 46);
}

// The built-in default is chip-144 with its network made by formula; the
// formula must give exactly the network file the reference chip ships with.
TEST(Arch, BuiltinNetworkEqualsTheShippedFile) {
  llvm::Expected<Arch> file = Arch::load(configPath("chip-144.json"));
  ASSERT_TRUE(static_cast<bool>(file)) << llvm::toString(file.takeError());
  const Arch &builtin = Arch::builtinDefault();
  EXPECT_TRUE(builtin.path.empty());
  EXPECT_EQ(builtin.nocLatency, file->nocLatency);
  EXPECT_EQ(builtin.nocEnergy, file->nocEnergy);
  llvm::Expected<Arch> big = Arch::load(configPath("chip-256.json"));
  ASSERT_TRUE(static_cast<bool>(big)) << llvm::toString(big.takeError());
  llvm::Expected<Arch> formula =
      Arch::parse(llvm::MemoryBuffer::getFile(configPath("chip-256.json")).get()->getBuffer(),
                  "", "chip-256 with a formula network",
                  llvm::StringRef(meshNetworkJson(16, 16, -10)));
  ASSERT_TRUE(static_cast<bool>(formula)) << llvm::toString(formula.takeError());
  EXPECT_EQ(formula->nocLatency, big->nocLatency);
}

// Section 6.1 of the target spec: the shipped example config gives 5168
// cycles of MVM compute with setbw 8 8, and 10352 - (16 + 2) - fill for 16/32.
TEST(CostModel, MvmComputeMatchesTheSpec) {
  const char *example = R"({"chip_config": {"core_cnt": 1,
    "core_config": {"matrix_config": {"xbar_array_count": 64, "xbar_size": [128, 128],
      "cell_precision": 8, "period": 1, "dac_resolution": 1, "dac_count": 128,
      "xbar_latency": 30, "adc_count": 2, "adc_latency_cycle": 10}},
    "network_config": {"layout": [1, 1], "net_config_file_path": "n.json"}}})";
  llvm::Expected<Arch> arch =
      Arch::parse(example, "", "example",
                  llvm::StringRef(R"({"latency": {"0": {"-10": 1}, "-10": {"0": 1}},
                                      "energy": {"0": {"-10": 1}, "-10": {"0": 1}}})"));
  ASSERT_TRUE(static_cast<bool>(arch)) << llvm::toString(arch.takeError());
  CostModel cost(*arch);
  EXPECT_EQ(cost.mvmComputeNs(), 5168);

  // chip-144: front 9, back 162, 8 input bits -> 9 + 162 + 7 * 162.
  CostModel chip(Arch::builtinDefault());
  EXPECT_EQ(chip.mvmComputeNs(), 1305);
  // One-crossbar mvmul: read 1024 B (16 beats x 20), write 128 B (2 x 30);
  // pimsim-nn measured 1693 ns for it, 8 ns of pipeline fill more.
  EXPECT_EQ(chip.mvmNs(1), 320 + 1305 + 60);
  // Energy: 8 x (22.24 x 7 + 8 x 1.135 x 20 x 16) pJ, as pimsim-nn reported.
  EXPECT_NEAR(chip.mvmEnergyPj(1), 24490.24, 1e-6);
}

TEST(CostModel, VectorAndTransfers) {
  CostModel chip(Arch::builtinDefault());
  // vvadd of 1024: two reads of 16 beats x 20, 32 steps x 4, 16 x 30 write.
  EXPECT_EQ(chip.vectorNs(2, 1024), 640 + 128 + 480);
  EXPECT_EQ(chip.flits(1024), 32);
  EXPECT_EQ(chip.nocNs(0, 1, 1024), 32 * 4);
  // Handshake both ways, read, flits, write.
  EXPECT_EQ(chip.transferNs(0, 1, 1024), 4 + 4 + 320 + 128 + 480);
  // The sender is done once it has read its data.
  EXPECT_EQ(chip.transferSenderNs(0, 1, 1024), 4 + 4 + 320);
  // Request flit, global read of 25 beats x 40, local write 13 x 30.
  EXPECT_EQ(chip.loadNs(0, 784), 15 + 25 * 40 + 13 * 30);
}

// Memory energy is per beat read or written; the reference chips set none.
TEST(CostModel, MemoryEnergyPerBeat) {
  EXPECT_EQ(CostModel(Arch::builtinDefault()).localAccessPj(1024, 1024), 0);
  Arch arch = Arch::builtinDefault();
  arch.localMemory.readDynamicEnergy = 2;
  arch.localMemory.writeDynamicEnergy = 3;
  arch.globalMemory.readDynamicEnergy = 5;
  CostModel cost(arch);
  // 65 bytes are 2 beats of 64 locally, 3 of 32 in global memory.
  EXPECT_EQ(cost.localAccessPj(65, 64), 2 * 2 + 1 * 3);
  EXPECT_EQ(cost.globalAccessPj(65, 0), 3 * 5);
}

TEST(Arch, RejectsBadFiles) {
  auto parse = [](llvm::StringRef json) {
    llvm::Expected<Arch> arch =
        Arch::parse(json, "", "bad.json", llvm::StringRef(R"({"latency": {}})"));
    return arch ? std::string() : llvm::toString(arch.takeError());
  };
  EXPECT_NE(parse("{").find("not valid JSON"), std::string::npos);
  EXPECT_NE(parse("{}").find("missing 'chip_config'"), std::string::npos);
  EXPECT_NE(parse(R"({"chip_config": {"core_cnt": 0, "network_config": {"layout": [1,1],
      "net_config_file_path": "n"}}})")
                .find("core_cnt"),
            std::string::npos);
  EXPECT_NE(parse(R"({"chip_config": {"network_config": {"layout": [0, 1],
      "net_config_file_path": "n"}}})")
                .find("layout"),
            std::string::npos);
  EXPECT_NE(parse(R"({"chip_config": {"core_config": {"vector_width": "wide"},
      "network_config": {"layout": [1,1], "net_config_file_path": "n"}}})")
                .find("'.chip_config.core_config.vector_width' must be a number"),
            std::string::npos);
  llvm::Expected<Arch> missing = Arch::load("/nonexistent/arch.json");
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("cannot read architecture file"),
            std::string::npos);
}
} // namespace
