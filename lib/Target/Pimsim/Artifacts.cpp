//===- Artifacts.cpp - the files of a compiled program --------------------===//

#include "pimc/Target/Pimsim/Artifacts.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace pimc;
using llvm::json::Array;
using llvm::json::Object;

int64_t TensorLocation::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

static Array locations(const std::vector<TensorLocation> &list) {
  Array array;
  for (const TensorLocation &t : list) {
    Array shape;
    for (int64_t d : t.shape)
      shape.push_back(d);
    array.push_back(Object{{"name", t.name},
                           {"index", t.index},
                           {"shape", std::move(shape)},
                           {"address", t.address}});
  }
  return array;
}

llvm::Error Manifest::write(llvm::StringRef directory) const {
  Array coreArray;
  for (const CoreInfo &core : cores) {
    Array groups;
    for (const ArrayGroupInfo &g : core.groups)
      groups.push_back(Object{{"crossbars", g.crossbars},
                              {"rows", g.rows},
                              {"cols", g.cols},
                              {"weights_offset", (int64_t)g.weightsOffset}});
    coreArray.push_back(Object{{"id", core.id}, {"groups", std::move(groups)}});
  }
  Object root{{"format", "pimc-artifacts"},
              {"version", kVersion},
              {"core_count", coreCount},
              {"element_bytes", elementBytes},
              {"input_bits", inputBits},
              {"output_bits", outputBits},
              {"weight_bits", weightBits},
              {"xbar_rows", xbarRows},
              {"xbar_cols", xbarCols},
              {"outputs_per_crossbar", outputsPerCrossbar},
              {"crossbars_per_core", crossbarsPerCore},
              {"local_memory_bytes", localMemoryBytes},
              {"global_memory_bytes", globalMemoryBytes},
              {"global_image_elements", globalImageElements},
              {"weights_file", kWeightsFile},
              {"global_image_file", kGlobalImageFile},
              {"cores", std::move(coreArray)},
              {"inputs", locations(inputs)},
              {"outputs", locations(outputs)}};
  return writeJsonFile(directory, kManifestFile, std::move(root));
}

llvm::Error pimc::writeJsonFile(llvm::StringRef directory, llvm::StringRef file,
                                const llvm::json::Value &value) {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, file);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return llvm::createStringError(ec, "cannot write '" + path + "'");
  os << llvm::formatv("{0:2}", value) << "\n";
  return llvm::Error::success();
}

llvm::Error pimc::removePrograms(llvm::StringRef directory) {
  // pimsim-nn and pimc read every core_<id> file of a directory.
  std::error_code listed;
  for (llvm::sys::fs::directory_iterator it(directory, listed), end; it != end && !listed;
       it.increment(listed)) {
    llvm::StringRef id = llvm::sys::path::filename(it->path());
    if (id.consume_front("core_") && (id.consume_back(".pim") || id.consume_back(".json")) &&
        !id.empty() && llvm::all_of(id, llvm::isDigit))
      if (std::error_code removed = llvm::sys::fs::remove(it->path()))
        return llvm::createStringError(removed, "cannot remove '" + it->path() + "'");
  }
  if (listed)
    return llvm::createStringError(listed, "cannot list '" + directory + "'");
  return llvm::Error::success();
}

llvm::Error pimc::moveArtifacts(llvm::StringRef from, llvm::StringRef to) {
  if (llvm::Error e = removePrograms(to))
    return e;
  std::error_code listed;
  for (llvm::sys::fs::directory_iterator it(from, listed), end; it != end && !listed;
       it.increment(listed)) {
    llvm::SmallString<256> target(to);
    llvm::sys::path::append(target, llvm::sys::path::filename(it->path()));
    if (std::error_code ec = llvm::sys::fs::rename(it->path(), target))
      return llvm::createStringError(ec, "cannot move '" + it->path() + "' to '" + target +
                                             "'");
  }
  if (listed)
    return llvm::createStringError(listed, "cannot list '" + from + "'");
  if (std::error_code ec = llvm::sys::fs::remove(from))
    return llvm::createStringError(ec, "cannot remove '" + from + "'");
  return llvm::Error::success();
}


namespace {
struct Reader {
  std::string file;
  std::string error;
  int64_t get(const Object &o, llvm::StringRef key) {
    std::optional<int64_t> v = o.getInteger(key);
    if (!v && error.empty())
      error = "'" + file + "': missing integer '" + key.str() + "'";
    return v.value_or(0);
  }
};
} // namespace

static bool readLocations(const Object &root, llvm::StringRef key, Reader &reader,
                          std::vector<TensorLocation> &out) {
  const Array *array = root.getArray(key);
  if (!array) {
    reader.error = "'" + reader.file + "': missing '" + key.str() + "'";
    return false;
  }
  for (const llvm::json::Value &v : *array) {
    const Object *o = v.getAsObject();
    if (!o) {
      reader.error = "'" + reader.file + "': bad entry in '" + key.str() + "'";
      return false;
    }
    TensorLocation t;
    t.name = o->getString("name").value_or("").str();
    t.index = reader.get(*o, "index");
    t.address = reader.get(*o, "address");
    if (const Array *shape = o->getArray("shape"))
      for (const llvm::json::Value &d : *shape)
        t.shape.push_back(d.getAsInteger().value_or(-1));
    out.push_back(std::move(t));
  }
  return true;
}

llvm::Expected<Manifest> Manifest::read(llvm::StringRef directory) {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, kManifestFile);
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read '" + path + "' (is '" +
                                       directory + "' a pimc output directory?)");
  llvm::Expected<llvm::json::Value> json = llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'" + path + "' is not valid JSON: " +
                                       llvm::toString(json.takeError()));
  const Object *root = json->getAsObject();
  Reader reader{path.str().str(), ""};
  if (!root || root->getString("format") != llvm::StringRef("pimc-artifacts"))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'" + path + "' is not a pimc manifest");
  if (reader.get(*root, "version") != kVersion)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'" + path + "' has an unknown version");
  Manifest m;
  m.coreCount = reader.get(*root, "core_count");
  m.elementBytes = reader.get(*root, "element_bytes");
  m.inputBits = reader.get(*root, "input_bits");
  m.outputBits = reader.get(*root, "output_bits");
  m.weightBits = reader.get(*root, "weight_bits");
  m.xbarRows = reader.get(*root, "xbar_rows");
  m.xbarCols = reader.get(*root, "xbar_cols");
  m.outputsPerCrossbar = reader.get(*root, "outputs_per_crossbar");
  m.crossbarsPerCore = reader.get(*root, "crossbars_per_core");
  m.localMemoryBytes = reader.get(*root, "local_memory_bytes");
  m.globalMemoryBytes = reader.get(*root, "global_memory_bytes");
  m.globalImageElements = reader.get(*root, "global_image_elements");
  if (const Array *cores = root->getArray("cores")) {
    for (const llvm::json::Value &v : *cores) {
      const Object *o = v.getAsObject();
      if (!o)
        continue;
      CoreInfo core;
      core.id = reader.get(*o, "id");
      if (const Array *groups = o->getArray("groups"))
        for (const llvm::json::Value &g : *groups)
          if (const Object *go = g.getAsObject())
            core.groups.push_back({reader.get(*go, "crossbars"),
                                   reader.get(*go, "rows"), reader.get(*go, "cols"),
                                   (uint64_t)reader.get(*go, "weights_offset")});
      m.cores.push_back(std::move(core));
    }
  }
  readLocations(*root, "inputs", reader, m.inputs);
  readLocations(*root, "outputs", reader, m.outputs);
  if (!reader.error.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), reader.error);
  if (m.elementBytes < 1 || m.coreCount < 0 ||
      (int64_t)m.cores.size() != m.coreCount)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'" + path + "' is inconsistent: it lists " +
                                       llvm::Twine(m.cores.size()) +
                                       " cores for a core count of " +
                                       llvm::Twine(m.coreCount));
  return m;
}
