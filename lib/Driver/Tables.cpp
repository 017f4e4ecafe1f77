//===- Tables.cpp - the report as CSV tables ------------------------------===//
//
// layers.csv, cores.csv and stages.csv: one row per model node, core and
// compile stage, with the columns docs/report.md describes. Columns are
// report.json's keys, so a value reads the same in both.
//
//===----------------------------------------------------------------------===//

#include "pimc/Driver/Views.h"
#include "pimc/Target/Pimsim/Artifacts.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace pimc;
using llvm::json::Array;
using llvm::json::Object;

/// A CSV field: quoted when it holds a separator, a quote or a line break.
static std::string field(const llvm::json::Value *value) {
  if (!value)
    return "";
  if (auto text = value->getAsString()) {
    if (text->find_first_of(",\"\n") == llvm::StringRef::npos)
      return text->str();
    std::string quoted = "\"";
    for (char c : *text)
      quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
  }
  if (auto integer = value->getAsInteger())
    return std::to_string(*integer);
  if (auto number = value->getAsNumber())
    return llvm::formatv("{0}", *number).str();
  return "";
}

/// Writes `rows` of objects as `directory`/`file` with `columns`; a column
/// a row lacks is empty.
static llvm::Error writeCsv(llvm::StringRef directory, llvm::StringRef file,
                            llvm::ArrayRef<llvm::StringRef> columns,
                            llvm::ArrayRef<std::vector<const Object *>> rows) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::join(columns, ",") << "\n";
  for (const std::vector<const Object *> &sources : rows) {
    llvm::ListSeparator separator(",");
    for (llvm::StringRef column : columns) {
      const llvm::json::Value *value = nullptr;
      for (const Object *source : sources)
        if (source && !value)
          value = source->get(column);
      os << separator << field(value);
    }
    os << "\n";
  }
  return writeOutputFile(join(directory, file), text);
}

static std::vector<std::vector<const Object *>> rowsOf(const Array *array) {
  std::vector<std::vector<const Object *>> rows;
  if (array)
    for (const llvm::json::Value &v : *array)
      if (const Object *o = v.getAsObject())
        rows.push_back({o});
  return rows;
}

llvm::Error pimc::writeCsvTables(const Object &report, llvm::StringRef directory) {
  const Object *timing = report.getObject("timing");
  const Array *nodes = timing ? timing->getArray("nodes") : nullptr;
  if (llvm::Error e = writeCsv(directory, "layers.csv",
                               {"node", "start_ns", "end_ns", "busy_ns", "wait_ns", "cores",
                                "crossbars", "crossbar_reads", "energy_pj", "crossbar_pj",
                                "vector_pj", "memory_pj", "noc_pj"},
                               rowsOf(nodes)))
    return e;

  // A core's code (report.cores) beside its replayed time (timing.cores,
  // which lists the cores that run instructions).
  std::map<int64_t, const Object *> replayed;
  if (const Array *cores = timing ? timing->getArray("cores") : nullptr)
    for (const llvm::json::Value &v : *cores)
      if (const Object *c = v.getAsObject())
        replayed[c->getInteger("id").value_or(-1)] = c;
  std::vector<std::vector<const Object *>> coreRows = rowsOf(report.getArray("cores"));
  for (std::vector<const Object *> &row : coreRows) {
    auto it = replayed.find(row.front()->getInteger("id").value_or(-1));
    row.push_back(it == replayed.end() ? nullptr : it->second);
  }
  if (llvm::Error e = writeCsv(
          directory, "cores.csv",
          {"id", "instructions", "mvm", "vector", "scalar", "setbw", "send", "send_bytes",
           "recv", "recv_bytes", "load", "load_bytes", "store", "store_bytes", "copies",
           "copy_bytes", "groups", "crossbars", "memory_bytes", "finish_ns", "compute_ns",
           "transfer_ns", "send_wait_ns", "recv_wait_ns", "memory_wait_ns", "event_wait_ns",
           "node"},
          coreRows))
    return e;

  const Object *compiler = report.getObject("compiler");
  return writeCsv(directory, "stages.csv", {"name", "seconds", "ops", "values", "peak_rss_bytes"},
                  rowsOf(compiler ? compiler->getArray("stages") : nullptr));
}
