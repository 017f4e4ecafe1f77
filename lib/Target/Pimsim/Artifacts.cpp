//===- Artifacts.cpp - the files of a compiled program --------------------===//

#include "pimc/Target/Pimsim/Artifacts.h"
#include "pimc/Support/ExitCodes.h"
#include "pimc/Support/InputLimits.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <set>

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
  // Reserved: growing an array copies its objects (json::Value's move may throw).
  Array coreArray;
  coreArray.reserve(cores.size());
  for (const CoreInfo &core : cores) {
    Array groups;
    groups.reserve(core.groups.size());
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
  return writeOutputFile(join(directory, file), llvm::formatv("{0:2}\n", value).str());
}

/// A fault of the output directory (disk full, unwritable, not a directory):
/// the user's to fix, not a bug in pimc.
static llvm::Error cannotWrite(llvm::StringRef path, std::error_code ec) {
  return makeError(ErrorKind::InvalidInput, "cannot write '" + path + "': " + ec.message());
}

/// Closes `os`; its write error, if any, is returned and cleared (left set,
/// raw_fd_ostream's destructor would abort).
static std::error_code closeStream(llvm::raw_fd_ostream &os) {
  os.close();
  std::error_code ec = os.error();
  os.clear_error();
  return ec;
}

llvm::Error pimc::writeOutputFile(llvm::StringRef path, llvm::StringRef text) {
  std::string temp =
      (path + ".tmp-" + llvm::Twine(llvm::sys::Process::getProcessId())).str();
  std::error_code ec;
  {
    llvm::raw_fd_ostream os(temp, ec, llvm::sys::fs::OF_Text);
    if (!ec) {
      os << text;
      ec = closeStream(os);
    }
  }
  if (!ec)
    ec = llvm::sys::fs::rename(temp, path);
  if (ec) {
    llvm::sys::fs::remove(temp);
    return cannotWrite(path, ec);
  }
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<OutputFile>> OutputFile::create(llvm::StringRef path,
                                                               llvm::sys::fs::OpenFlags flags) {
  std::unique_ptr<OutputFile> file(new OutputFile());
  file->path = path.str();
  std::error_code ec;
  file->stream = std::make_unique<llvm::raw_fd_ostream>(path, ec, flags);
  if (ec) {
    file->closed = true;
    file->stream->clear_error();
    return cannotWrite(path, ec);
  }
  return file;
}

OutputFile::~OutputFile() {
  // Closed on an error path: the error that ended the write is reported.
  if (!closed)
    (void)closeStream(*stream);
}

llvm::Error OutputFile::close() {
  closed = true;
  if (std::error_code ec = closeStream(*stream))
    return cannotWrite(path, ec);
  return llvm::Error::success();
}

bool pimc::isArtifactName(llvm::StringRef name) {
  return llvm::is_contained({kManifestFile, kWeightsFile, kGlobalImageFile,
                             kInstructionConfigFile, kArchFile, kNodesFile, kReportFile,
                             kTraceFile, kHtmlFile, "outputs"},
                            name) ||
         llvm::is_contained(kCsvFiles, name) || name.starts_with("core_") ||
         name.starts_with(".pimc");
}

std::string pimc::join(llvm::StringRef directory, llvm::StringRef file) {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, file);
  return path.str().str();
}

/// The JSON of file `path`, or nothing when it is not a readable object.
static std::optional<llvm::json::Object> readJsonObject(llvm::StringRef path) {
  auto buffer = readRegularFile(path, /*requiresNullTerminator=*/true, kMaxJsonFileBytes);
  if (!buffer) {
    llvm::consumeError(buffer.takeError());
    return std::nullopt;
  }
  llvm::Expected<llvm::json::Value> json = parseJsonWithinDepth((*buffer)->getBuffer());
  if (!json) {
    llvm::consumeError(json.takeError());
    return std::nullopt;
  }
  if (llvm::json::Object *object = json->getAsObject())
    return std::move(*object);
  return std::nullopt;
}

/// The files of `directory` that an earlier pimc compile wrote: those its
/// manifest lists (for manifests from before the list, the files of its
/// programs and its architecture).
static std::set<std::string> filesOfEarlierCompile(llvm::StringRef directory) {
  std::set<std::string> files;
  std::optional<llvm::json::Object> manifest = readJsonObject(join(directory, kManifestFile));
  if (!manifest || manifest->getString("format") != llvm::StringRef("pimc-artifacts"))
    return files;
  // Names only: a manifest cannot make pimc remove a file elsewhere.
  auto add = [&](llvm::StringRef name) {
    if (!name.empty() && llvm::sys::path::filename(name) == name && name != "." &&
        name != "..")
      files.insert(name.str());
  };
  if (const Array *listed = manifest->getArray("files")) {
    for (const llvm::json::Value &name : *listed)
      if (std::optional<llvm::StringRef> text = name.getAsString())
        add(*text);
    return files;
  }
  for (const char *name : {kManifestFile, kWeightsFile, kGlobalImageFile,
                           kInstructionConfigFile, kArchFile, kNodesFile, kReportFile,
                           kTraceFile, kHtmlFile})
    add(name);
  for (const char *name : kCsvFiles)
    add(name);
  int64_t cores = std::clamp<int64_t>(manifest->getInteger("core_count").value_or(0), 0, 4096);
  for (int64_t id = 0; id < cores; ++id) {
    add(llvm::formatv("core_{0}.pim", id).str());
    add(llvm::formatv("core_{0}.json", id).str());
  }
  if (std::optional<llvm::json::Object> arch = readJsonObject(join(directory, kArchFile)))
    if (const Object *chip = arch->getObject("chip_config"))
      if (const Object *network = chip->getObject("network_config"))
        if (std::optional<llvm::StringRef> name = network->getString("net_config_file_path"))
          add(*name);
  return files;
}

/// Takes the lock of `directory` into `fd`: one pimc at a time writes into
/// a program directory.
static llvm::Error lockDirectory(llvm::StringRef directory, int &fd) {
  std::string lock = join(directory, kLockFile);
  if (std::error_code ec = llvm::sys::fs::openFileForWrite(
          lock, fd, llvm::sys::fs::CD_OpenAlways, llvm::sys::fs::OF_None)) {
    fd = -1;
    return cannotWrite(lock, ec);
  }
  if (llvm::sys::fs::tryLockFile(fd)) {
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    fd = -1;
    return makeError(ErrorKind::InvalidInput,
                                   "another pimc compile is writing into '" + directory +
                                       "' (it holds '" + lock + "')");
  }
  return llvm::Error::success();
}

static void unlockDirectory(int fd) {
  llvm::sys::fs::unlockFile(fd);
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
}

llvm::Error pimc::writeProgramViews(llvm::StringRef directory,
                                    llvm::ArrayRef<std::string> names,
                                    llvm::function_ref<llvm::Error()> write) {
  int lockFd;
  if (llvm::Error e = lockDirectory(directory, lockFd))
    return e;
  auto unlock = llvm::make_scope_exit([&] { unlockDirectory(lockFd); });
  std::set<std::string> earlier = filesOfEarlierCompile(directory);
  for (const std::string &name : names) {
    std::string target = join(directory, name);
    llvm::sys::fs::file_status status;
    if (!llvm::sys::fs::status(target, status, /*Follow=*/false) && !earlier.count(name))
      return makeError(
          ErrorKind::InvalidInput,
          "'" + target + "' exists and is not a file pimc wrote (its manifest.json does not "
                         "list it): pimc replaces only its own files; move it");
  }
  // Listed before they are written, so that a view written only in part is
  // listed too. A manifest from before the list names the views already.
  std::string manifestPath = join(directory, kManifestFile);
  std::optional<llvm::json::Object> manifest = readJsonObject(manifestPath);
  if (manifest && manifest->getString("format") == llvm::StringRef("pimc-artifacts"))
    if (Array *files = manifest->getArray("files")) {
      bool added = false;
      for (const std::string &name : names)
        if (!llvm::is_contained(*files, llvm::json::Value(name))) {
          files->push_back(name);
          added = true;
        }
      if (added)
        if (llvm::Error e = writeOutputFile(
                manifestPath,
                llvm::formatv("{0:2}\n", llvm::json::Value(std::move(*manifest))).str()))
          return e;
    }
  return write();
}

llvm::Expected<std::unique_ptr<OutputDirectory>>
OutputDirectory::open(llvm::StringRef directory) {
  std::unique_ptr<OutputDirectory> out(new OutputDirectory());
  out->path = directory.str();
  if (std::error_code ec = llvm::sys::fs::create_directories(directory))
    return makeError(ErrorKind::InvalidInput,
                     "cannot create '" + directory + "': " + ec.message());
  if (!llvm::sys::fs::is_directory(directory))
    return makeError(ErrorKind::InvalidInput,
                                   "'" + directory + "' is not a directory");
  if (llvm::Error e = lockDirectory(directory, out->lockFd))
    return std::move(e);
  // The directories of earlier runs that were killed (none runs: the lock
  // is ours).
  std::error_code listed;
  for (llvm::sys::fs::directory_iterator it(directory, listed), end; it != end && !listed;
       it.increment(listed))
    if (llvm::sys::path::filename(it->path()).starts_with(kRunDirectoryPrefix) &&
        it->type() == llvm::sys::fs::file_type::directory_file)
      llvm::sys::fs::remove_directories(it->path());
  out->stagingPath =
      join(directory, (kRunDirectoryPrefix + llvm::Twine(llvm::sys::Process::getProcessId()))
                          .str());
  if (std::error_code ec = llvm::sys::fs::create_directory(out->stagingPath))
    return llvm::createStringError(ec, "cannot create '" + out->stagingPath +
                                           "': " + ec.message());
  return out;
}

OutputDirectory::~OutputDirectory() {
  if (!stagingPath.empty())
    llvm::sys::fs::remove_directories(stagingPath);
  if (lockFd >= 0)
    unlockDirectory(lockFd);
}

llvm::Error OutputDirectory::commit() {
  std::vector<std::string> names;
  std::error_code listed;
  for (llvm::sys::fs::directory_iterator it(stagingPath, listed), end; it != end && !listed;
       it.increment(listed))
    if (it->type() == llvm::sys::fs::file_type::regular_file)
      names.push_back(llvm::sys::path::filename(it->path()).str());
  if (listed)
    return llvm::createStringError(listed, "cannot list '" + stagingPath + "'");
  llvm::sort(names);
  std::set<std::string> fresh(names.begin(), names.end());
  // The manifest lists the files, for the next compile into the directory.
  std::string manifestPath = join(stagingPath, kManifestFile);
  if (std::optional<llvm::json::Object> manifest = readJsonObject(manifestPath)) {
    Array files;
    for (const std::string &name : names)
      files.push_back(name);
    (*manifest)["files"] = std::move(files);
    if (llvm::Error e = writeOutputFile(manifestPath,
                                        llvm::formatv("{0:2}\n", llvm::json::Value(
                                                                      std::move(*manifest)))
                                            .str()))
      return e;
  }
  std::set<std::string> earlier = filesOfEarlierCompile(path);
  for (const std::string &name : names) {
    std::string target = join(path, name);
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(target, status, /*Follow=*/false))
      continue; // not there
    if (!earlier.count(name) || status.type() == llvm::sys::fs::file_type::directory_file)
      return makeError(
          ErrorKind::InvalidInput,
          "'" + target + "' exists and is not a file of an earlier pimc compile (its "
                         "manifest.json does not list it): pimc replaces only its own files; "
                         "move it or choose another output directory");
  }
  // report.json goes first and comes back last: a directory without one is
  // never taken for a complete program.
  auto remove = [&](const std::string &name) -> llvm::Error {
    std::string target = join(path, name);
    std::error_code ec = llvm::sys::fs::remove(target, /*IgnoreNonExisting=*/true);
    if (ec)
      return llvm::createStringError(ec, "cannot remove '" + target + "': " + ec.message());
    return llvm::Error::success();
  };
  if (earlier.count(kReportFile))
    if (llvm::Error e = remove(kReportFile))
      return e;
  for (const std::string &name : earlier)
    if (!fresh.count(name))
      if (llvm::Error e = remove(name))
        return e;
  auto move = [&](const std::string &name) -> llvm::Error {
    std::string from = join(stagingPath, name), to = join(path, name);
    if (std::error_code ec = llvm::sys::fs::rename(from, to))
      return llvm::createStringError(ec, "cannot move '" + from + "' to '" + to +
                                             "': " + ec.message());
    return llvm::Error::success();
  };
  for (const std::string &name : names)
    if (name != kReportFile)
      if (llvm::Error e = move(name))
        return e;
  if (fresh.count(kReportFile))
    if (llvm::Error e = move(kReportFile))
      return e;
  // Programs pimc did not write stay, but pimsim-nn loads every core_<id>.
  for (llvm::sys::fs::directory_iterator it(path, listed), end; it != end && !listed;
       it.increment(listed)) {
    std::string name = llvm::sys::path::filename(it->path()).str();
    if (llvm::StringRef(name).starts_with("core_") && !fresh.count(name))
      llvm::errs() << "pimc: warning: '" << it->path()
                   << "' is not a file of this compile (pimc leaves it; pimsim-nn and pimc "
                      "simulate read every core_<id> file of the directory)\n";
  }
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
  /// The integer `key` of `o`, from 0 to `max` (what pimc writes is
  /// within these; larger values would size allocations).
  int64_t get(const Object &o, llvm::StringRef key, int64_t max = int64_t(1) << 40) {
    std::optional<int64_t> v = o.getInteger(key);
    if (!v && error.empty())
      error = "'" + file + "': missing integer '" + key.str() + "'";
    if (v && (*v < 0 || *v > max) && error.empty())
      error = llvm::formatv("'{0}': '{1}' is {2}, outside 0..{3}", file, key, *v, max);
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
    if (!boundedProduct(t.shape)) {
      reader.error = llvm::formatv("'{0}': '{1}' '{2}' has a shape of negative or more "
                                   "than {3} elements",
                                   reader.file, key, t.name, kMaxTensorElements);
      return false;
    }
    out.push_back(std::move(t));
  }
  return true;
}

llvm::Expected<Manifest> Manifest::read(llvm::StringRef directory) {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, kManifestFile);
  auto buffer = readRegularFile(path, /*requiresNullTerminator=*/true, kMaxJsonFileBytes);
  if (!buffer)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   llvm::toString(buffer.takeError()) + " (is '" + directory +
                                       "' a pimc output directory?)");
  llvm::Expected<llvm::json::Value> json = parseJsonWithinDepth((*buffer)->getBuffer());
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
  // The bounds are the architecture file's (lib/Arch/Arch.cpp).
  Manifest m;
  m.coreCount = reader.get(*root, "core_count", 4096);
  m.elementBytes = reader.get(*root, "element_bytes", 8);
  m.inputBits = reader.get(*root, "input_bits", 64);
  m.outputBits = reader.get(*root, "output_bits", 64);
  m.weightBits = reader.get(*root, "weight_bits", 64);
  m.xbarRows = reader.get(*root, "xbar_rows", 4096);
  m.xbarCols = reader.get(*root, "xbar_cols", 4096);
  m.outputsPerCrossbar = reader.get(*root, "outputs_per_crossbar", 4096 * 64);
  m.crossbarsPerCore = reader.get(*root, "crossbars_per_core", 4096);
  m.localMemoryBytes = reader.get(*root, "local_memory_bytes", int64_t(1) << 30);
  m.globalMemoryBytes = reader.get(*root, "global_memory_bytes");
  m.globalImageElements = reader.get(*root, "global_image_elements", kMaxTensorElements);
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
  // pimc lays out global memory as the image and then each input and
  // output, 16-byte aligned: no more is ever needed (a program written by
  // hand may round up to a MiB), and every tensor lies inside it.
  auto aligned = [](int64_t bytes) { return (bytes + 15) / 16 * 16; };
  int64_t layoutBytes = aligned(m.globalImageElements * m.elementBytes);
  for (const std::vector<TensorLocation> *list : {&m.inputs, &m.outputs})
    for (const TensorLocation &t : *list)
      layoutBytes += aligned(t.numElements() * m.elementBytes);
  // Each tensor is bounded; so is their sum, which the simulator allocates.
  constexpr int64_t kMaxGlobalBytes = int64_t(1) << 32;
  if (layoutBytes > kMaxGlobalBytes)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("'{0}': the global image, inputs and outputs take {1} bytes, more than "
                      "{2}",
                      path, layoutBytes, kMaxGlobalBytes));
  if (m.globalMemoryBytes > std::max<int64_t>(layoutBytes, 1 << 20))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("'{0}': 'global_memory_bytes' is {1}, more than the {2} bytes of the "
                      "global image, inputs and outputs it lists",
                      path, m.globalMemoryBytes, layoutBytes));
  for (const std::vector<TensorLocation> *list : {&m.inputs, &m.outputs})
    for (const TensorLocation &t : *list)
      if (t.address % m.elementBytes ||
          t.address > m.globalMemoryBytes - t.numElements() * m.elementBytes)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            llvm::formatv("'{0}': '{1}' at address {2} ({3} elements of {4} bytes) does not "
                          "fit the {5}-byte global memory",
                          path, t.name, t.address, t.numElements(), m.elementBytes,
                          m.globalMemoryBytes));
  return m;
}
