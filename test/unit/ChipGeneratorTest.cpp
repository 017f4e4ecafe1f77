//===- ChipGeneratorTest.cpp - pimc arch's architecture files -------------===//

#include "pimc/Arch/Arch.h"
#include "pimc/Arch/ChipGenerator.h"
#include "TempDirTest.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

using namespace pimc;

namespace {

std::string configText(llvm::StringRef name) {
  auto buffer = llvm::MemoryBuffer::getFile(llvm::Twine(PIMC_SOURCE_DIR) + "/configs/" + name);
  EXPECT_TRUE(static_cast<bool>(buffer)) << name.str();
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

llvm::json::Value parsed(llvm::StringRef text) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  EXPECT_TRUE(static_cast<bool>(value)) << llvm::toString(value.takeError());
  return value ? std::move(*value) : llvm::json::Value(nullptr);
}

GeneratedChip generate(const ChipParameters &parameters) {
  llvm::Expected<GeneratedChip> chip =
      generateChip(configText("chip-144.json"), "chip-144.json", parameters);
  EXPECT_TRUE(static_cast<bool>(chip)) << llvm::toString(chip.takeError());
  return chip ? std::move(*chip) : GeneratedChip();
}

std::string generateError(const ChipParameters &parameters) {
  llvm::Expected<GeneratedChip> chip =
      generateChip(configText("chip-144.json"), "chip-144.json", parameters);
  EXPECT_FALSE(static_cast<bool>(chip));
  return chip ? std::string() : llvm::toString(chip.takeError());
}

// Nothing changed: the reference chip and its network file, as shipped.
TEST(ChipGenerator, NoParametersGiveTheReferenceChip) {
  GeneratedChip chip = generate({});
  EXPECT_EQ(chip.networkName, "network_mesh_12x12.json");
  EXPECT_EQ(parsed(chip.archJson), parsed(configText("chip-144.json")));
  EXPECT_EQ(parsed(chip.networkJson), parsed(configText("network_mesh_12x12.json")));
}

// chip-256 is chip-144 on a 16x16 mesh: asking for either the mesh or the
// cores gives the shipped files.
TEST(ChipGenerator, ALargerMeshGivesTheShippedChip256) {
  ChipParameters byMesh;
  byMesh.meshRows = byMesh.meshCols = 16;
  ChipParameters byCores;
  byCores.cores = 256;
  for (const ChipParameters &parameters : {byMesh, byCores}) {
    GeneratedChip chip = generate(parameters);
    EXPECT_EQ(chip.networkName, "network_mesh_16x16.json");
    EXPECT_EQ(parsed(chip.archJson), parsed(configText("chip-256.json")));
    EXPECT_EQ(parsed(chip.networkJson), parsed(configText("network_mesh_16x16.json")));
  }
}

// A non-square chip: 2 x 4 cores, rows of 4 (row-major ids, as Arch::hops).
TEST(ChipGenerator, CoresMakeTheSquarestMesh) {
  ChipParameters parameters;
  parameters.cores = 8;
  GeneratedChip chip = generate(parameters);
  EXPECT_EQ(chip.networkName, "network_mesh_2x4.json");
  llvm::Expected<Arch> arch =
      Arch::parse(chip.archJson, "", "2x4", llvm::StringRef(chip.networkJson));
  ASSERT_TRUE(static_cast<bool>(arch)) << llvm::toString(arch.takeError());
  EXPECT_EQ(arch->coreCount, 8);
  EXPECT_EQ(arch->layoutRows, 2);
  EXPECT_EQ(arch->layoutCols, 4);
  EXPECT_EQ(arch->nocLatencyNs(0, 3), 8);  // 3 hops along the first row
  EXPECT_EQ(arch->nocLatencyNs(0, 4), 4);  // one hop down
  EXPECT_EQ(arch->nocLatencyNs(3, 4), 10); // 3 left and 1 down
  EXPECT_EQ(arch->nocLatencyNs(7, arch->globalNode()), 15);
  EXPECT_EQ(arch->nocEnergyPj(arch->globalNode(), 2), 46);
  // The reference's first two hundred cores are not in this network.
  llvm::json::Value network = parsed(chip.networkJson);
  EXPECT_EQ(network.getAsObject()->getObject("latency")->size(), 9u);
  ChipParameters prime;
  prime.cores = 7;
  EXPECT_EQ(generate(prime).networkName, "network_mesh_1x7.json");
}

// Crossbars, their size, local memory, bit widths and the mode.
TEST(ChipGenerator, CoreParameters) {
  ChipParameters parameters;
  parameters.crossbars = 16;
  parameters.crossbarRows = 256;
  parameters.crossbarCols = 64;
  parameters.cellBits = 4;
  parameters.localMemoryBytes = 65536;
  parameters.weightBits = 4;
  parameters.inputBits = 16;
  parameters.throughput = true;
  GeneratedChip chip = generate(parameters);
  llvm::Expected<Arch> arch =
      Arch::parse(chip.archJson, "", "core", llvm::StringRef(chip.networkJson));
  ASSERT_TRUE(static_cast<bool>(arch)) << llvm::toString(arch.takeError());
  EXPECT_EQ(arch->coreCount, 144);
  EXPECT_EQ(arch->matrix.xbarArrayCount, 16);
  EXPECT_EQ(arch->matrix.xbarRows, 256);
  EXPECT_EQ(arch->matrix.xbarCols, 64);
  EXPECT_EQ(arch->matrix.cellPrecision, 4);
  // chip-144 has a DAC per row (128 for 128) and 16 ADCs for 128 columns.
  EXPECT_EQ(arch->matrix.dacCount, 256);
  EXPECT_EQ(arch->matrix.adcCount, 8);
  EXPECT_EQ(arch->localMemory.memorySize, 65536);
  EXPECT_EQ(arch->weightBits, 4);
  EXPECT_EQ(arch->inputBits, 16);
  EXPECT_EQ(arch->outputBits, 8);
  EXPECT_EQ(arch->outputsPerCrossbar(), 64);
  EXPECT_EQ(arch->simMode, 0);
  // Everything else stays chip-144's.
  EXPECT_EQ(arch->matrix.adcLatencyCycle, 20);
  EXPECT_EQ(arch->busWidth, 32);
}

TEST(ChipGenerator, ContradictionsAreErrors) {
  ChipParameters notFilled;
  notFilled.cores = 100;
  notFilled.meshRows = notFilled.meshCols = 12;
  EXPECT_EQ(generateError(notFilled), "100 cores do not fill a 12x12 mesh");
  // The architecture file's own limits hold for what is generated.
  ChipParameters wideWeights;
  wideWeights.weightBits = 2048;
  EXPECT_NE(generateError(wideWeights).find("'.pimc.weight_bits' must be a number from 0 to 64"),
            std::string::npos);
  ChipParameters tinyMemory;
  tinyMemory.localMemoryBytes = 512; // less than one 128-row input, x8
  EXPECT_NE(generateError(tinyMemory).find("smaller than one crossbar input"),
            std::string::npos);
}

class ChipGeneratorFiles : public test::TempDirTest {
protected:
  ChipGeneratorFiles() : TempDirTest("pimc-chip-generator") {}
};

// The files written load as any architecture file does.
TEST_F(ChipGeneratorFiles, WrittenFilesLoad) {
  ChipParameters parameters;
  parameters.meshRows = 3;
  parameters.meshCols = 5;
  ASSERT_FALSE(static_cast<bool>(writeChip(generate(parameters), path("chips", "chip.json"))));
  llvm::Expected<Arch> arch = Arch::load(path("chips", "chip.json"));
  ASSERT_TRUE(static_cast<bool>(arch)) << llvm::toString(arch.takeError());
  EXPECT_EQ(arch->coreCount, 15);
  EXPECT_EQ(arch->networkFile, "network_mesh_3x5.json");
  EXPECT_EQ(arch->nocLatencyNs(0, 14), 2 + 2 * 6);
}

TEST(ChipGenerator, ParsesShapesAndSizes) {
  EXPECT_EQ(parseShape("128"), std::make_optional(std::pair<int64_t, int64_t>{128, 128}));
  EXPECT_EQ(parseShape("12x16"), std::make_optional(std::pair<int64_t, int64_t>{12, 16}));
  EXPECT_EQ(parseShape("12x"), std::nullopt);
  EXPECT_EQ(parseShape("0x4"), std::nullopt);
  EXPECT_EQ(parseBytes("4096"), 4096);
  EXPECT_EQ(parseBytes("64KiB"), 65536);
  EXPECT_EQ(parseBytes("64K"), 65536);
  EXPECT_EQ(parseBytes("2MiB"), 2 * 1024 * 1024);
  EXPECT_EQ(parseBytes("-1"), std::nullopt);
  EXPECT_EQ(parseBytes("lots"), std::nullopt);
}

} // namespace
