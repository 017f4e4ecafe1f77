//===- SimulatorTest.cpp - the functional simulator -----------------------===//
//
// Every test writes a small artifact directory (manifest, config.json,
// programs, weights, global image) and runs it; expected values are
// computed here from the same data by plain loops.
//
//===----------------------------------------------------------------------===//

#include "pimc/Simulator/Simulator.h"
#include "pimc/Simulator/Timing.h"
#include "pimc/Target/Pimsim/Artifacts.h"
#include "pimc/Target/Pimsim/Isa.h"

#include "TempDirTest.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace pimc;
using namespace pimc::isa;
using frontend::TensorData;
using Program = std::vector<Instruction>;

namespace {

/// One core per id, 8x8 crossbars with 8 outputs each, 4 per core, 1 KiB
/// memories; the element is `elementBytes` bytes of 8 * elementBytes bits.
Manifest makeManifest(int cores, int64_t elementBytes = 1) {
  Manifest m;
  m.coreCount = cores;
  m.elementBytes = elementBytes;
  m.inputBits = m.outputBits = 8 * elementBytes;
  m.weightBits = 8;
  m.xbarRows = m.xbarCols = m.outputsPerCrossbar = 8;
  m.crossbarsPerCore = 4;
  m.localMemoryBytes = m.globalMemoryBytes = 1024 * elementBytes;
  for (int id = 0; id < cores; ++id)
    m.cores.push_back({id, {}});
  return m;
}

TensorLocation location(const char *name, std::vector<int64_t> shape, int64_t address) {
  TensorLocation t;
  t.name = name;
  t.shape = std::move(shape);
  t.address = address;
  return t;
}

TensorData tensor(const char *name, std::vector<int64_t> dims, std::vector<float> values) {
  TensorData t;
  t.name = name;
  t.dims = std::move(dims);
  t.setFloats(std::move(values));
  return t;
}

Instruction withImm(Instruction inst, int32_t imm) {
  inst.imm = imm;
  return inst;
}
Instruction ld(int32_t local, int32_t pair, int32_t bytes) {
  return Instruction::transfer(Opcode::Ld, local, pair, bytes);
}
Instruction st(int32_t pair, int32_t local, int32_t bytes) {
  return Instruction::transfer(Opcode::St, pair, local, bytes);
}
Instruction vec(Opcode op, int32_t rd, int32_t rs1, int32_t rs2, int32_t len) {
  return Instruction::vector(op, rd, rs1, rs2, len);
}
Instruction sync(int32_t core, int32_t event) {
  Instruction i;
  i.op = Opcode::Sync;
  i.core = core;
  i.eventRegister = event;
  return i;
}
Instruction wait(int32_t event, int32_t value) {
  Instruction i;
  i.op = Opcode::Wait;
  i.eventRegister = event;
  i.waitValue = value;
  return i;
}
Instruction op(Opcode code) {
  Instruction i;
  i.op = code;
  return i;
}

/// Whether `text` contains every one of `parts`.
::testing::AssertionResult contains(const std::string &text,
                                    std::initializer_list<const char *> parts) {
  for (const char *part : parts)
    if (text.find(part) == std::string::npos)
      return ::testing::AssertionFailure() << "'" << part << "' is not in: " << text;
  return ::testing::AssertionSuccess();
}

class SimulatorTest : public test::TempDirTest {
protected:
  SimulatorTest() : TempDirTest("pimc-simulator-test") {}

  void write(llvm::StringRef file, llvm::StringRef text) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path(file), ec);
    ASSERT_FALSE(ec) << ec.message();
    os << text;
  }
  void writeFloats(llvm::StringRef file, const std::vector<float> &values) {
    write(file, llvm::StringRef(reinterpret_cast<const char *>(values.data()),
                                values.size() * sizeof(float)));
  }
  /// config.json as the manifest implies it.
  void writeConfig(const Manifest &m) {
    llvm::json::Object map;
    for (const CoreInfo &core : m.cores) {
      llvm::json::Array groups;
      for (const ArrayGroupInfo &g : core.groups)
        groups.push_back(g.crossbars);
      map["core" + std::to_string(core.id)] = std::move(groups);
    }
    std::string text;
    llvm::raw_string_ostream(text) << llvm::json::Value(
        llvm::json::Object{{"core_cnt", m.coreCount}, {"array_group_map", std::move(map)}});
    write(kInstructionConfigFile, text);
  }
  void writePim(int core, const Program &program) {
    auto writer = ProgramWriter::create(path("core_" + std::to_string(core) + ".pim"), "");
    ASSERT_TRUE(static_cast<bool>(writer)) << llvm::toString(writer.takeError());
    for (const Instruction &inst : program)
      (*writer)->write(inst);
    ASSERT_FALSE(static_cast<bool>((*writer)->finish()));
  }
  void writeJson(int core, const Program &program) {
    llvm::json::Array array;
    for (const Instruction &inst : program)
      array.push_back(toJson(inst));
    std::string text;
    llvm::raw_string_ostream(text) << llvm::json::Value(std::move(array));
    write("core_" + std::to_string(core) + ".json", text);
  }
  /// The manifest, its config.json and one .pim per program.
  void writeAll(const Manifest &m, const std::vector<Program> &programs) {
    ASSERT_FALSE(static_cast<bool>(m.write(dir)));
    writeConfig(m);
    for (size_t core = 0; core < programs.size(); ++core)
      writePim(int(core), programs[core]);
  }

  llvm::Expected<sim::Result> run(const std::vector<TensorData> &inputs = {},
                                  sim::Options options = {}) {
    return sim::simulate(dir, inputs, options);
  }
  /// Runs a program expected to succeed; its outputs.
  std::vector<std::vector<float>> outputs(const std::vector<TensorData> &inputs = {}) {
    llvm::Expected<sim::Result> result = run(inputs);
    if (!result) {
      ADD_FAILURE() << llvm::toString(result.takeError());
      return {};
    }
    std::vector<std::vector<float>> values;
    for (const TensorData &t : result->outputs)
      values.emplace_back(t.floats.begin(), t.floats.end());
    return values;
  }
  /// Runs a program expected to fail; the message.
  std::string error(const std::vector<TensorData> &inputs = {}, sim::Options options = {}) {
    llvm::Expected<sim::Result> result = run(inputs, options);
    if (result) {
      ADD_FAILURE() << "the program ran";
      return "";
    }
    return llvm::toString(result.takeError());
  }
  /// The error of a one-core program (1 KiB memories, no array groups).
  std::string programError(const Program &program) {
    writeAll(makeManifest(1), {program});
    return error();
  }

  void checkMvmul(int64_t eb);

};

// Stores `bytes` from local address register `local` to global address
// `address` through the register pair r28:r29.
Program storeTo(int32_t address, int32_t local, int32_t bytes) {
  return {Instruction::sldi(28, 0), Instruction::sldi(29, address), st(28, local, bytes)};
}

void append(Program &program, const Program &more) {
  program.insert(program.end(), more.begin(), more.end());
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

// A 5x3 weight window in an 8-row crossbar of 8 outputs: outputs 3..7 are 0
// (they held 5s and -5s before) and input rows 5..7 are never read (they
// hold 7s).
void SimulatorTest::checkMvmul(int64_t eb) {
  const int rows = 5, cols = 3;
  std::vector<float> w(rows * cols);
  for (int i = 0; i < rows * cols; ++i)
    w[i] = 0.25f * float((i * 7) % 11) - 1.0f;
  std::vector<float> x = {1.0f, -2.0f, 0.0f, 3.0f, -1.5f};
  Manifest m = makeManifest(1, eb);
  // Weights start after 4 unused floats, to exercise weights_offset.
  std::vector<float> file(4, 99.0f);
  file.insert(file.end(), w.begin(), w.end());
  writeFloats(kWeightsFile, file);
  m.cores[0].groups.push_back({1, rows, cols, 16});
  m.inputs.push_back(location("x", {rows}, 0));
  m.outputs.push_back(location("y", {8}, 64 * eb));
  m.outputs.push_back(location("relu_y", {8}, 128 * eb));
  int32_t e = int32_t(eb);
  Instruction relu = Instruction::mvmul(4, 2, 8, 0);
  relu.relu = 1;
  Program program = {Instruction::setbw(8 * e, 8 * e),
                     Instruction::sldi(0, 0),
                     Instruction::sldi(1, 0),
                     Instruction::sldi(2, 100 * e),
                     withImm(Instruction::transfer(Opcode::Lldi, 2, 0, 8 * e), 7),
                     ld(2, 0, rows * e),
                     Instruction::sldi(3, 200 * e),
                     withImm(Instruction::transfer(Opcode::Lldi, 3, 0, 8 * e), 5),
                     Instruction::mvmul(3, 2, 8, 0),
                     Instruction::sldi(4, 300 * e),
                     withImm(Instruction::transfer(Opcode::Lldi, 4, 0, 8 * e), -5),
                     relu};
  append(program, storeTo(64 * e, 3, 8 * e));
  append(program, storeTo(128 * e, 4, 8 * e));
  writeAll(m, {program});

  std::vector<float> expected(8, 0.0f), expectedRelu(8, 0.0f);
  for (int j = 0; j < cols; ++j) {
    float sum = 0;
    for (int i = 0; i < rows; ++i)
      sum += x[i] * w[i * cols + j];
    expected[j] = sum;
    expectedRelu[j] = std::max(sum, 0.0f);
  }
  ASSERT_TRUE(std::any_of(expected.begin(), expected.end(), [](float v) { return v < 0; }));
  auto values = outputs({tensor("x", {rows}, x)});
  ASSERT_EQ(values.size(), 2u);
  for (int j = 0; j < 8; ++j) {
    EXPECT_NEAR(values[0][j], expected[j], 1e-5) << j;
    EXPECT_NEAR(values[1][j], expectedRelu[j], 1e-5) << j;
  }
}

TEST_F(SimulatorTest, MvmulComputesTheProduct) { checkMvmul(1); }
TEST_F(SimulatorTest, MvmulOnFourByteElementSlots) { checkMvmul(4); }

TEST_F(SimulatorTest, TwoCorePipelineWithVrelu) {
  Manifest m = makeManifest(2);
  m.inputs.push_back(location("x", {6}, 0));
  m.outputs.push_back(location("y", {6}, 32));
  Program producer = {Instruction::setbw(8, 8),
                      Instruction::sldi(0, 0),
                      Instruction::sldi(1, 0),
                      Instruction::sldi(2, 16),
                      ld(2, 0, 6),
                      Instruction::send(2, 1, 6)};
  Program consumer = {Instruction::setbw(8, 8), Instruction::sldi(2, 40),
                      Instruction::recv(2, 0, 6), Instruction::sldi(3, 80),
                      vec(Opcode::Vrelu, 3, 2, 0, 6)};
  append(consumer, storeTo(32, 3, 6));
  writeAll(m, {producer, consumer});
  std::vector<float> x = {-1.0f, 2.0f, -3.5f, 4.0f, 0.0f, 6.25f};
  llvm::Expected<sim::Result> result = run({tensor("x", {6}, x)});
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  ASSERT_EQ(result->outputs.size(), 1u);
  EXPECT_EQ(result->outputs[0].name, "y");
  EXPECT_EQ(result->outputs[0].dims, (std::vector<int64_t>{6}));
  for (size_t k = 0; k < x.size(); ++k)
    EXPECT_EQ(result->outputs[0].floats[k], std::max(x[k], 0.0f)) << k;
  EXPECT_EQ(result->executed, producer.size() + consumer.size());
  ASSERT_EQ(result->cores.size(), 2u);
  EXPECT_EQ(result->cores[0].executed, producer.size());
  EXPECT_EQ(result->cores[1].executed, consumer.size());
}

// Core 0 and core 1 reach their recv before their senders send.
TEST_F(SimulatorTest, ThreeStagePipelineWithReceiversFirst) {
  Manifest m = makeManifest(3);
  m.inputs.push_back(location("x", {4}, 0));
  m.outputs.push_back(location("y", {4}, 100));
  Program last = {Instruction::setbw(8, 8), Instruction::sldi(5, 500), Instruction::recv(5, 1, 4)};
  append(last, storeTo(100, 5, 4));
  Program middle = {Instruction::setbw(8, 8),       Instruction::sldi(1, 10),
                    Instruction::sldi(2, 20),       Instruction::recv(1, 2, 4),
                    vec(Opcode::Vvmul, 2, 1, 1, 4), Instruction::send(2, 0, 4)};
  Program first = {Instruction::setbw(8, 8),
                   Instruction::sldi(0, 0),
                   Instruction::sldi(1, 0),
                   Instruction::sldi(3, 64),
                   ld(3, 0, 4),
                   Instruction::send(3, 1, 4)};
  writeAll(m, {last, middle, first});
  std::vector<float> x = {1.5f, -2.0f, 3.0f, 0.5f};
  auto values = outputs({tensor("x", {4}, x)});
  ASSERT_EQ(values.size(), 1u);
  for (size_t k = 0; k < x.size(); ++k)
    EXPECT_EQ(values[0][k], x[k] * x[k]) << k;
}

TEST_F(SimulatorTest, LdStUseTheRegisterPairHighWordFirst) {
  Manifest m = makeManifest(1);
  m.inputs.push_back(location("x", {3}, 40));
  m.outputs.push_back(location("y", {3}, 80));
  // r6 = high word 0, r7 = low word; r8:r9 the same for the store.
  Program program = {Instruction::setbw(8, 8),
                     Instruction::sldi(6, 0),
                     Instruction::sldi(7, 40),
                     Instruction::sldi(2, 0),
                     ld(2, 6, 3),
                     Instruction::sldi(8, 0),
                     Instruction::sldi(9, 80),
                     st(8, 2, 3)};
  writeAll(m, {program});
  std::vector<float> x = {7.0f, 8.0f, 9.0f};
  auto values = outputs({tensor("x", {3}, x)});
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0], x);

  // With the words swapped the address is 40 << 32, far outside.
  program[1] = Instruction::sldi(6, 40);
  program[2] = Instruction::sldi(7, 0);
  writePim(0, program);
  EXPECT_TRUE(
      contains(error({tensor("x", {3}, x)}), {"core 0 pc 4 `ld rd=2 rs1=6 size=3`",
                                              "global address 171798691840", "1024-byte global"}));
}

TEST_F(SimulatorTest, GlobalImageIsLoaded) {
  Manifest m = makeManifest(1);
  m.globalImageElements = 8;
  writeFloats(kGlobalImageFile, {0, 0, 0, 0, 1.0f, 2.0f, 3.0f, 4.0f});
  m.outputs.push_back(location("y", {4}, 8));
  Program program = {Instruction::setbw(8, 8),
                     Instruction::sldi(0, 0),
                     Instruction::sldi(1, 4),
                     Instruction::sldi(2, 0),
                     ld(2, 0, 4),
                     vec(Opcode::Vvadd, 2, 2, 2, 4)};
  append(program, storeTo(8, 2, 4));
  writeAll(m, {program});
  auto values = outputs();
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0], (std::vector<float>{2.0f, 4.0f, 6.0f, 8.0f}));
}

TEST_F(SimulatorTest, VmvGathersWithTheStrideRegister) {
  Manifest m = makeManifest(1);
  std::vector<float> x(12);
  for (int k = 0; k < 12; ++k)
    x[k] = float(k * k);
  m.inputs.push_back(location("x", {12}, 0));
  m.outputs.push_back(location("y", {4}, 100));
  m.outputs.push_back(location("z", {4}, 200));
  Program program = {Instruction::setbw(8, 8), Instruction::sldi(0, 0), Instruction::sldi(1, 0),
                     Instruction::sldi(2, 10), ld(2, 0, 12), Instruction::sldi(3, 50),
                     Instruction::sldi(4, 3), vec(Opcode::Vmv, 3, 2, 4, 4),
                     // rd = rs1 + 2 with stride 2 overwrites elements it
                     // has yet to read.
                     Instruction::sldi(5, 12), Instruction::sldi(4, 2),
                     vec(Opcode::Vmv, 5, 2, 4, 4)};
  append(program, storeTo(100, 3, 4));
  append(program, storeTo(200, 5, 4));
  writeAll(m, {program});
  auto values = outputs({tensor("x", {12}, x)});
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0], (std::vector<float>{x[0], x[3], x[6], x[9]}));
  EXPECT_EQ(values[1], (std::vector<float>{x[0], x[2], x[4], x[6]}));
}

TEST_F(SimulatorTest, VectorAndTransferSemantics) {
  Manifest m = makeManifest(1);
  std::vector<float> a = {1.0f, -2.0f, 3.0f, -4.0f}, b = {0.5f, 5.0f, -1.0f, 2.0f};
  m.inputs.push_back(location("a", {4}, 0));
  m.inputs.push_back(location("b", {4}, 4));
  const char *names[] = {"add", "sub", "mul", "max",  "tanh", "sigm", "rsu",
                         "rsl", "dot", "avg", "lldi", "lmv",  "shift"};
  int32_t out = 100;
  for (const char *name : names) {
    m.outputs.push_back(location(name, {4}, out));
    out += 4;
  }
  // Registers: r2 = a (local 0), r3 = b (local 8), r4 = result (local 16),
  // r5 = the bound (local 40, holds 1.5).
  Program program = {Instruction::setbw(8, 8),
                     Instruction::sldi(0, 0),
                     Instruction::sldi(1, 0),
                     Instruction::sldi(2, 0),
                     ld(2, 0, 4),
                     Instruction::sldi(1, 4),
                     Instruction::sldi(3, 8),
                     ld(3, 0, 4),
                     Instruction::sldi(4, 16),
                     Instruction::sldi(5, 40),
                     Instruction::sldi(1, 96),
                     ld(5, 0, 1)};
  int32_t address = 100;
  auto emit = [&](Instruction inst) {
    append(program, {withImm(Instruction::transfer(Opcode::Lldi, 4, 0, 4), 0), inst});
    append(program, storeTo(address, 4, 4));
    address += 4;
  };
  emit(vec(Opcode::Vvadd, 4, 2, 3, 4));
  emit(vec(Opcode::Vvsub, 4, 2, 3, 4));
  emit(vec(Opcode::Vvmul, 4, 2, 3, 4));
  emit(vec(Opcode::Vvmax, 4, 2, 3, 4));
  emit(vec(Opcode::Vtanh, 4, 2, 0, 4));
  emit(vec(Opcode::Vsigm, 4, 2, 0, 4));
  emit(vec(Opcode::Vrsu, 4, 2, 5, 4));
  emit(vec(Opcode::Vrsl, 4, 2, 5, 4));
  emit(vec(Opcode::Vvdmul, 4, 2, 3, 4));
  emit(vec(Opcode::Vavg, 4, 3, 0, 4));
  emit(withImm(Instruction::transfer(Opcode::Lldi, 4, 0, 3), -3));
  emit(Instruction::transfer(Opcode::Lmv, 4, 3, 4));
  // rd = rs1 + 1: every source element is read before it is overwritten.
  append(program,
         {Instruction::sldi(6, 8), Instruction::sldi(7, 9), vec(Opcode::Vvadd, 7, 6, 6, 3)});
  append(program, storeTo(address, 6, 4));
  // The bound comes from the global image.
  std::vector<float> image(100, 0.0f);
  image[96] = 1.5f;
  m.globalImageElements = 100;
  writeFloats(kGlobalImageFile, image);
  writeAll(m, {program});

  auto values = outputs({tensor("a", {4}, a), tensor("b", {4}, b)});
  ASSERT_EQ(values.size(), std::size(names));
  auto each = [&](auto f) {
    std::vector<float> v(4);
    for (int k = 0; k < 4; ++k)
      v[k] = f(a[k], b[k]);
    return v;
  };
  EXPECT_EQ(values[0], each([](float x, float y) { return x + y; }));
  EXPECT_EQ(values[1], each([](float x, float y) { return x - y; }));
  EXPECT_EQ(values[2], each([](float x, float y) { return x * y; }));
  EXPECT_EQ(values[3], each([](float x, float y) { return std::max(x, y); }));
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(values[4][k], std::tanh(a[k]), 1e-6);
    EXPECT_NEAR(values[5][k], 1.0f / (1.0f + std::exp(-a[k])), 1e-6);
  }
  EXPECT_EQ(values[6], each([](float x, float) { return std::min(x, 1.5f); }));
  EXPECT_EQ(values[7], each([](float x, float) { return std::max(x, 1.5f); }));
  float dot = 0, sum = 0;
  for (int k = 0; k < 4; ++k) {
    dot += a[k] * b[k];
    sum += b[k];
  }
  EXPECT_EQ(values[8], (std::vector<float>{dot, 0, 0, 0}));
  EXPECT_EQ(values[9], (std::vector<float>{sum / 4, 0, 0, 0}));
  EXPECT_EQ(values[10], (std::vector<float>{-3, -3, -3, 0}));
  EXPECT_EQ(values[11], b);
  EXPECT_EQ(values[12], (std::vector<float>{b[0], 2 * b[0], 2 * b[1], 2 * b[2]}));
}

TEST_F(SimulatorTest, SyncAndWaitCountTokens) {
  Manifest m = makeManifest(2);
  m.inputs.push_back(location("x", {4}, 0));
  m.outputs.push_back(location("y", {4}, 64));
  // Core 0 waits for two tokens before it reads what core 1 stored.
  Program consumer = {Instruction::setbw(8, 8),      wait(3, 2),
                      Instruction::sldi(0, 0),       Instruction::sldi(1, 32),
                      Instruction::sldi(2, 0),       ld(2, 0, 4),
                      vec(Opcode::Vrelu, 2, 2, 0, 4)};
  append(consumer, storeTo(64, 2, 4));
  Program producer = {Instruction::setbw(8, 8),
                      Instruction::sldi(0, 0),
                      Instruction::sldi(1, 0),
                      Instruction::sldi(2, 0),
                      ld(2, 0, 4),
                      vec(Opcode::Vvadd, 2, 2, 2, 4),
                      Instruction::sldi(1, 32),
                      st(0, 2, 4),
                      sync(0, 3),
                      sync(0, 3)};
  writeAll(m, {consumer, producer});
  std::vector<float> x = {1.0f, -1.0f, 2.5f, -0.5f};
  auto values = outputs({tensor("x", {4}, x)});
  ASSERT_EQ(values.size(), 1u);
  for (int k = 0; k < 4; ++k)
    EXPECT_EQ(values[0][k], std::max(2 * x[k], 0.0f)) << k;

  // One token short: core 0 is stuck.
  consumer[1] = wait(3, 3);
  writePim(0, consumer);
  EXPECT_TRUE(contains(error({tensor("x", {4}, x)}), {"deadlock", "core 0 pc 1 `wait",
                                                      "event register 3 to reach 3 (it holds 2)"}));
}

//===----------------------------------------------------------------------===//
// Transfers that never complete
//===----------------------------------------------------------------------===//

TEST_F(SimulatorTest, MutualSendsDeadlock) {
  Program core0 = {Instruction::setbw(8, 8), Instruction::sldi(1, 0), Instruction::send(1, 1, 4),
                   Instruction::recv(1, 1, 4)};
  Program core1 = {Instruction::setbw(8, 8), Instruction::sldi(1, 8), Instruction::sldi(2, 9),
                   Instruction::send(1, 0, 4), Instruction::recv(1, 0, 4)};
  writeAll(makeManifest(2), {core0, core1});
  EXPECT_TRUE(contains(error(), {"deadlock: ",
                                 "core 0 pc 2 `send rd=1 rs1=1 core=1 size=4` waits for "
                                 "core 1, which is blocked at pc 3 `send",
                                 "core 1 pc 3 `send rd=1 rs1=1 core=0 size=4` waits for "
                                 "core 0, which is blocked at pc 2"}));
}

TEST_F(SimulatorTest, RecvFromAFinishedCoreIsUnmatched) {
  Program core0 = {Instruction::setbw(8, 8), Instruction::sldi(1, 0),
                   withImm(Instruction::transfer(Opcode::Lldi, 1, 0, 4), 1)};
  Program core1 = {Instruction::setbw(8, 8), Instruction::sldi(1, 0), Instruction::recv(1, 0, 4)};
  writeAll(makeManifest(2), {core0, core1});
  EXPECT_TRUE(contains(error(), {"unmatched transfer",
                                 "core 1 pc 2 `recv rd=1 core=0 size=4` waits for core 0, "
                                 "which has finished"}));
}

TEST_F(SimulatorTest, TransferSizesMustMatch) {
  Program core0 = {Instruction::setbw(8, 8), Instruction::sldi(1, 0), Instruction::send(1, 1, 8)};
  Program core1 = {Instruction::setbw(8, 8), Instruction::sldi(1, 0), Instruction::recv(1, 0, 4)};
  writeAll(makeManifest(2), {core0, core1});
  EXPECT_TRUE(contains(error(), {"core 1 pc 2 `recv rd=1 core=0 size=4`",
                                 "receives 4 bytes, but core 0 pc 2 `send rd=1 rs1=1 "
                                 "core=1 size=8` sends 8 bytes"}));
}

TEST_F(SimulatorTest, InstructionLimit) {
  writeAll(makeManifest(1), {{Instruction::setbw(8, 8), Instruction::sldi(1, 0),
                              Instruction::sldi(2, 0), vec(Opcode::Vrelu, 1, 2, 0, 4)}});
  sim::Options options;
  options.maxInstructions = 3;
  EXPECT_TRUE(contains(error({}, options), {"limit of 3 instructions", "core 0 pc 3"}));
  options.maxInstructions = 4;
  EXPECT_TRUE(static_cast<bool>(run({}, options)));
}

//===----------------------------------------------------------------------===//
// Rejected programs
//===----------------------------------------------------------------------===//

TEST_F(SimulatorTest, OutOfBoundsLocalAccess) {
  EXPECT_TRUE(contains(programError({Instruction::setbw(8, 8), Instruction::sldi(1, 1000),
                                     Instruction::sldi(2, 0), vec(Opcode::Vvadd, 1, 2, 2, 32)}),
                       {"core 0 pc 3 `vvadd rd=1 rs1=2 rs2=2 len=32`",
                        "the 32 bytes at local address 1000 (rd) are outside the "
                        "1024-byte local memory"}));
  EXPECT_TRUE(contains(programError({Instruction::setbw(8, 8), Instruction::sldi(1, -4),
                                     Instruction::transfer(Opcode::Lmv, 2, 1, 4)}),
                       {"local address -4 (rs1)"}));
}

TEST_F(SimulatorTest, ProgramEndingInScalarIsRejected) {
  EXPECT_TRUE(contains(programError({Instruction::setbw(8, 8), Instruction::sldi(1, 0),
                                     vec(Opcode::Vrelu, 1, 1, 0, 4), Instruction::sldi(2, 0)}),
                       {"core 0 pc 3 `sldi rd=2 imm=0`", "core_0.pim", "never finish"}));
  EXPECT_TRUE(contains(programError({Instruction::setbw(8, 8)}), {"pc 0 `setbw"}));
}

TEST_F(SimulatorTest, MissingSetbwIsRejected) {
  EXPECT_TRUE(contains(programError({Instruction::sldi(1, 0), vec(Opcode::Vrelu, 1, 1, 0, 4)}),
                       {"core 0 pc 1 `vrelu", "before the first setbw"}));
  EXPECT_TRUE(contains(programError({Instruction::setbw(8, 16), vec(Opcode::Vrelu, 1, 1, 0, 4)}),
                       {"input_bits/output_bits 8/8"}));
}

TEST_F(SimulatorTest, PimBeatsJson) {
  Manifest m = makeManifest(1);
  m.outputs.push_back(location("y", {2}, 0));
  ASSERT_FALSE(static_cast<bool>(m.write(dir)));
  writeConfig(m);
  auto program = [](int32_t value) {
    Program p = {Instruction::setbw(8, 8), Instruction::sldi(1, 0),
                 withImm(Instruction::transfer(Opcode::Lldi, 1, 0, 2), value)};
    append(p, storeTo(0, 1, 2));
    return p;
  };
  // sadd is fine in JSON (it has an rs2 field there).
  Program json = program(5);
  json.insert(json.begin() + 1, {Instruction::sldi(3, 0), Instruction::sldi(4, 0)});
  Instruction sadd = op(Opcode::Sadd);
  sadd.rd = 1;
  sadd.rs1 = 3;
  sadd.rs2 = 4;
  json.insert(json.begin() + 3, sadd);
  writeJson(0, json);
  auto values = outputs();
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0], (std::vector<float>{5, 5}));

  writePim(0, program(9));
  values = outputs();
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0], (std::vector<float>{9, 9}));
}

TEST_F(SimulatorTest, CoreFilesMustMatchCoreCount) {
  Program program = {Instruction::setbw(8, 8), vec(Opcode::Vrelu, 1, 1, 0, 4)};
  writeAll(makeManifest(2), {program});
  EXPECT_TRUE(contains(error(), {"no program for core 1: neither core_1.pim nor core_1.json"}));
  writePim(1, program);
  EXPECT_TRUE(static_cast<bool>(run()));
  writeJson(2, program);
  EXPECT_TRUE(contains(error(), {"core_2.json' is for core 2", "core_cnt 2"}));
  llvm::sys::fs::remove(path("core_2.json"));
  write("core_1b.json", "[]");
  EXPECT_TRUE(contains(error(), {"malformed per-core instruction filename"}));
  llvm::sys::fs::remove(path("core_1b.json"));
  EXPECT_TRUE(static_cast<bool>(run()));
}

TEST_F(SimulatorTest, ConfigMustAgreeWithTheHardwareAndManifest) {
  Manifest m = makeManifest(2);
  m.cores[0].groups.push_back({3, 8, 8, 0});
  m.cores[0].groups.push_back({2, 8, 8, 0});
  writeFloats(kWeightsFile, std::vector<float>(64, 1.0f));
  Program program = {Instruction::setbw(8, 8), vec(Opcode::Vrelu, 1, 1, 0, 4)};
  writeAll(m, {program, program});
  EXPECT_TRUE(contains(error(), {"'array_group_map.core0' assigns 5 crossbars, but hardware "
                                 "provides 4"}));
  auto config = [&](llvm::StringRef text) {
    write(kInstructionConfigFile, text);
    return error();
  };
  EXPECT_TRUE(
      contains(config(R"({"core_cnt": 2, "array_group_map": {"core0": [3, 1], "core1": []}})"),
               {"is [3, 1], but the manifest's array groups of core 0 have [3, 2]"}));
  m.cores[0].groups.pop_back();
  ASSERT_FALSE(static_cast<bool>(m.write(dir)));
  write(kInstructionConfigFile,
        R"({"core_cnt": 2, "array_group_map": {"core0": [3], "core1": []}})");
  EXPECT_TRUE(static_cast<bool>(run()));
  EXPECT_TRUE(contains(config(R"({"core_cnt": 2, "array_group_map": {"core0": [3]}})"),
                       {"missing 'array_group_map.core1'"}));
  EXPECT_TRUE(contains(config(R"({"core_cnt": 2, "array_group_map": {"core0": [0], "core1": []}})"),
                       {"must contain positive crossbar counts"}));
  EXPECT_TRUE(contains(config(R"({"core_cnt": 3, "array_group_map": {"core0": [3], "core1": []}})"),
                       {"core_cnt 3 is outside 1..2"}));
  EXPECT_TRUE(contains(config(R"({"core_cnt": 0, "array_group_map": {}})"),
                       {"core_cnt 0 is outside 1..2"}));
}

TEST_F(SimulatorTest, RejectsWhatPimsimNeverRetires) {
  Instruction sld = op(Opcode::Sld);
  Instruction sadd = op(Opcode::Sadd);
  sadd.rd = 1;
  EXPECT_TRUE(contains(
      programError({Instruction::setbw(8, 8), op(Opcode::Nop), vec(Opcode::Vrelu, 1, 1, 0, 4)}),
      {"core 0 pc 1 `nop`", "never retires"}));
  EXPECT_TRUE(
      contains(programError({Instruction::setbw(8, 8), sld, vec(Opcode::Vrelu, 1, 1, 0, 4)}),
               {"core 0 pc 1 `sld", "broken"}));
  EXPECT_TRUE(
      contains(programError({Instruction::setbw(8, 8), sadd, vec(Opcode::Vrelu, 1, 1, 0, 4)}),
               {"core 0 pc 1 `sadd rd=1", "no rs2"}));
  EXPECT_TRUE(contains(programError({Instruction::setbw(8, 8), vec(Opcode::Vsoftmax, 1, 1, 0, 4)}),
                       {"does not support opcode vsoftmax"}));
  EXPECT_TRUE(contains(programError({Instruction::setbw(8, 8), vec(Opcode::Vvsll, 1, 1, 1, 4)}),
                       {"shifts are not supported"}));
}

TEST_F(SimulatorTest, RejectsNonzeroOffsets) {
  Instruction inst = vec(Opcode::Vvadd, 1, 2, 3, 4);
  inst.offsetSelect = 2;
  EXPECT_TRUE(contains(programError({Instruction::setbw(8, 8), inst}),
                       {"pc 1 `vvadd rd=1 rs1=2 rs2=3 len=4 offset_select=2 "
                        "offset_value=0`",
                        "nonzero offset"}));
  inst = ld(1, 2, 4);
  inst.offsetValue = 8;
  EXPECT_TRUE(contains(programError({Instruction::setbw(8, 8), inst}), {"nonzero offset"}));
}

TEST_F(SimulatorTest, RejectsBadFields) {
  auto bad = [&](Instruction inst) { return programError({Instruction::setbw(8, 8), inst}); };
  Instruction mv = Instruction::mvmul(1, 2, 0, 0);
  EXPECT_TRUE(contains(bad(mv), {"mbiw must be positive"}));
  mv.mbiw = 8;
  EXPECT_TRUE(contains(bad(mv), {"group 0 is outside core 0's 0 array groups"}));
  EXPECT_TRUE(contains(bad(vec(Opcode::Vrelu, 32, 1, 0, 4)), {"register rd=32 is outside 0..31"}));
  EXPECT_TRUE(contains(bad(vec(Opcode::Vvadd, 1, 1, 40, 4)), {"register rs2=40"}));
  EXPECT_TRUE(contains(bad(ld(1, 31, 4)), {"register rs1=31 is outside 0..30"}));
  EXPECT_TRUE(contains(bad(st(31, 1, 4)), {"register rd=31 is outside 0..30"}));
  EXPECT_TRUE(contains(bad(Instruction::send(1, 0, 4)), {"with the core itself"}));
  EXPECT_TRUE(contains(bad(Instruction::recv(1, 5, 4)), {"core 5 does not exist (core_cnt is 1)"}));
  EXPECT_TRUE(contains(bad(sync(2, 0)), {"core 2 does not exist"}));
  EXPECT_TRUE(contains(bad(wait(32, 1)), {"event_register=32"}));
  Instruction send = Instruction::send(1, 0, 4);
  send.rs1 = 2;
  EXPECT_TRUE(contains(bad(send), {"rd and rs1 differ"}));
  EXPECT_TRUE(contains(bad(vec(Opcode::Vvadd, 1, 1, 1, -1)), {"negative len"}));
}

TEST_F(SimulatorTest, RejectsUnknownOpcodes) {
  writeAll(makeManifest(1), {});
  uint8_t header[kPimHeaderBytes], record[kPimRecordBytes];
  encodeHeader(2, header);
  std::string bytes(reinterpret_cast<const char *>(header), kPimHeaderBytes);
  encodeRecord(Instruction::setbw(8, 8), record);
  bytes.append(reinterpret_cast<const char *>(record), kPimRecordBytes);
  record[0] = 40;
  bytes.append(reinterpret_cast<const char *>(record), kPimRecordBytes);
  write("core_0.pim", bytes);
  EXPECT_TRUE(contains(error(), {"core_0.pim': record 1 has opcode 40"}));
  llvm::sys::fs::remove(path("core_0.pim"));
  write("core_0.json", R"([{"op": "setbw", "ibiw": 8, "obiw": 8}, {"op": "vfoo"}])");
  EXPECT_TRUE(contains(error(), {"core_0.json'", "instruction 1", "unknown op 'vfoo'"}));
}

TEST_F(SimulatorTest, InputsMustMatchTheManifest) {
  Manifest m = makeManifest(1);
  m.inputs.push_back(location("x", {2, 3}, 0));
  writeAll(m, {{Instruction::setbw(8, 8), vec(Opcode::Vrelu, 1, 1, 0, 4)}});
  EXPECT_TRUE(contains(error(), {"takes 1 inputs, but 0 were given"}));
  EXPECT_TRUE(contains(error({tensor("x", {3, 2}, std::vector<float>(6))}),
                       {"input 0 'x' must be a float tensor of shape [2,3]", "[3,2]"}));
  EXPECT_TRUE(static_cast<bool>(run({tensor("x", {2, 3}, std::vector<float>(6))})));
}

// With 4-byte elements an address inside an element has no value of its own.
TEST_F(SimulatorTest, WideElementsMustBeAligned) {
  writeAll(makeManifest(1, 4), {{Instruction::setbw(32, 32), Instruction::sldi(1, 6),
                                 Instruction::sldi(2, 8), vec(Opcode::Vrelu, 2, 1, 0, 4)}});
  EXPECT_TRUE(contains(error(), {"core 0 pc 3", "local address 6 (rs1) is not a multiple of the "
                                                "4-byte element"}));
}
} // namespace

//===----------------------------------------------------------------------===//
// Timing replay
//===----------------------------------------------------------------------===//

// Finish times pimsim-nn (HEAPLab fork) reported for these programs on
// chip-144, each core starting with setbw and seven sldi.
class TimingTest : public SimulatorTest {
protected:
  Program start() const {
    Program p = {Instruction::setbw(8, 8)};
    for (int r = 1; r <= 7; ++r)
      p.push_back(Instruction::sldi(r, 0));
    return p;
  }
  Program with(Program p, const Program &more) const {
    append(p, more);
    return p;
  }
  Program adds(int n) const {
    return Program(n, vec(Opcode::Vvadd, 1, 2, 3, 64));
  }
  /// Core 0: 200 mvmuls on 4 crossbars, then a send of 256 bytes to core 1,
  /// which receives them and adds.
  void writeMvmsThenAdds() {
    Program mvms = with(start(), Program(200, Instruction::mvmul(1, 2, 8, 0)));
    mvms.push_back(Instruction::send(4, 1, 256));
    Program adder = with(with(start(), {Instruction::recv(5, 0, 256)}), adds(10));
    Manifest m = makeManifest(2);
    m.cores[0].groups = {{4, 8, 8, 0}};
    writeFloats(kWeightsFile, std::vector<float>(8 * 8, 1.0f));
    writeAll(m, {mvms, adder});
  }
  /// Replays `programs`, each core looping its program `rounds` times.
  sim::Timing replay(const std::vector<Program> &programs, int64_t rounds = 1) {
    writeAll(makeManifest(int(programs.size())), programs);
    llvm::Expected<Arch> arch = Arch::load(PIMC_SOURCE_DIR "/configs/chip-144.json");
    EXPECT_TRUE(static_cast<bool>(arch)) << llvm::toString(arch.takeError());
    if (!arch)
      return sim::Timing();
    llvm::Expected<sim::Timing> timing = sim::replayTiming(dir, *arch, nullptr, 0, rounds);
    EXPECT_TRUE(static_cast<bool>(timing)) << llvm::toString(timing.takeError());
    return timing ? *timing : sim::Timing();
  }
  /// Replays `programs` and checks each core's finish time against what
  /// pimsim-nn measured, within 1% (at least 4 ns).
  void expectFinish(const std::vector<Program> &programs, const std::vector<double> &measured,
                    std::vector<ArrayGroupInfo> groups = {}) {
    Manifest m = makeManifest(int(programs.size()));
    m.cores[0].groups = groups;
    if (!groups.empty())
      writeFloats(kWeightsFile, std::vector<float>(groups[0].rows * groups[0].cols, 1.0f));
    writeAll(m, programs);
    llvm::Expected<Arch> arch = Arch::load(PIMC_SOURCE_DIR "/configs/chip-144.json");
    ASSERT_TRUE(static_cast<bool>(arch)) << llvm::toString(arch.takeError());
    llvm::Expected<sim::Timing> timing = sim::replayTiming(dir, *arch);
    ASSERT_TRUE(static_cast<bool>(timing)) << llvm::toString(timing.takeError());
    ASSERT_EQ(timing->cores.size(), measured.size());
    double latest = 0;
    for (size_t core = 0; core < measured.size(); ++core) {
      EXPECT_NEAR(timing->cores[core].finishNs, measured[core],
                  std::max(4.0, 0.01 * measured[core]))
          << "core " << core;
      latest = std::max(latest, measured[core]);
    }
    EXPECT_NEAR(timing->latencyNs, latest, std::max(4.0, 0.01 * latest));
  }
};

TEST_F(TimingTest, ComputeInstructions) {
  expectFinish({with(start(), adds(10))}, {808});
  Program mvms = {Instruction::setbw(8, 8), Instruction::sldi(1, 0), Instruction::sldi(2, 0),
                  Instruction::sldi(3, 0)};
  append(mvms, Program(200, Instruction::mvmul(1, 2, 8, 0)));
  expectFinish({mvms}, {373606}, {{4, 8, 8, 0}});
}

TEST_F(TimingTest, RendezvousWaitsForTheLaterSide) {
  Instruction send = Instruction::send(4, 1, 256), recv = Instruction::recv(5, 0, 256);
  expectFinish({with(start(), {send}), with(start(), {recv})}, {100, 252});
  expectFinish({with(start(), {send}), with(with(start(), adds(10)), {recv})}, {896, 1048});
  expectFinish({with(with(start(), adds(10)), {send}), with(start(), {recv})}, {900, 1052});
  // The receiver meets its two senders one after the other.
  expectFinish({with(start(), {Instruction::send(4, 2, 256)}),
                with(start(), {Instruction::send(4, 2, 256)}),
                with(start(), {Instruction::recv(5, 0, 256), Instruction::recv(5, 1, 256)})},
               {104, 358, 510});
}

// Looping programs (throughput mode) overlap rounds: the sender computes
// its next round while the receiver works on the last one, so a round of
// the chip takes what the slower core's own round takes, not the sum.
TEST_F(TimingTest, LoopingProgramsOverlapTheirRounds) {
  Instruction send = Instruction::send(4, 1, 256), recv = Instruction::recv(5, 0, 256);
  Program sender = with(with(start(), adds(10)), {send});
  Program receiver = with(with(start(), {recv}), adds(20));
  sim::Timing once = replay({sender, receiver}, 1);
  sim::Timing looping = replay({sender, receiver}, 4);
  EXPECT_EQ(looping.latencyNs, once.latencyNs);
  // The receiver's round when its sender is never late.
  double receiverRound = replay({with(start(), {send}), receiver}, 1).cores[1].finishNs;
  EXPECT_NEAR(looping.roundNs, receiverRound, 0.05 * receiverRound);
  EXPECT_LT(looping.roundNs, once.latencyNs - 500);
  llvm::Expected<Arch> arch = Arch::load(PIMC_SOURCE_DIR "/configs/chip-144.json");
  ASSERT_TRUE(static_cast<bool>(arch)) << llvm::toString(arch.takeError());
  EXPECT_FALSE(static_cast<bool>(sim::replayTiming(dir, *arch, nullptr, 0, 0)));
}

// The period is measured over the later rounds: a chain of four stages,
// each a short round but filling late, ends the chip's first rounds, and an
// independent core with a longer round ends the later ones.
TEST_F(TimingTest, RoundIsTheLaterRoundsPeriod) {
  Program alone = with(start(), adds(16));
  double aloneRound = replay({alone}, 1).cores[0].finishNs;
  std::vector<Program> programs;
  for (int stage = 0; stage < 4; ++stage) {
    Program p = start();
    if (stage > 0)
      p.push_back(Instruction::recv(5, stage - 1, 256));
    append(p, adds(5));
    if (stage + 1 < 4)
      p.push_back(Instruction::send(4, stage + 1, 256));
    programs.push_back(p);
  }
  double chainRound = replay(programs, 8).roundNs;
  programs.push_back(alone);
  sim::Timing all = replay(programs, 8);
  // The chain alone has the shorter period, but its first round ends after
  // the independent core's first.
  EXPECT_LT(chainRound, 0.7 * aloneRound);
  EXPECT_GT(all.latencyNs, aloneRound);
  EXPECT_NEAR(all.roundNs, aloneRound, 0.01 * aloneRound);
}

// The critical path goes back from the last core's end through its own
// work to the rendezvous it waited in, then on in the peer it waited for.
TEST_F(TimingTest, CriticalPathFollowsTheWaits) {
  Instruction send = Instruction::send(4, 1, 256), recv = Instruction::recv(5, 0, 256);
  auto expectContiguous = [](const sim::Timing &timing) {
    ASSERT_FALSE(timing.criticalPath.empty());
    EXPECT_EQ(timing.criticalPath.front().startNs, 0);
    EXPECT_EQ(timing.criticalPath.back().endNs, timing.latencyNs);
    for (size_t i = 1; i < timing.criticalPath.size(); ++i)
      EXPECT_EQ(timing.criticalPath[i].startNs, timing.criticalPath[i - 1].endNs);
  };
  // Core 1 waits in its recv for core 0, which computes first.
  sim::Timing waited = replay({with(with(start(), adds(10)), {send}),
                               with(with(start(), {recv}), adds(20))});
  expectContiguous(waited);
  const std::vector<sim::PathStep> &path = waited.criticalPath;
  ASSERT_EQ(path.size(), 3u);
  EXPECT_EQ(path[0].core, 0);
  EXPECT_FALSE(path[0].transfer);
  EXPECT_TRUE(path[1].transfer);
  EXPECT_EQ(path[2].core, 1);
  EXPECT_FALSE(path[2].transfer);
  // Core 1 computes before its recv and never waits: the path is its own.
  sim::Timing late = replay({with(start(), {send}), with(with(start(), adds(10)), {recv})});
  expectContiguous(late);
  ASSERT_EQ(late.criticalPath.size(), 1u);
  EXPECT_EQ(late.criticalPath[0].core, 1);
}

// In a round of looping programs the slower core works through it; the
// faster one waits, to send when its receiver is slower, to receive when its
// sender is.
TEST_F(TimingTest, RoundCoresTellWhoWaitsForWhom) {
  Instruction send = Instruction::send(4, 1, 256), recv = Instruction::recv(5, 0, 256);
  for (auto [sender, receiver, slower] :
       {std::tuple{with(with(start(), adds(30)), {send}), with(with(start(), {recv}), adds(5)), 0},
        std::tuple{with(with(start(), adds(5)), {send}), with(with(start(), {recv}), adds(30)), 1}}) {
    sim::Timing timing = replay({sender, receiver}, 6);
    ASSERT_EQ(timing.roundCores.size(), 2u);
    for (const sim::CoreTiming &c : timing.roundCores)
      EXPECT_NEAR(c.busyNs() + c.rendezvousNs() + c.memoryWaitNs, timing.roundNs,
                  0.01 * timing.roundNs);
    const sim::CoreTiming &slow = timing.roundCores[slower], &fast = timing.roundCores[1 - slower];
    EXPECT_GT(slow.busyNs(), 0.9 * timing.roundNs) << "slower core " << slower;
    EXPECT_LT(slow.rendezvousNs(), 0.1 * timing.roundNs) << "slower core " << slower;
    // The sender (core 0) waits to send for a slower receiver; the receiver
    // waits to receive from a slower sender.
    EXPECT_GT(slower == 1 ? fast.sendWaitNs : fast.recvWaitNs, 0.5 * timing.roundNs)
        << "slower core " << slower;
    EXPECT_EQ(slower == 1 ? fast.recvWaitNs : fast.sendWaitNs, 0) << "slower core " << slower;
  }
}

TEST_F(TimingTest, GlobalMemoryServesOneRequestAtATime) {
  expectFinish({with(start(), {ld(5, 6, 1024)})}, {1787});
  expectFinish({with(start(), {st(6, 5, 1024)})}, {2413});
  // Core 1 is nearer the global memory: its request is served first.
  expectFinish({with(start(), {ld(5, 6, 1024)}), with(start(), {ld(5, 6, 1024)})},
               {3067, 1787});
}

// The energy pimsim-nn reported (20716608 pJ in 374652 ns) for a core of
// 200 mvmuls on 4 crossbars that then sends 256 bytes to a core that adds.
TEST_F(TimingTest, EnergyAddsCrossbarsFlitsAndStaticPower) {
  writeMvmsThenAdds();
  llvm::Expected<Arch> arch = Arch::load(PIMC_SOURCE_DIR "/configs/chip-144.json");
  ASSERT_TRUE(static_cast<bool>(arch)) << llvm::toString(arch.takeError());
  llvm::Expected<sim::Timing> timing = sim::replayTiming(dir, *arch);
  ASSERT_TRUE(static_cast<bool>(timing)) << llvm::toString(timing.takeError());
  const sim::Energy &e = timing->energy;
  EXPECT_EQ(e.crossbarReads, 800);
  // Two local memories and the global one, 1 mW each by default.
  EXPECT_EQ(e.staticMw, 3);
  EXPECT_NEAR(e.dynamicPj() + e.staticMw * timing->latencyNs, 20716608, 0.001 * 20716608);
}

// With the timeline kept, each core's slices follow one another from its
// first instruction to its last: address loads fold into the work after
// them, the work of one kind runs as one slice, a rendezvous is a wait and
// the core's own part, and the transfer is a flow between those parts.
TEST_F(TimingTest, TimelineKeepsEachCoresSlicesAndFlows) {
  writeAll(makeManifest(2), {with(with(start(), adds(10)), {Instruction::send(4, 1, 256)}),
                             with(with(start(), {Instruction::recv(5, 0, 256)}), adds(5))});
  llvm::Expected<Arch> arch = Arch::load(PIMC_SOURCE_DIR "/configs/chip-144.json");
  ASSERT_TRUE(static_cast<bool>(arch)) << llvm::toString(arch.takeError());
  llvm::Expected<sim::Timing> timing = sim::replayTiming(dir, *arch, nullptr, 0, 1, 1);
  ASSERT_TRUE(static_cast<bool>(timing)) << llvm::toString(timing.takeError());
  ASSERT_EQ(timing->slices.size(), 2u);
  for (size_t core = 0; core < 2; ++core) {
    const std::vector<sim::Slice> &line = timing->slices[core];
    ASSERT_FALSE(line.empty());
    EXPECT_EQ(line.front().startNs, 0);
    EXPECT_EQ(line.back().endNs, timing->cores[core].finishNs);
    double compute = 0, waits = 0;
    for (size_t i = 0; i < line.size(); ++i) {
      if (i)
        EXPECT_EQ(line[i].startNs, line[i - 1].endNs) << "core " << core << " slice " << i;
      double ns = line[i].endNs - line[i].startNs;
      if (line[i].activity == sim::Activity::Vector || line[i].activity == sim::Activity::Scalar)
        compute += ns;
      if (line[i].activity == sim::Activity::SendWait ||
          line[i].activity == sim::Activity::RecvWait)
        waits += ns;
    }
    EXPECT_DOUBLE_EQ(compute, timing->cores[core].computeNs) << "core " << core;
    EXPECT_DOUBLE_EQ(waits, timing->cores[core].rendezvousNs()) << "core " << core;
  }
  // Core 0: setbw and seven sldi, then ten vvadds, as one slice.
  const sim::Slice &adds = timing->slices[0].front();
  EXPECT_EQ(adds.activity, sim::Activity::Vector);
  EXPECT_EQ(adds.count, 10);
  EXPECT_EQ(adds.scalars, 8);
  EXPECT_EQ(timing->slices[0].back().activity, sim::Activity::Send);
  // Core 1 waits in its recv for core 0's ten vvadds.
  const std::vector<sim::Slice> &receiver = timing->slices[1];
  ASSERT_EQ(receiver.size(), 4u);
  EXPECT_EQ(receiver[0].activity, sim::Activity::Scalar);
  EXPECT_EQ(receiver[1].activity, sim::Activity::RecvWait);
  EXPECT_GT(receiver[1].endNs - receiver[1].startNs, 700);
  EXPECT_EQ(receiver[2].activity, sim::Activity::Recv);
  EXPECT_EQ(receiver[3].activity, sim::Activity::Vector);
  EXPECT_EQ(receiver[3].count, 5);
  ASSERT_EQ(timing->flows.size(), 1u);
  const sim::Flow &flow = timing->flows[0];
  EXPECT_EQ(flow.sender, 0);
  EXPECT_EQ(flow.receiver, 1);
  EXPECT_EQ(flow.sendSlice, timing->slices[0].size() - 1);
  EXPECT_EQ(flow.recvSlice, 2u);
  EXPECT_EQ(flow.bytes, 256);
  // The 256 bytes and the ready message and its answer crossed the NoC.
  int64_t bytes = 0;
  for (const sim::Message &m : timing->messages)
    bytes += m.bytes;
  EXPECT_EQ(bytes, 256 + 1 + 1);
  // Without traceRounds, nothing is kept.
  llvm::Expected<sim::Timing> untraced = sim::replayTiming(dir, *arch);
  ASSERT_TRUE(static_cast<bool>(untraced)) << llvm::toString(untraced.takeError());
  EXPECT_TRUE(untraced->slices.empty());
  EXPECT_TRUE(untraced->messages.empty());
}

// Energy is told per model node too: the mvmuls' crossbar reads go to the
// node of the core that reads them, and the nodes add up to the chip.
TEST_F(TimingTest, EnergyIsToldPerNode) {
  writeMvmsThenAdds();
  llvm::Expected<Arch> arch = Arch::load(PIMC_SOURCE_DIR "/configs/chip-144.json");
  ASSERT_TRUE(static_cast<bool>(arch)) << llvm::toString(arch.takeError());
  std::vector<sim::NodeMarks> marks = {{{0, 0}}, {{0, 1}}};
  llvm::Expected<sim::Timing> timing = sim::replayTiming(dir, *arch, &marks, 2);
  ASSERT_TRUE(static_cast<bool>(timing)) << llvm::toString(timing.takeError());
  ASSERT_EQ(timing->nodes.size(), 2u);
  const sim::NodeTiming &mvmNode = timing->nodes[0], &addNode = timing->nodes[1];
  EXPECT_EQ(mvmNode.crossbars, 4);
  EXPECT_EQ(mvmNode.crossbarReads, 800);
  EXPECT_EQ(addNode.crossbars, 0);
  EXPECT_EQ(addNode.crossbarPj, 0);
  EXPECT_DOUBLE_EQ(mvmNode.crossbarPj, timing->energy.crossbarPj);
  EXPECT_GT(mvmNode.nocPj, 0); // its send's flits
  EXPECT_NEAR(mvmNode.dynamicPj() + addNode.dynamicPj(), timing->energy.dynamicPj(),
              1e-9 * timing->energy.dynamicPj());
}

// The latency bound on chip-144, worked out by hand from the architecture
// file (docs/bound.md): a vvadd of 64 one-byte elements takes 2 reads of
// 20 ns, 2 vector steps of 4 ns, a write of 30 ns and 2 ns to issue, 80 ns;
// setbw and seven sldi take 8 ns.
TEST_F(TimingTest, BoundsWorkedOutByHand) {
  // One core that only computes: every bound is its own time, 8 + 10 * 80.
  sim::Timing alone = replay({with(start(), adds(10))});
  EXPECT_EQ(alone.bound.coreWorkNs, 808);
  EXPECT_EQ(alone.bound.workCore, 0);
  EXPECT_EQ(alone.bound.chainNs, 808);
  EXPECT_EQ(alone.bound.injectionNs, 0);
  EXPECT_EQ(alone.bound.globalMemoryNs, 0);
  EXPECT_EQ(alone.bound.latencyNs(), alone.latencyNs);

  // Core 1 computes 800 ns, then receives 256 bytes from core 0, which is
  // there first. The recv takes at least the answer to core 0's ready
  // message (one flit to a neighbour, 4 ns), core 0's read of 4 beats of
  // 64 bytes (80 ns), 8 flits of 32 bytes (32 ns), the write (120 ns) and
  // 4 ns to issue: 240 ns. Core 0's send takes its ready message and the
  // answer (8 ns), its read (80 ns) and 4 ns: 92 ns, 100 with its start.
  Instruction send = Instruction::send(4, 1, 256), recv = Instruction::recv(5, 0, 256);
  sim::Timing late = replay({with(start(), {send}), with(with(start(), adds(10)), {recv})});
  EXPECT_EQ(late.bound.coreWorkNs, 8 + 800 + 240);
  EXPECT_EQ(late.bound.workCore, 1);
  // Core 0's switch sends the ready message and the data, 4 + 32 ns.
  EXPECT_EQ(late.bound.injectionNs, 36);
  EXPECT_EQ(late.bound.injectionCore, 0);
  EXPECT_EQ(late.bound.latencyNs(), late.latencyNs);

  // Now core 1 receives first and computes after: it waits for core 0's
  // 800 ns. Its own least work is 8 + 240 + 1600 ns; only the programs'
  // order (the chain) bounds the latency as it is.
  sim::Timing waits = replay({with(with(start(), adds(10)), {send}),
                              with(with(start(), {recv}), adds(20))});
  EXPECT_EQ(waits.bound.coreWorkNs, 8 + 240 + 1600);
  EXPECT_EQ(waits.bound.roundNs(), 8 + 240 + 1600);
  EXPECT_GT(waits.latencyNs, waits.bound.roundNs() + 700);
  EXPECT_EQ(waits.bound.chainNs, waits.latencyNs); // one message: nothing contends

  // Two cores each load 1024 bytes: 15 ns for the request to the global
  // memory, 32 beats of 40 ns to read, 16 of 30 ns to write locally, 4 ns
  // to issue; 1787 ns with the start. The global memory reads one request
  // at a time, 2 * 1280 ns: that bounds the latency, which the queue makes
  // longer still.
  sim::Timing loads = replay({with(start(), {ld(5, 6, 1024)}), with(start(), {ld(5, 6, 1024)})});
  EXPECT_EQ(loads.bound.coreWorkNs, 1787);
  EXPECT_EQ(loads.bound.chainNs, 1787);
  EXPECT_EQ(loads.bound.globalMemoryNs, 2560);
  EXPECT_EQ(loads.bound.latencyNs(), 2560);
  EXPECT_GT(loads.latencyNs, 2560);
}
