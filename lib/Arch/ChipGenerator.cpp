//===- ChipGenerator.cpp - architecture files from a few parameters -------===//

#include "pimc/Arch/ChipGenerator.h"
#include "pimc/Arch/Arch.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace pimc;
using llvm::json::Object;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The object at `key` of `parent`, made empty when missing (pimsim-nn
/// gives every missing key its default).
static Object &child(Object &parent, llvm::StringRef key) {
  if (!parent.getObject(key))
    parent[key] = Object{};
  return *parent.getObject(key);
}

static int64_t numberOr(const Object &object, llvm::StringRef key, int64_t fallback) {
  std::optional<double> value = object.getNumber(key);
  return value ? static_cast<int64_t>(*value) : fallback;
}

/// The squarest mesh of `cores` nodes: rows <= cols, rows * cols == cores.
static std::pair<int64_t, int64_t> squarestMesh(int64_t cores) {
  int64_t rows = 1;
  for (int64_t r = 1; r * r <= cores; ++r)
    if (cores % r == 0)
      rows = r;
  return {rows, cores / rows};
}

/// Applies the mesh and core count; returns the mesh.
static llvm::Expected<std::pair<int64_t, int64_t>>
applyMesh(Object &chip, const ChipParameters &p) {
  Object &network = child(chip, "network_config");
  std::pair<int64_t, int64_t> mesh;
  if (p.meshRows) {
    mesh = {*p.meshRows, *p.meshCols};
    if (mesh.first < 1 || mesh.second < 1)
      return fail("the mesh must have at least one row and one column");
    if (p.cores && *p.cores != mesh.first * mesh.second)
      return fail(llvm::formatv("{0} cores do not fill a {1}x{2} mesh", *p.cores,
                                mesh.first, mesh.second));
  } else if (p.cores) {
    if (*p.cores < 1)
      return fail("a chip has at least one core");
    mesh = squarestMesh(*p.cores);
  } else {
    const llvm::json::Array *layout = network.getArray("layout");
    if (!layout || layout->size() != 2 || !(*layout)[0].getAsInteger() ||
        !(*layout)[1].getAsInteger())
      return fail("the reference has no 'chip_config.network_config.layout' [rows, cols]");
    mesh = {*(*layout)[0].getAsInteger(), *(*layout)[1].getAsInteger()};
  }
  chip["core_cnt"] = mesh.first * mesh.second;
  network["layout"] = llvm::json::Array{mesh.first, mesh.second};
  network["bus_topology"] = "mesh";
  return mesh;
}

/// Applies the crossbars' count, size and cell bits to matrix_config.
static llvm::Error applyCrossbars(Object &matrix, const ChipParameters &p) {
  if (p.crossbars)
    matrix["xbar_array_count"] = *p.crossbars;
  if (p.cellBits)
    matrix["cell_precision"] = *p.cellBits;
  if (!p.crossbarRows)
    return llvm::Error::success();
  int64_t rows = 128, cols = 128; // pimsim-nn's default size
  if (const llvm::json::Array *size = matrix.getArray("xbar_size"))
    if (size->size() == 2 && (*size)[0].getAsInteger() && (*size)[1].getAsInteger()) {
      rows = *(*size)[0].getAsInteger();
      cols = *(*size)[1].getAsInteger();
    }
  if (*p.crossbarRows < 1 || *p.crossbarCols < 1)
    return fail("a crossbar has at least one row and one column");
  // pimsim-nn counts floor(rows / dac_count) DAC rounds and floor(cols /
  // adc_count) ADC rounds per MVM: keeping the reference's converters per
  // row and per column keeps an MVM's time, and never makes a round zero.
  auto scaled = [](int64_t count, int64_t newSize, int64_t oldSize) {
    return std::max<int64_t>(1, count * newSize / oldSize);
  };
  matrix["dac_count"] = scaled(numberOr(matrix, "dac_count", 128), *p.crossbarRows, rows);
  matrix["adc_count"] = scaled(numberOr(matrix, "adc_count", 1), *p.crossbarCols, cols);
  matrix["xbar_size"] = llvm::json::Array{*p.crossbarRows, *p.crossbarCols};
  return llvm::Error::success();
}

llvm::Expected<GeneratedChip> pimc::generateChip(llvm::StringRef referenceJson,
                                                 llvm::StringRef referenceName,
                                                 const ChipParameters &p) {
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(referenceJson);
  if (!json)
    return fail("reference architecture '" + referenceName +
                "' is not valid JSON: " + llvm::toString(json.takeError()));
  Object *root = json->getAsObject();
  if (!root || !root->getObject("chip_config"))
    return fail("reference architecture '" + referenceName + "' has no 'chip_config'");
  Object &chip = *root->getObject("chip_config");
  llvm::Expected<std::pair<int64_t, int64_t>> mesh = applyMesh(chip, p);
  if (!mesh)
    return mesh.takeError();
  Object &core = child(chip, "core_config");
  if (llvm::Error e = applyCrossbars(child(core, "matrix_config"), p))
    return std::move(e);
  if (p.localMemoryBytes)
    child(core, "local_memory_config")["memory_size"] = *p.localMemoryBytes;
  Object &knobs = child(*root, "pimc");
  for (auto [value, key] : {std::pair{p.inputBits, "input_bits"},
                            {p.outputBits, "output_bits"},
                            {p.weightBits, "weight_bits"}})
    if (value)
      knobs[key] = *value;
  if (knobs.empty())
    root->erase("pimc");
  if (p.throughput)
    child(*root, "sim_config")["sim_mode"] = *p.throughput ? 0 : 1;

  GeneratedChip generated;
  generated.networkName = llvm::formatv("network_mesh_{0}x{1}.json", mesh->first,
                                        mesh->second);
  child(chip, "network_config")["net_config_file_path"] = generated.networkName;
  int64_t globalId = numberOr(chip, "global_memory_switch_id", -10);
  generated.networkJson = meshNetworkJson(mesh->first, mesh->second, globalId);
  generated.archJson = llvm::formatv("{0:1}\n", *json).str();
  // What pimc cannot load, pimsim-nn would reject or pimc could not target.
  llvm::Expected<Arch> check = Arch::parse(generated.archJson, "", "generated chip",
                                           llvm::StringRef(generated.networkJson));
  if (!check)
    return check.takeError();
  return generated;
}

static llvm::Error writeText(const llvm::Twine &path, llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path.str(), ec, llvm::sys::fs::OF_Text);
  if (ec)
    return llvm::createStringError(ec, "cannot write '" + path + "': " + ec.message());
  os << text;
  os.close();
  // Cleared once read: raw_fd_ostream's destructor aborts on an error left set.
  ec = os.error();
  os.clear_error();
  if (ec)
    return llvm::createStringError(ec, "cannot write '" + path + "': " + ec.message());
  return llvm::Error::success();
}

llvm::Error pimc::writeChip(const GeneratedChip &chip, llvm::StringRef archPath) {
  llvm::SmallString<256> directory(llvm::sys::path::parent_path(archPath));
  if (!directory.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(directory))
      return llvm::createStringError(ec, "cannot create '" + directory + "': " +
                                             ec.message());
  llvm::SmallString<256> networkPath(directory);
  llvm::sys::path::append(networkPath, chip.networkName);
  if (llvm::Error e = writeText(networkPath, chip.networkJson))
    return e;
  return writeText(archPath, chip.archJson);
}

std::optional<std::pair<int64_t, int64_t>> pimc::parseShape(llvm::StringRef text) {
  auto [first, second] = text.split('x');
  int64_t rows, cols;
  if (first.getAsInteger(10, rows) || rows < 1)
    return std::nullopt;
  if (second.empty() && !text.contains('x'))
    return std::pair{rows, rows};
  if (second.getAsInteger(10, cols) || cols < 1)
    return std::nullopt;
  return std::pair{rows, cols};
}

std::optional<int64_t> pimc::parseBytes(llvm::StringRef text) {
  int64_t scale = 1;
  for (auto [suffix, factor] : {std::pair{"KiB", 1024}, {"K", 1024},
                                {"MiB", 1024 * 1024}, {"M", 1024 * 1024}})
    if (text.consume_back(suffix)) {
      scale = factor;
      break;
    }
  int64_t count;
  if (text.getAsInteger(10, count) || count < 1)
    return std::nullopt;
  return count * scale;
}
