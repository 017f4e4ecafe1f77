//===- Report.cpp - the report as text, and the stop rule -----------------===//

#include "pimc/Driver/Driver.h"
#include "pimc/Support/InputLimits.h"
#include "pimc/Target/Pimsim/Artifacts.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <cmath>

using namespace pimc;
using llvm::json::Object;

llvm::Expected<Object> pimc::readReport(llvm::StringRef outputDir) {
  llvm::SmallString<256> path(outputDir);
  if (!llvm::StringRef(path).ends_with(".json"))
    llvm::sys::path::append(path, kReportFile);
  auto buffer = readRegularFile(path, /*requiresNullTerminator=*/true, kMaxJsonFileBytes);
  if (!buffer)
    return buffer.takeError();
  llvm::Expected<llvm::json::Value> json = parseJsonWithinDepth((*buffer)->getBuffer());
  if (!json)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'" + path + "' is not valid JSON: " +
                                       llvm::toString(json.takeError()));
  if (!json->getAsObject())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'" + path + "' is not a report");
  return std::move(*json->getAsObject());
}

static double number(const Object &o, llvm::StringRef section, llvm::StringRef key) {
  const Object *inner = o.getObject(section);
  if (!inner)
    return 0;
  return inner->getNumber(key).value_or(0);
}

static int64_t count(const Object &o, llvm::StringRef section, llvm::StringRef key) {
  return static_cast<int64_t>(number(o, section, key));
}

/// `value` in the first of `units` (largest first, as (size, name)) that it
/// is at least one of, or in the last.
static std::string withUnit(double value,
                            llvm::ArrayRef<std::pair<double, const char *>> units) {
  for (auto [size, name] : units.drop_back())
    if (std::fabs(value) >= size)
      return llvm::formatv("{0:f3} {1}", value / size, name).str();
  return llvm::formatv("{0:f1} {1}", value, units.back().second).str();
}

std::string pimc::formatTime(double ns) {
  return withUnit(ns, {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}});
}

std::string pimc::formatEnergy(double pj) {
  return withUnit(pj, {{1e12, "J"}, {1e9, "mJ"}, {1e6, "µJ"}, {1e3, "nJ"}, {1, "pJ"}});
}

/// The unit of a table's time column whose largest entry is `maxNs`: its
/// name and how many ns it is.
static std::pair<const char *, double> timeUnit(double maxNs) {
  if (maxNs >= 1e9)
    return {"s", 1e9};
  if (maxNs >= 1e6)
    return {"ms", 1e6};
  if (maxNs >= 1e3)
    return {"µs", 1e3};
  return {"ns", 1};
}

static std::string bytes(double value) {
  if (value >= 1 << 20)
    return llvm::formatv("{0:f2} MiB", value / (1 << 20)).str();
  if (value >= 1 << 10)
    return llvm::formatv("{0:f1} KiB", value / (1 << 10)).str();
  return llvm::formatv("{0} B", (int64_t)value).str();
}

/// pimsim-nn's own figures, when the user gave its log; else how to get
/// them: those are the ones to cite.
static void printPimsim(const Object &r, llvm::raw_ostream &os) {
  const Object *p = r.getObject("pimsim");
  if (!p) {
    os << "  (to cite: run pimsim-nn on this directory, ChipTest OUT OUT/arch.json, and give "
          "its output to pimc report OUT --pimsim-log LOG)\n";
    return;
  }
  os << "pimsim-nn        ";
  if (auto latency = p->getNumber("latency_ns"))
    os << formatTime(*latency);
  if (auto throughput = p->getNumber("throughput_samples_per_s"))
    os << llvm::formatv("{0:f1} samples/s", *throughput);
  if (auto energy = p->getNumber("energy_pj"))
    os << ", " << formatEnergy(*energy)
       << (p->getNumber("throughput_samples_per_s") ? " per sample" : "");
  os << " (pimsim-nn's own figures, from " << p->getString("log").value_or("?")
     << ": the ones to cite)\n";
}

/// The latency bound (docs/bound.md) and how far the program is from it.
static void printBound(const Object &t, llvm::raw_ostream &os) {
  const Object *b = t.getObject("bound");
  if (!b)
    return;
  double bound = number(t, "bound", "latency_ns"), latency = t.getNumber("latency_ns").value_or(0);
  os << llvm::formatv("bound            {0}: no run of these programs is faster; the latency is "
                      "{1:f2}x it\n",
                      formatTime(bound), bound > 0 ? latency / bound : 0);
  os << llvm::formatv("  (as ordered without contention {0}; the busiest core's least work {1} "
                      "on core {2}; the busiest NoC switch {3} on core {4}; the global memory "
                      "{5})\n",
                      formatTime(number(t, "bound", "chain_ns")),
                      formatTime(number(t, "bound", "core_work_ns")),
                      b->getInteger("work_core").value_or(-1),
                      formatTime(number(t, "bound", "injection_ns")),
                      b->getInteger("injection_core").value_or(-1),
                      formatTime(number(t, "bound", "global_memory_ns")));
  if (auto round = t.getNumber("round_ns")) {
    double roundBound = number(t, "bound", "round_ns");
    os << llvm::formatv("  a looping round's bound {0}: the round is {1:f2}x it\n",
                        formatTime(roundBound), roundBound > 0 ? *round / roundBound : 0);
  }
}

void pimc::printReport(const Object &r, llvm::raw_ostream &os) {
  const Object *provenance = r.getObject("provenance");
  auto hash = [&](llvm::StringRef what) -> std::string {
    const Object *file = provenance ? provenance->getObject(what) : nullptr;
    std::optional<llvm::StringRef> sha = file ? file->getString("sha256") : std::nullopt;
    return sha ? " (sha256 " + sha->take_front(12).str() + "...)" : "";
  };
  os << "model            " << r.getString("model").value_or("?") << hash("model") << "\n";
  os << "architecture     " << r.getString("arch").value_or("?") << hash("arch") << "\n";
  if (const Object *chip = provenance ? provenance->getObject("chip") : nullptr)
    os << llvm::formatv("  {0} cores on a {1}x{2} mesh, {3} crossbars of {4}x{5} per core, "
                        "{6} of local memory per core\n",
                        chip->getInteger("cores").value_or(0),
                        chip->getInteger("mesh_rows").value_or(0),
                        chip->getInteger("mesh_cols").value_or(0),
                        chip->getInteger("crossbars_per_core").value_or(0),
                        chip->getInteger("xbar_rows").value_or(0),
                        chip->getInteger("xbar_cols").value_or(0),
                        bytes(chip->getNumber("local_memory_bytes").value_or(0)));
  if (provenance)
    os << "compiled by      " << provenance->getString("pimc_version").value_or("?")
       << " (commit " << provenance->getString("pimc_commit").value_or("?") << "): "
       << provenance->getString("command_line").value_or("") << "\n";
  if (const Object *c = r.getObject("compiler")) {
    os << llvm::formatv("compile time     {0:f3} s, peak RSS {1}\n",
                        c->getNumber("wall_seconds").value_or(0),
                        bytes(c->getNumber("peak_rss_bytes").value_or(0)));
    if (const llvm::json::Array *stages = c->getArray("stages")) {
      // The peak so far shows which stage raised it.
      os << "  stage              seconds       ops    values  peak RSS MiB\n";
      for (const llvm::json::Value &v : *stages)
        if (const Object *s = v.getAsObject())
          os << llvm::formatv("  {0,-16} {1,9:f4} {2,9} {3,9} {4,13:f1}\n",
                              s->getString("name").value_or(""),
                              s->getNumber("seconds").value_or(0),
                              s->getInteger("ops").value_or(0),
                              s->getInteger("values").value_or(0),
                              s->getNumber("peak_rss_bytes").value_or(0) / (1 << 20));
    }
  }
  os << llvm::formatv(
      "graph            {0} computes ({1} batches, {2} lanes), {3} weight tiles "
      "on {4} crossbars\n",
      count(r, "graph", "compute_instances"), count(r, "graph", "compute_batches"),
      count(r, "graph", "lanes"), count(r, "graph", "weight_tiles"),
      count(r, "graph", "crossbars"));
  // Which convolutions compute neighbouring pixels together, the first few.
  if (const Object *graph = r.getObject("graph"))
    if (const llvm::json::Array *packed = graph->getArray("packed_convolutions");
        packed && !packed->empty()) {
      constexpr size_t kNamed = 4;
      os << llvm::formatv("  packed pixels: {0} convolution{1} compute{2} neighbouring pixels "
                          "with one matrix:",
                          packed->size(), packed->size() == 1 ? "" : "s",
                          packed->size() == 1 ? "s" : "");
      llvm::ListSeparator separator(",");
      for (size_t i = 0; i < std::min(kNamed, packed->size()); ++i) {
        const Object *conv = (*packed)[i].getAsObject();
        os << separator << " " << conv->getString("node").value_or("?") << " ("
           << conv->getInteger("pixels").value_or(0) << ")";
      }
      if (packed->size() > kNamed)
        os << ", and " << packed->size() - kNamed << " more";
      os << "\n";
    }
  os << llvm::formatv("schedule         {0} cores, estimated critical path {1}\n",
                      count(r, "schedule", "cores_used"),
                      formatTime(number(r, "schedule", "critical_path_ns")));
  auto inst = [&](llvm::StringRef key) { return count(r, "instructions", key); };
  if (const Object *t = r.getObject("timing")) {
    // Core-time totals: what the cores did while the inference ran.
    double all = t->getNumber("compute_ns").value_or(0) +
                 t->getNumber("transfer_ns").value_or(0) +
                 t->getNumber("rendezvous_ns").value_or(0) +
                 t->getNumber("memory_wait_ns").value_or(0) +
                 t->getNumber("event_wait_ns").value_or(0);
    auto share = [&](llvm::StringRef key) {
      return all > 0 ? 100 * t->getNumber(key).value_or(0) / all : 0.0;
    };
    // A batch: the figures are of the whole batch, and of each sample.
    int64_t samples = std::max<int64_t>(1, t->getInteger("samples_per_inference").value_or(1));
    double latencyNs = t->getNumber("latency_ns").value_or(0);
    std::string batch =
        samples > 1 ? llvm::formatv(" for a batch of {0} samples, {1} a sample", samples,
                                    formatTime(latencyNs / samples))
                          .str()
                    : "";
    os << llvm::formatv("latency          {0}{1} (pimc's replay of pimsim-nn's timing model; "
                        "the slowest core is {2})\n",
                        formatTime(latencyNs), batch, t->getInteger("slowest_core").value_or(0));
    if (const Object *way = t->getObject("batch")) {
      bool oneByOne = way->getString("schedule") == "one by one";
      os << llvm::formatv("batch            {0} samples {1}", samples,
                          oneByOne ? "one by one: the program of one sample runs once a sample"
                                   : "together, in one program");
      if (auto why = way->getString("why"))
        os << ": " << *why;
      if (const llvm::json::Array *tried = way->getArray("tried")) {
        os << " (compiled:";
        llvm::ListSeparator separator(";");
        for (const llvm::json::Value &value : *tried) {
          const Object *entry = value.getAsObject();
          os << separator << " " << entry->getString("schedule").value_or("?") << " ";
          std::optional<double> cost = entry->getNumber("cost_ns");
          if (!cost)
            os << "does not compile";
          else if (t->getNumber("round_ns"))
            os << llvm::formatv("{0:f1} samples/s with the fill", samples * 1e9 / *cost);
          else
            os << formatTime(*cost);
        }
        os << ")";
      }
      os << "\n";
    }
    printPimsim(r, os);
    printBound(*t, os);
    if (auto round = t->getNumber("round_ns")) {
      os << llvm::formatv("throughput       {0:f1} samples/s (a round every {1} when the "
                          "programs loop; pimsim-nn's sim_time {2} ms should count {3}, "
                          "{4:f1} samples/s with the fill)\n",
                          1e9 / *round, formatTime(*round), t->getInteger("sim_time_ms").value_or(0),
                          t->getInteger("expected_output_count").value_or(0),
                          1e9 / t->getNumber("counted_sample_ns").value_or(1e9));
      // pimsim-nn counts a round as one sample, whatever the batch.
      if (samples > 1)
        os << llvm::formatv("  a round is a batch of {0} samples: {1:f1} samples/s, {2:f1} with "
                            "the fill\n",
                            samples, samples * 1e9 / *round,
                            samples * 1e9 / t->getNumber("counted_sample_ns").value_or(1e9));
      if (auto plan = t->getString("plan")) {
        if (auto error = t->getString("other_plan_error"))
          os << llvm::formatv("  plan: {0} (the other plan does not compile: {1})\n", *plan,
                              *error);
        else if (auto other = t->getNumber("other_plan_round_ns"))
          os << llvm::formatv("  plan: {0} (the other plan: a round every {1}, {2:f1} "
                              "samples/s with the fill)\n",
                              *plan, formatTime(*other),
                              1e9 / t->getNumber("other_plan_counted_sample_ns").value_or(1e9));
        else
          os << llvm::formatv("  plan: {0} (as --plan chose)\n", *plan);
      }
      if (const llvm::json::Array *candidates = t->getArray("candidates")) {
        os << "  compiled (samples/s with the fill):";
        llvm::ListSeparator separator(";");
        for (const llvm::json::Value &value : *candidates) {
          const Object *c = value.getAsObject();
          os << separator << " " << c->getString("plan").value_or("?");
          if (auto counted = c->getNumber("counted_sample_ns"))
            os << llvm::formatv(" {0:f1}", 1e9 / *counted);
          else
            os << " does not compile";
        }
        os << "\n";
      }
    }
    // Energy, by where it goes: the crossbars' part is set by the mvmuls
    // the model needs, the static part by how long the chip runs.
    if (const Object *e = t->getObject("energy")) {
      double staticMw = e->getNumber("static_mw").value_or(0);
      double latencyNs = t->getNumber("latency_ns").value_or(0);
      auto pj = [&](llvm::StringRef key) { return e->getNumber(key).value_or(0); };
      os << llvm::formatv("energy           {0} per inference: crossbars {1} ({2} "
                          "crossbar reads), static {3} ({4:f1} mW for {5}), NoC {6}",
                          formatEnergy(t->getNumber("energy_pj").value_or(0)),
                          formatEnergy(pj("crossbar_pj")),
                          e->getInteger("crossbar_reads").value_or(0),
                          formatEnergy(staticMw * latencyNs), staticMw, formatTime(latencyNs),
                          formatEnergy(pj("noc_pj")));
      for (auto [key, name] : {std::pair{"memory_pj", "memories"}, {"vector_pj", "vector"}})
        if (pj(key) > 0)
          os << llvm::formatv(", {0} {1}", name, formatEnergy(pj(key)));
      os << "\n";
      if (samples > 1)
        os << llvm::formatv("  a batch of {0} samples: {1} a sample\n", samples,
                            formatEnergy(t->getNumber("energy_pj").value_or(0) / samples));
      if (auto perSample = t->getNumber("energy_per_sample_pj"))
        os << (samples > 1 ? llvm::formatv("  {0} per round of {1} samples when the programs "
                                           "loop, {2} a sample\n",
                                           formatEnergy(*perSample), samples,
                                           formatEnergy(*perSample / samples))
                                 .str()
                           : llvm::formatv("  {0} per sample when the programs loop\n",
                                           formatEnergy(*perSample))
                                 .str());
    }
    // Of one inference; when the programs loop, of the first round (the
    // pipeline's fill), whose steady state is told below.
    os << llvm::formatv("  busy cores' time{5}: compute {0:f0}%, transfers {1:f0}%, waiting for "
                        "a peer {2:f0}%, for memory or NoC {3:f0}%, for events {4:f0}%\n",
                        share("compute_ns"), share("transfer_ns"), share("rendezvous_ns"),
                        share("memory_wait_ns"), share("event_wait_ns"),
                        t->getArray("round_cores") ? " in the first round" : "");
    // The chain of work that ends last: the nodes to make faster.
    auto printPath = [&](const Object *path, llvm::StringRef what) {
      if (!path)
        return;
      std::string most;
      if (const llvm::json::Array *nodes = path->getArray("nodes"))
        for (const llvm::json::Value &v : llvm::make_range(nodes->begin(), nodes->begin() + std::min<size_t>(4, nodes->size())))
          if (const Object *n = v.getAsObject())
            most += llvm::formatv("{0}{1} {2}", most.empty() ? "" : ", ",
                                  n->getString("node").value_or(""),
                                  formatTime(n->getNumber("ns").value_or(0)));
      os << llvm::formatv("  {0} over {1} cores, transfers {2}; most on it: {3}\n", what,
                          path->getInteger("cores").value_or(0),
                          formatTime(path->getNumber("transfer_ns").value_or(0)), most);
    };
    printPath(t->getObject("critical_path"), "critical path");
    // A round of the looping programs: the busiest core bounds it; the
    // others' waits say whether later stages hold them up or earlier ones
    // starve them.
    if (const llvm::json::Array *round = t->getArray("round_cores")) {
      double roundNs = t->getNumber("round_ns").value_or(0), busy = 0, sendWait = 0,
             recvWait = 0;
      auto ns = [](const Object *c, llvm::StringRef key) {
        return c ? c->getNumber(key).value_or(0) : 0;
      };
      for (const llvm::json::Value &v : *round) {
        busy += ns(v.getAsObject(), "busy_ns");
        sendWait += ns(v.getAsObject(), "send_wait_ns");
        recvWait += ns(v.getAsObject(), "recv_wait_ns");
      }
      double all = roundNs * double(round->size());
      auto percent = [&](double part) { return all > 0 ? 100 * part / all : 0; };
      os << llvm::formatv("  a looping round on {0} cores: working {1:f0}%, waiting to send {2:f0}% "
                          "(held up by a later stage), to receive {3:f0}% (starved by an earlier "
                          "one)\n",
                          round->size(), percent(busy), percent(sendWait), percent(recvWait));
      auto [unit, scale] = timeUnit(roundNs);
      if (!round->empty())
        os << llvm::formatv("  busiest cores  busy {0,-3} send wait {0,-3} recv wait {0,-3} node\n",
                            unit);
      for (const llvm::json::Value &v :
           llvm::make_range(round->begin(), round->begin() + std::min<size_t>(5, round->size())))
        if (const Object *c = v.getAsObject())
          os << llvm::formatv("  {0,13} {1,8:f3} {2,13:f3} {3,13:f3}  {4}\n",
                              c->getInteger("id").value_or(-1), ns(c, "busy_ns") / scale,
                              ns(c, "send_wait_ns") / scale, ns(c, "recv_wait_ns") / scale,
                              c->getString("node").value_or(""));
    }
    // The model nodes whose instructions span the longest time, with how
    // much of it their cores spent working on them.
    if (const llvm::json::Array *nodes = t->getArray("nodes")) {
      std::vector<const Object *> sorted;
      for (const llvm::json::Value &v : *nodes)
        if (const Object *n = v.getAsObject())
          sorted.push_back(n);
      auto span = [](const Object *n) {
        return n->getNumber("end_ns").value_or(0) - n->getNumber("start_ns").value_or(0);
      };
      llvm::stable_sort(sorted, [&](const Object *a, const Object *b) { return span(a) > span(b); });
      auto [unit, scale] = timeUnit(t->getNumber("latency_ns").value_or(0));
      if (!sorted.empty())
        os << llvm::formatv("  longest nodes      from {0,-3}   to {0,-3} cores  busy {0,-3} energy"
                            "       node\n",
                            unit);
      for (const Object *n : llvm::ArrayRef(sorted).take_front(6))
        os << llvm::formatv("                 {0,10:f3} {1,9:f3} {2,6} {3,8:f3}  {4,-10} {5}\n",
                            n->getNumber("start_ns").value_or(0) / scale,
                            n->getNumber("end_ns").value_or(0) / scale,
                            n->getInteger("cores").value_or(0),
                            n->getNumber("busy_ns").value_or(0) / scale,
                            formatEnergy(n->getNumber("energy_pj").value_or(0)),
                            n->getString("node").value_or(""));
    }
  }
  os << llvm::formatv("instructions     {0} in all, at most {1} on core {2}\n",
                      inst("instructions"), inst("max_per_core"), inst("max_core"));
  os << llvm::formatv("  mvm {0}, vector {1}, sldi {2} (for {3} register operands), "
                      "setbw {4}\n",
                      inst("mvm"), inst("vector"), inst("scalar"), inst("register_operands"),
                      inst("setbw"));
  os << llvm::formatv("  send {0} ({1}), recv {2} ({3})\n", inst("send"),
                      bytes(inst("send_bytes")), inst("recv"), bytes(inst("recv_bytes")));
  os << llvm::formatv("  ld {0} ({1}), st {2} ({3}), copies {4} ({5})\n", inst("load"),
                      bytes(inst("load_bytes")), inst("store"),
                      bytes(inst("store_bytes")), inst("copies"),
                      bytes(inst("copy_bytes")));
  os << llvm::formatv("memory           {0} weights on {1} of {2} crossbars, global "
                      "memory {3}, largest core memory {4}\n",
                      count(r, "memory", "weights"), count(r, "memory", "crossbars_used"),
                      count(r, "memory", "crossbars_available"),
                      bytes(number(r, "memory", "global_memory_bytes")),
                      bytes(number(r, "memory", "max_core_memory_bytes")));
  if (const Object *v = r.getObject("validation"))
    os << "validation       " << v->getString("status").value_or("not run") << "\n";
}

namespace {
struct Proxy {
  const char *section, *key;
  bool runtime; // a runtime proxy: it must not get worse
};
} // namespace

static const Proxy kProxies[] = {
    {"compiler", "wall_seconds", false},
    {"compiler", "peak_rss_bytes", false},
    {"graph", "compute_instances", false},
    {"graph", "lanes", true},
    {"schedule", "cores_used", false},
    {"schedule", "critical_path_ns", true},
    {"timing", "latency_ns", true},
    {"timing", "round_ns", true},
    {"timing", "counted_sample_ns", true},
    {"timing", "energy_pj", true},
    {"timing", "energy_per_sample_pj", true},
    {"instructions", "mvm", true},
    {"instructions", "vector", true},
    {"instructions", "send", true},
    {"instructions", "send_bytes", true},
    {"instructions", "recv", true},
    {"instructions", "recv_bytes", true},
    {"instructions", "load_bytes", true},
    {"instructions", "store_bytes", true},
    {"instructions", "instructions", true},
    {"instructions", "max_per_core", true},
    {"instructions", "copies", true},
    {"instructions", "copy_bytes", true},
    {"memory", "weights", false},
    {"memory", "global_memory_bytes", false},
    {"memory", "max_core_memory_bytes", false},
};

static bool has(const Object &o, const Proxy &p) {
  const Object *inner = o.getObject(p.section);
  return inner && inner->getNumber(p.key);
}

/// A proxy's value: whole numbers (counts, bytes) as such.
static std::string proxyValue(double value) {
  if (value == std::floor(value) && std::fabs(value) < 1e15)
    return std::to_string(int64_t(value));
  return llvm::formatv("{0:f2}", value).str();
}

static std::string proxyName(const Proxy &p) {
  return (llvm::Twine(p.section) + "." + p.key).str();
}

/// The SHA-256 of the file a report was compiled from, for `what` ("model"
/// or "arch"), if it has one.
static std::optional<llvm::StringRef> fileHash(const Object &r, llvm::StringRef what) {
  const Object *provenance = r.getObject("provenance");
  const Object *file = provenance ? provenance->getObject(what) : nullptr;
  return file ? file->getString("sha256") : std::nullopt;
}

/// Whether two reports were compiled from the same `what`: by hash where
/// both have one (an older pimc wrote none), else by file name.
static bool sameFile(const Object &a, const Object &b, llvm::StringRef what) {
  std::optional<llvm::StringRef> hashA = fileHash(a, what), hashB = fileHash(b, what);
  if (hashA && hashB)
    return *hashA == *hashB;
  return llvm::sys::path::filename(a.getString(what).value_or("")) ==
         llvm::sys::path::filename(b.getString(what).value_or(""));
}

static std::string mode(const Object &r) {
  const Object *timing = r.getObject("timing");
  return timing ? timing->getString("mode").value_or("latency").str() : "latency";
}

std::optional<std::string> pimc::incomparable(const Object &before, const Object &after) {
  if (mode(before) != mode(after))
    return "one report is of " + mode(before) + " mode, the other of " + mode(after) + " mode";
  if (!sameFile(before, after, "model"))
    return std::string("the reports are of different models");
  if (!sameFile(before, after, "arch"))
    return std::string("the reports are of different chips");
  return std::nullopt;
}

int pimc::compareReports(const Object &before, const Object &after, llvm::raw_ostream &os) {
  int worse = 0;
  os << llvm::formatv("{0,-34} {1,16} {2,16} {3,10} {4,9}\n", "proxy", "before", "after",
                      "change", "ratio");
  for (const Proxy &p : kProxies) {
    // A proxy one of the reports lacks (an older pimc, the other mode) is
    // shown but not compared.
    if (!has(before, p) || !has(after, p)) {
      auto shown = [&](const Object &o) {
        return has(o, p) ? proxyValue(number(o, p.section, p.key)) : std::string("-");
      };
      os << llvm::formatv("{0,-34} {1,16} {2,16}\n", proxyName(p), shown(before), shown(after));
      continue;
    }
    double a = number(before, p.section, p.key), b = number(after, p.section, p.key);
    // Fewer lanes is less parallelism; for everything else, less is better.
    bool isWorse = p.runtime && (llvm::StringRef(p.key) == "lanes" ? b < a : b > a);
    worse += isWorse;
    double percent = a != 0 ? 100 * (b - a) / a : 0;
    std::string change = a != 0 ? llvm::formatv("{0}{1:f1}%", percent > 0 ? "+" : "", percent).str()
                         : b == 0 ? std::string("=")
                                  : std::string("new");
    if (a != 0 && a == b)
      change = "=";
    std::string ratio = a != 0 ? llvm::formatv("x{0:f3}", b / a).str() : std::string("-");
    os << llvm::formatv("{0,-34} {1,16} {2,16} {3,10} {4,9}{5}\n", proxyName(p), proxyValue(a),
                        proxyValue(b), change, ratio, isWorse ? "  WORSE" : "");
  }
  return worse;
}

void pimc::printProxyTable(llvm::ArrayRef<std::pair<std::string, Object>> reports,
                           llvm::raw_ostream &os) {
  // The runtime proxies any report has, as columns.
  std::vector<const Proxy *> columns;
  for (const Proxy &p : kProxies)
    if (p.runtime && llvm::any_of(reports, [&](const auto &r) { return has(r.second, p); }))
      columns.push_back(&p);
  os << "| report | mode |";
  for (const Proxy *p : columns)
    os << " " << p->key << " |";
  os << "\n|---|---|";
  for (size_t i = 0; i < columns.size(); ++i)
    os << "---:|";
  os << "\n";
  for (const auto &[name, report] : reports) {
    os << "| " << name << " | " << mode(report) << " |";
    for (const Proxy *p : columns) {
      if (!has(report, *p)) {
        os << " - |";
        continue;
      }
      double value = number(report, p->section, p->key);
      llvm::StringRef key(p->key);
      if (key.ends_with("_ns"))
        os << " " << formatTime(value) << " |";
      else if (key.ends_with("_pj"))
        os << " " << formatEnergy(value) << " |";
      else
        os << " " << proxyValue(value) << " |";
    }
    os << "\n";
  }
}

llvm::Expected<Object> pimc::recordPimsimLog(llvm::StringRef outputDir, llvm::StringRef logPath) {
  llvm::Expected<Object> report = readReport(outputDir);
  if (!report)
    return report.takeError();
  auto log = readRegularFile(logPath);
  if (!log)
    return log.takeError();
  // The "Chip Simulation Result" lines of ChipTest's report.
  auto find = [&](llvm::StringRef pattern) -> std::optional<double> {
    llvm::SmallVector<llvm::StringRef, 2> match;
    double value;
    if (llvm::Regex(pattern).match((*log)->getBuffer(), &match) &&
        !match[1].getAsDouble(value) && std::isfinite(value))
      return value;
    return std::nullopt;
  };
  std::optional<double> latencyMs = find("- latency:[ \t]+([0-9.eE+-]+) ms");
  std::optional<double> throughput = find("- throughput:[ \t]+([0-9.eE+-]+) samples/s");
  std::optional<double> energy = find("- average energy:[ \t]+([0-9.eE+-]+) pJ");
  if (!latencyMs && !throughput)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'" + logPath +
                                       "' has no '- latency: ... ms' or '- throughput: ... "
                                       "samples/s' line of pimsim-nn's report");
  Object pimsim{{"log", logPath}};
  if (latencyMs)
    pimsim["latency_ns"] = *latencyMs * 1e6;
  if (throughput)
    pimsim["throughput_samples_per_s"] = *throughput;
  if (energy)
    pimsim["energy_pj"] = *energy;
  (*report)["pimsim"] = std::move(pimsim);
  if (llvm::Error e = writeJsonFile(outputDir, kReportFile, Object(*report)))
    return std::move(e);
  return report;
}
