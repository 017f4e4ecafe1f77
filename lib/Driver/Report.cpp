//===- Report.cpp - the report as text, and the stop rule -----------------===//

#include "pimc/Driver/Driver.h"
#include "pimc/Target/Pimsim/Artifacts.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace pimc;
using llvm::json::Object;

llvm::Expected<Object> pimc::readReport(llvm::StringRef outputDir) {
  llvm::SmallString<256> path(outputDir);
  if (!llvm::StringRef(path).ends_with(".json"))
    llvm::sys::path::append(path, kReportFile);
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "cannot read '" + path + "'");
  llvm::Expected<llvm::json::Value> json = llvm::json::parse((*buffer)->getBuffer());
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

static std::string bytes(double value) {
  if (value >= 1 << 20)
    return llvm::formatv("{0:f2} MiB", value / (1 << 20)).str();
  if (value >= 1 << 10)
    return llvm::formatv("{0:f1} KiB", value / (1 << 10)).str();
  return llvm::formatv("{0} B", (int64_t)value).str();
}

void pimc::printReport(const Object &r, llvm::raw_ostream &os) {
  os << "model            " << r.getString("model").value_or("?") << "\n";
  os << "architecture     " << r.getString("arch").value_or("?") << "\n";
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
  os << llvm::formatv("schedule         {0} cores, estimated critical path {1:f3} us\n",
                      count(r, "schedule", "cores_used"),
                      number(r, "schedule", "critical_path_ns") / 1000);
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
    os << llvm::formatv("latency          {0:f3} ms (timing replay; the slowest core is {1})\n",
                        t->getNumber("latency_ns").value_or(0) / 1e6,
                        t->getInteger("slowest_core").value_or(0));
    if (auto round = t->getNumber("round_ns")) {
      os << llvm::formatv("throughput       {0:f1} samples/s (a round every {1:f3} ms when the "
                          "programs loop; pimsim-nn's sim_time {2} ms should count {3}, "
                          "{4:f1} samples/s with the fill)\n",
                          1e9 / *round, *round / 1e6, t->getInteger("sim_time_ms").value_or(0),
                          t->getInteger("expected_output_count").value_or(0),
                          1e9 / t->getNumber("counted_sample_ns").value_or(1e9));
      if (auto plan = t->getString("plan")) {
        if (auto error = t->getString("other_plan_error"))
          os << llvm::formatv("  plan: {0} (the other plan does not compile: {1})\n", *plan,
                              *error);
        else if (auto other = t->getNumber("other_plan_round_ns"))
          os << llvm::formatv("  plan: {0} (the other plan: a round every {1:f3} ms, {2:f1} "
                              "samples/s with the fill)\n",
                              *plan, *other / 1e6,
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
      auto mj = [&](llvm::StringRef key) { return e->getNumber(key).value_or(0) / 1e9; };
      os << llvm::formatv("energy           {0:f3} mJ per inference: crossbars {1:f3} mJ ({2} "
                          "crossbar reads), static {3:f3} mJ ({4:f0} mW for {5:f3} ms), NoC "
                          "{6:f3} mJ",
                          t->getNumber("energy_pj").value_or(0) / 1e9, mj("crossbar_pj"),
                          e->getInteger("crossbar_reads").value_or(0),
                          staticMw * latencyNs / 1e9, staticMw, latencyNs / 1e6,
                          mj("noc_pj"));
      for (auto [key, name] : {std::pair{"memory_pj", "memories"}, {"vector_pj", "vector"}})
        if (mj(key) > 0)
          os << llvm::formatv(", {0} {1:f3} mJ", name, mj(key));
      os << "\n";
      if (auto perSample = t->getNumber("energy_per_sample_pj"))
        os << llvm::formatv("  {0:f3} mJ per sample when the programs loop\n", *perSample / 1e9);
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
            most += llvm::formatv("{0}{1} {2:f3} ms", most.empty() ? "" : ", ",
                                  n->getString("node").value_or(""),
                                  n->getNumber("ns").value_or(0) / 1e6);
      os << llvm::formatv("  {0} over {1} cores, transfers {2:f3} ms; most on it: {3}\n", what,
                          path->getInteger("cores").value_or(0),
                          path->getNumber("transfer_ns").value_or(0) / 1e6, most);
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
      if (!round->empty())
        os << "  busiest cores  busy ms  send wait ms  recv wait ms  node\n";
      for (const llvm::json::Value &v :
           llvm::make_range(round->begin(), round->begin() + std::min<size_t>(5, round->size())))
        if (const Object *c = v.getAsObject())
          os << llvm::formatv("  {0,13} {1,8:f3} {2,13:f3} {3,13:f3}  {4}\n",
                              c->getInteger("id").value_or(-1), ns(c, "busy_ns") / 1e6,
                              ns(c, "send_wait_ns") / 1e6, ns(c, "recv_wait_ns") / 1e6,
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
      if (!sorted.empty())
        os << "  longest nodes      from ms     to ms  cores  busy ms  node\n";
      for (const Object *n : llvm::ArrayRef(sorted).take_front(6))
        os << llvm::formatv("                 {0,10:f3} {1,9:f3} {2,6} {3,8:f3}  {4}\n",
                            n->getNumber("start_ns").value_or(0) / 1e6,
                            n->getNumber("end_ns").value_or(0) / 1e6,
                            n->getInteger("cores").value_or(0),
                            n->getNumber("busy_ns").value_or(0) / 1e6,
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

int pimc::compareReports(const Object &before, const Object &after,
                         llvm::raw_ostream &os) {
  struct Proxy {
    const char *section, *key;
    bool runtime; // a runtime proxy: it must not get worse
  };
  static const Proxy proxies[] = {
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
  int worse = 0;
  os << llvm::formatv("{0,-34} {1,16} {2,16}\n", "proxy", "before", "after");
  auto has = [](const Object &o, const Proxy &p) {
    const Object *inner = o.getObject(p.section);
    return inner && inner->getNumber(p.key);
  };
  for (const Proxy &p : proxies) {
    // A proxy one of the reports lacks (an older pimc, the other mode) is
    // shown but not compared.
    if (!has(before, p) || !has(after, p)) {
      auto shown = [&](const Object &o) {
        return has(o, p) ? llvm::formatv("{0}", number(o, p.section, p.key)).str()
                         : std::string("-");
      };
      os << llvm::formatv("{0,-34} {1,16} {2,16}\n",
                          (llvm::Twine(p.section) + "." + p.key).str(), shown(before),
                          shown(after));
      continue;
    }
    double a = number(before, p.section, p.key), b = number(after, p.section, p.key);
    // Fewer lanes is less parallelism; for everything else, less is better.
    bool isWorse = p.runtime && (llvm::StringRef(p.key) == "lanes" ? b < a : b > a);
    worse += isWorse;
    os << llvm::formatv("{0,-34} {1,16} {2,16}{3}\n",
                        (llvm::Twine(p.section) + "." + p.key).str(), a, b,
                        isWorse ? "  WORSE" : "");
  }
  return worse;
}
