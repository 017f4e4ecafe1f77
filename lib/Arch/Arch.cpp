//===- Arch.cpp - the architecture description ----------------------------===//

#include "pimc/Arch/Arch.h"
#include "pimc/Support/InputLimits.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>

using namespace pimc;
using llvm::json::Object;

namespace {
/// The values a field may take. The default bounds keep every product pimc
/// forms of two or three fields (crossbar cells of a chip, bytes of its
/// memories) within 64 bits.
struct Range {
  int64_t min = 0, max = (int64_t(1) << 31) - 1;
};
constexpr int64_t kMaxCores = 4096;
constexpr int64_t kMaxCrossbarSide = 4096;
/// Bytes: pimc's simulator allocates each core's local memory.
constexpr int64_t kMaxMemoryBytes = int64_t(1) << 30;
} // namespace

namespace {
/// Reads typed fields of one JSON object, keeping the default of a missing
/// key and remembering the first error with its full key path.
class FieldReader {
public:
  FieldReader(const Object *object, std::string path, std::string &error)
      : object(object), path(std::move(path)), error(error) {}

  template <typename T> void number(llvm::StringRef key, T &out, Range range = {}) {
    if (!object || !error.empty())
      return;
    const llvm::json::Value *value = object->get(key);
    if (!value)
      return;
    if (auto flag = value->getAsBoolean()) {
      out = static_cast<T>(*flag);
      return;
    }
    std::optional<double> number = value->getAsNumber();
    if (!number) {
      error = llvm::formatv("'{0}.{1}' must be a number", path, key);
      return;
    }
    if constexpr (std::is_integral_v<T>) {
      if (!value->getAsInteger()) {
        error = llvm::formatv("'{0}.{1}' must be an integer", path, key);
        return;
      }
    }
    // Checked before the conversion, which is undefined out of range.
    if (!std::isfinite(*number) || *number < double(range.min) ||
        *number > double(range.max)) {
      error = llvm::formatv("'{0}.{1}' must be a number from {2} to {3}, not {4}", path, key,
                            range.min, range.max, *value);
      return;
    }
    out = static_cast<T>(*number);
  }

  /// A field that must be an array of `count` integers in `range`.
  void integers(llvm::StringRef key, llvm::MutableArrayRef<int64_t *> out, Range range = {}) {
    if (!object || !error.empty() || !object->get(key))
      return;
    const llvm::json::Array *array = object->getArray(key);
    bool ok = array && array->size() == out.size();
    for (size_t i = 0; ok && i < out.size(); ++i) {
      std::optional<int64_t> v = (*array)[i].getAsInteger();
      ok = v && *v >= range.min && *v <= range.max;
      if (ok)
        *out[i] = *v;
    }
    if (!ok)
      error = llvm::formatv("'{0}.{1}' must be an array of {2} integers from {3} to {4}", path,
                            key, out.size(), range.min, range.max);
  }

  void string(llvm::StringRef key, std::string &out) {
    if (!object || !error.empty())
      return;
    if (const llvm::json::Value *value = object->get(key)) {
      if (auto text = value->getAsString())
        out = text->str();
      else
        error = llvm::formatv("'{0}.{1}' must be a string", path, key);
    }
  }

  FieldReader child(llvm::StringRef key) {
    const Object *inner = object ? object->getObject(key) : nullptr;
    if (object && !inner && object->get(key) && error.empty())
      error = llvm::formatv("'{0}.{1}' must be an object", path, key);
    return FieldReader(inner, path + "." + key.str(), error);
  }

  const Object *get() const { return object; }
  const std::string &where() const { return path; }

private:
  const Object *object;
  std::string path;
  std::string &error;
};
} // namespace

static void readMemory(FieldReader reader, MemoryConfig &memory) {
  reader.number("data_width", memory.dataWidth, {0, 1 << 16});
  reader.number("period", memory.period);
  reader.number("read_latency_cycle", memory.readLatencyCycle);
  reader.number("write_latency_cycle", memory.writeLatencyCycle);
  reader.number("read_dynamic_energy", memory.readDynamicEnergy);
  reader.number("write_dynamic_energy", memory.writeDynamicEnergy);
  reader.number("static_power", memory.staticPower);
  reader.number("memory_size", memory.memorySize, {0, kMaxMemoryBytes});
}

static llvm::Error invalid(llvm::StringRef name, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "architecture '" + name + "': " + message);
}

/// Reads the network file: {"latency": {src: {dst: ns}}, "energy": ...},
/// with a row for every core and the global memory, each with an entry for
/// every other node.
static llvm::Error readNetwork(const llvm::json::Object &network, Arch &arch,
                               llvm::StringRef name, llvm::StringRef networkPath) {
  int64_t nodes = arch.coreCount + 1;
  arch.nocLatency.assign(nodes * nodes, 0);
  arch.nocEnergy.assign(nodes * nodes, 0);
  auto nodeIndex = [&](llvm::StringRef key) -> int64_t {
    int64_t id;
    if (key.getAsInteger(10, id))
      return -1;
    if (id == arch.globalMemorySwitchId)
      return arch.coreCount;
    return id >= 0 && id < arch.coreCount ? id : -1;
  };
  for (auto [table, values] : {std::pair{"latency", &arch.nocLatency},
                               std::pair{"energy", &arch.nocEnergy}}) {
    const Object *rows = network.getObject(table);
    if (!rows)
      return invalid(name, llvm::formatv("network file '{0}' has no object '{1}'",
                                         networkPath, table));
    std::vector<bool> given(nodes * nodes, false);
    for (const auto &[src, row] : *rows) {
      int64_t from = nodeIndex(src);
      const Object *cols = row.getAsObject();
      if (!cols)
        return invalid(name, llvm::formatv("network '{0}' row '{1}' must be an "
                                           "object", table, src.str()));
      if (from < 0)
        continue; // nodes beyond this chip's cores do not matter
      for (const auto &[dst, cost] : *cols) {
        int64_t to = nodeIndex(dst);
        auto number = cost.getAsNumber();
        if (!number || !std::isfinite(*number) || *number < 0)
          return invalid(name, llvm::formatv("network '{0}' entry {1}->{2} must "
                                             "be a number of at least 0", table, src.str(),
                                             dst.str()));
        if (to >= 0) {
          (*values)[from * nodes + to] = *number;
          given[from * nodes + to] = true;
        }
      }
    }
    auto key = [&](int64_t node) {
      return node == arch.coreCount ? arch.globalMemorySwitchId : node;
    };
    for (int64_t from = 0; from < nodes; ++from)
      for (int64_t to = 0; to < nodes; ++to)
        if (from != to && !given[from * nodes + to])
          return invalid(name, llvm::formatv("network file '{0}' has no entry '{1}.{2}.{3}' "
                                             "(the chip has {4} cores and the global memory "
                                             "{5})",
                                             networkPath, table, key(from), key(to),
                                             arch.coreCount, arch.globalMemorySwitchId));
  }
  return llvm::Error::success();
}

llvm::Expected<Arch> Arch::parse(llvm::StringRef text, llvm::StringRef directory,
                                 llvm::StringRef name,
                                 std::optional<llvm::StringRef> networkText) {
  llvm::Expected<llvm::json::Value> json = parseJsonWithinDepth(text);
  if (!json)
    return invalid(name, "not valid JSON: " + llvm::toString(json.takeError()));
  const Object *root = json->getAsObject();
  if (!root)
    return invalid(name, "the top level must be an object");

  Arch arch;
  std::string error;
  FieldReader top(root, "", error);
  FieldReader chip = top.child("chip_config");
  if (!chip.get())
    return invalid(name, "missing 'chip_config'");
  chip.number("core_cnt", arch.coreCount, {0, kMaxCores});
  Range switchIds{-(int64_t(1) << 31), int64_t(1) << 31};
  chip.number("global_memory_switch_id", arch.globalMemorySwitchId, switchIds);

  FieldReader core = chip.child("core_config");
  core.number("period", arch.corePeriod);
  core.number("rob_size", arch.robSize, {0, 1 << 20});
  core.number("vector_width", arch.vectorWidth, {0, 1 << 20});
  core.number("vector_latency_cycle", arch.vectorLatencyCycle);
  double alu = 0, regRead = 0, regWrite = 0;
  core.number("vector_alu_dynamic_energy", alu);
  core.number("vector_reg_read_dynamic_energy", regRead);
  core.number("vector_reg_write_dynamic_energy", regWrite);
  arch.vectorDynamicEnergy = alu + 2 * regRead + regWrite;
  for (const char *key :
       {"vector_alu_static_power", "vector_reg_static_power",
        "inst_fetch_static_power", "inst_decode_static_power",
        "inst_decode_offset_static_power", "reg_file_static_power",
        "scalar_static_power", "transfer_static_power"}) {
    double power = 0;
    core.number(key, power);
    arch.coreStaticPower += power;
  }
  int64_t coreSwitchId = arch.globalMemorySwitchId;
  core.number("global_memory_switch_id", coreSwitchId, switchIds);
  readMemory(core.child("local_memory_config"), arch.localMemory);

  FieldReader matrixReader = core.child("matrix_config");
  MatrixConfig &m = arch.matrix;
  matrixReader.number("xbar_array_count", m.xbarArrayCount, {0, kMaxCrossbarSide});
  int64_t *xbarSize[] = {&m.xbarRows, &m.xbarCols};
  matrixReader.integers("xbar_size", xbarSize, {1, kMaxCrossbarSide});
  matrixReader.number("cell_precision", m.cellPrecision, {0, 64});
  matrixReader.number("period", m.period);
  matrixReader.number("pipeline_mode", m.pipelineMode);
  matrixReader.number("dac_resolution", m.dacResolution, {0, 64});
  matrixReader.number("dac_count", m.dacCount, {0, 1 << 16});
  matrixReader.number("dac_latency_cycle", m.dacLatencyCycle);
  matrixReader.number("dac_dynamic_power", m.dacDynamicPower);
  matrixReader.number("xbar_latency", m.xbarLatency);
  matrixReader.number("xbar_read_power", m.xbarReadPower);
  matrixReader.number("sample_hold_latency_cycle", m.sampleHoldLatencyCycle);
  matrixReader.number("sample_hold_dynamic_power", m.sampleHoldDynamicPower);
  matrixReader.number("adc_count", m.adcCount, {0, 1 << 16});
  matrixReader.number("adc_latency_cycle", m.adcLatencyCycle);
  matrixReader.number("adc_dynamic_power", m.adcDynamicPower);
  matrixReader.number("shift_adder_latency_cycle", m.shiftAdderLatencyCycle);
  matrixReader.number("shift_adder_dynamic_power", m.shiftAdderDynamicPower);
  matrixReader.number("output_buffer_latency_cycle", m.outputBufferLatencyCycle);
  matrixReader.number("output_buffer_dynamic_power", m.outputBufferDynamicPower);

  readMemory(chip.child("global_memory_config"), arch.globalMemory);
  FieldReader network = chip.child("network_config");
  network.number("bus_width", arch.busWidth, {0, 1 << 20});
  network.string("net_config_file_path", arch.networkFile);
  int64_t *layout[] = {&arch.layoutRows, &arch.layoutCols};
  network.integers("layout", layout, {0, kMaxCores});

  FieldReader sim = top.child("sim_config");
  sim.number("sim_mode", arch.simMode, {0, 1});
  FieldReader knobs = top.child("pimc");
  knobs.number("input_bits", arch.inputBits, {0, 64});
  knobs.number("output_bits", arch.outputBits, {0, 64});
  knobs.number("weight_bits", arch.weightBits, {0, 64});
  knobs.number("max_group_crossbars", arch.maxGroupCrossbars, {0, kMaxCrossbarSide});
  if (!error.empty())
    return invalid(name, error);

  // The checks pimsim-nn makes ("XConfig not valid") and the ones pimc needs.
  auto require = [&](bool ok, const llvm::Twine &what) -> llvm::Error {
    return ok ? llvm::Error::success() : invalid(name, what);
  };
  if (auto e = require(arch.coreCount >= 1, "'chip_config.core_cnt' must be at "
                                            "least 1"))
    return std::move(e);
  if (auto e = require(coreSwitchId == arch.globalMemorySwitchId,
                       "'core_config.global_memory_switch_id' differs from "
                       "'chip_config.global_memory_switch_id'"))
    return std::move(e);
  if (auto e = require(arch.globalMemorySwitchId < 0,
                       "the global memory switch id must be negative"))
    return std::move(e);
  if (auto e = require(m.xbarArrayCount >= 1 && m.xbarRows >= 1 &&
                           m.xbarCols >= 1 && m.cellPrecision >= 1,
                       "crossbar count, size and cell precision must be "
                       "positive"))
    return std::move(e);
  if (auto e = require(m.period > 0 && arch.corePeriod > 0 &&
                           arch.localMemory.period > 0 &&
                           arch.globalMemory.period > 0,
                       "periods must be positive"))
    return std::move(e);
  if (auto e = require(m.dacResolution >= 1 && m.dacCount >= 1 && m.adcCount >= 1,
                       "DAC resolution and DAC/ADC counts must be positive"))
    return std::move(e);
  if (auto e = require(arch.vectorWidth >= 1 && arch.busWidth >= 1 &&
                           arch.localMemory.dataWidth >= 1 &&
                           arch.globalMemory.dataWidth >= 1,
                       "vector width, bus width and memory data widths must "
                       "be positive"))
    return std::move(e);
  if (auto e = require(arch.robSize >= 1, "'rob_size' must be at least 1"))
    return std::move(e);
  if (auto e = require(arch.layoutRows > 0 && arch.layoutCols > 0,
                       "'chip_config.network_config.layout' must be two "
                       "positive numbers"))
    return std::move(e);
  if (auto e = require(arch.layoutRows * arch.layoutCols >= arch.coreCount,
                       llvm::formatv("'chip_config.network_config.layout' ({0}x{1}) has "
                                     "room for fewer than the {2} cores of 'core_cnt'",
                                     arch.layoutRows, arch.layoutCols, arch.coreCount)))
    return std::move(e);
  if (auto e = require(arch.inputBits >= 1 && arch.inputBits <= 32 &&
                           arch.outputBits >= 1 && arch.outputBits <= 32 &&
                           arch.weightBits >= 1 &&
                           arch.weightBits <= m.xbarCols * m.cellPrecision,
                       "'pimc' bit widths must be in 1..32 and the weight "
                       "width must fit a crossbar row"))
    return std::move(e);
  if (auto e = require(arch.localMemory.memorySize >= m.xbarRows * 8,
                       "local memory is smaller than one crossbar input"))
    return std::move(e);
  if (auto e = require(!arch.networkFile.empty(),
                       "'chip_config.network_config.net_config_file_path' must "
                       "name the network file"))
    return std::move(e);

  // The network file is copied beside the program: it must be a file of
  // the architecture's own directory, not any file the user can read.
  if (auto e = require(llvm::sys::path::filename(arch.networkFile) == arch.networkFile &&
                           arch.networkFile != "." && arch.networkFile != "..",
                       "'chip_config.network_config.net_config_file_path' must name a "
                       "file in the architecture file's directory, not '" +
                           arch.networkFile + "'"))
    return std::move(e);
  llvm::SmallString<256> networkPath(directory);
  llvm::sys::path::append(networkPath, arch.networkFile);
  std::unique_ptr<llvm::MemoryBuffer> networkBuffer;
  if (!networkText) {
    auto buffer = readNetworkFile(directory, arch.networkFile, arch.coreCount);
    if (!buffer)
      return invalid(name, "cannot read the network file: " +
                               llvm::toString(buffer.takeError()));
    networkBuffer = std::move(*buffer);
    networkText = networkBuffer->getBuffer();
  }
  llvm::Expected<llvm::json::Value> networkJson = parseJsonWithinDepth(*networkText);
  if (!networkJson)
    return invalid(name, "network file '" + networkPath + "' is not valid "
                         "JSON: " + llvm::toString(networkJson.takeError()));
  if (!networkJson->getAsObject())
    return invalid(name, "network file '" + networkPath + "' must be an object");
  if (llvm::Error e = readNetwork(*networkJson->getAsObject(), arch, name, networkPath))
    return std::move(e);
  arch.path = name.str();
  arch.json = text.str();
  arch.networkJson = networkText->str();
  return arch;
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
Arch::readNetworkFile(llvm::StringRef directory, llvm::StringRef networkFile,
                      int64_t coreCount) {
  llvm::SmallString<256> path(directory.empty() ? "." : directory);
  llvm::sys::path::append(path, networkFile);
  llvm::Expected<std::string> realPath = realPathInside(path, directory.empty() ? "." : directory);
  if (!realPath)
    return realPath.takeError();
  // Two tables of (coreCount + 1)^2 entries.
  uint64_t nodes = uint64_t(std::clamp<int64_t>(coreCount, 0, kMaxCores)) + 1;
  return readRegularFile(*realPath, /*requiresNullTerminator=*/true,
                         (uint64_t(1) << 20) + 2 * 256 * nodes * nodes);
}

llvm::Expected<Arch> Arch::load(llvm::StringRef path) {
  auto buffer = readRegularFile(path, /*requiresNullTerminator=*/true, kMaxFileBytes);
  if (!buffer)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot read architecture file '" + path +
                                       "': " + llvm::toString(buffer.takeError()));
  llvm::SmallString<256> directory(path);
  llvm::sys::path::remove_filename(directory);
  if (directory.empty())
    directory = ".";
  return parse((*buffer)->getBuffer(), directory, path);
}

llvm::Expected<Arch> Arch::loadOrDefault(llvm::StringRef path) {
  if (path.empty())
    return builtinDefault();
  return load(path);
}

int64_t Arch::hops(int64_t a, int64_t b) const {
  int64_t cols = std::max<int64_t>(layoutCols, 1);
  return std::abs(a / cols - b / cols) + std::abs(a % cols - b % cols);
}

std::string pimc::meshNetworkJson(int64_t rows, int64_t cols, int64_t globalId) {
  llvm::json::Object latency, energy;
  int64_t cores = rows * cols;
  auto addRow = [&](int64_t from, auto costOf) {
    llvm::json::Object latencyRow, energyRow;
    for (int64_t to = 0; to < cores; ++to) {
      if (to == from)
        continue;
      latencyRow[std::to_string(to)] = costOf(to);
      energyRow[std::to_string(to)] = 46;
    }
    if (from != globalId) {
      latencyRow[std::to_string(globalId)] = 15;
      energyRow[std::to_string(globalId)] = 46;
    }
    latency[std::to_string(from)] = std::move(latencyRow);
    energy[std::to_string(from)] = std::move(energyRow);
  };
  for (int64_t from = 0; from < cores; ++from)
    addRow(from, [&](int64_t to) {
      int64_t hops = std::abs(from / cols - to / cols) +
                     std::abs(from % cols - to % cols);
      return 2 + 2 * hops;
    });
  addRow(globalId, [](int64_t) { return 15; });
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(llvm::json::Object{{"latency", std::move(latency)},
                                             {"energy", std::move(energy)}});
  return text;
}

#include "pimc/Arch/DefaultArch.inc"

llvm::StringRef Arch::builtinDefaultJson() { return kDefaultArchJson; }

const Arch &Arch::builtinDefault() {
  static const Arch arch = [] {
    std::string network = meshNetworkJson(12, 12, -10);
    llvm::Expected<Arch> parsed =
        parse(kDefaultArchJson, "", "built-in chip-144", llvm::StringRef(network));
    if (!parsed)
      llvm::report_fatal_error(parsed.takeError());
    parsed->path.clear();
    return std::move(*parsed);
  }();
  return arch;
}

DenseTiling pimc::denseTiling(const Arch &arch, int64_t patch, int64_t og) {
  int64_t perCrossbar = arch.outputsPerCrossbar();
  int64_t maxCols = arch.groupCrossbarLimit() * perCrossbar;
  int64_t blocks = (og + maxCols - 1) / maxCols;
  int64_t width = ((og + blocks - 1) / blocks + perCrossbar - 1) / perCrossbar * perCrossbar;
  return {(patch + arch.matrix.xbarRows - 1) / arch.matrix.xbarRows,
          (og + width - 1) / width, width, perCrossbar};
}
