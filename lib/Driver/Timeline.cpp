//===- Timeline.cpp - a program's replayed timeline, and its trace --------===//
//
// The trace follows the Chrome trace-event format: times in microseconds,
// one process (the chip) with a thread per core, complete events ("X") for
// the slices, flow events ("s"/"f") from a send's slice to its recv's, and
// a counter ("C") of the bytes the NoC carries.
//
//===----------------------------------------------------------------------===//

#include "pimc/Driver/Views.h"

#include "pimc/Support/InputLimits.h"
#include "pimc/Target/Pimsim/Artifacts.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace pimc;
using llvm::json::Array;
using llvm::json::Object;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static std::string inDirectory(llvm::StringRef directory, llvm::StringRef file) {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, file);
  return path.str().str();
}

llvm::Error pimc::writeNodeMarks(llvm::StringRef directory,
                                 llvm::ArrayRef<std::string> nodeNames,
                                 const std::vector<sim::NodeMarks> &marks) {
  Array names, cores;
  for (const std::string &name : nodeNames)
    names.push_back(name);
  for (const sim::NodeMarks &core : marks) {
    Array pairs;
    for (auto [pc, node] : core)
      pairs.push_back(Array{int64_t(pc), int64_t(node)});
    cores.push_back(std::move(pairs));
  }
  return writeJsonFile(directory, kNodesFile,
                       Object{{"nodes", std::move(names)}, {"marks", std::move(cores)}});
}

/// The node names and marks of nodes.json; none when the file is absent
/// (a program of an older pimc, or one pimsim-nn's own tools wrote).
static llvm::Error readNodeMarks(llvm::StringRef directory, std::vector<std::string> &names,
                                 std::vector<sim::NodeMarks> &marks) {
  std::string path = inDirectory(directory, kNodesFile);
  if (!llvm::sys::fs::exists(path))
    return llvm::Error::success();
  auto buffer = readRegularFile(path, /*requiresNullTerminator=*/true, kMaxJsonFileBytes);
  if (!buffer)
    return buffer.takeError();
  llvm::Expected<llvm::json::Value> json = parseJsonWithinDepth((*buffer)->getBuffer());
  if (!json)
    return fail("'" + path + "' is not valid JSON: " + llvm::toString(json.takeError()));
  const Object *root = json->getAsObject();
  const Array *nodeArray = root ? root->getArray("nodes") : nullptr;
  const Array *markArray = root ? root->getArray("marks") : nullptr;
  if (!nodeArray || !markArray)
    return fail("'" + path + "' has no 'nodes' and 'marks'");
  for (const llvm::json::Value &name : *nodeArray)
    names.push_back(name.getAsString().value_or("").str());
  for (const llvm::json::Value &core : *markArray) {
    sim::NodeMarks &own = marks.emplace_back();
    const Array *pairs = core.getAsArray();
    if (!pairs)
      return fail("'" + path + "': each core's marks are an array");
    for (const llvm::json::Value &pair : *pairs) {
      const Array *entry = pair.getAsArray();
      std::optional<int64_t> pc = entry && entry->size() == 2 ? (*entry)[0].getAsInteger()
                                                              : std::nullopt;
      std::optional<int64_t> node = pc ? (*entry)[1].getAsInteger() : std::nullopt;
      if (!node || *pc < 0 || *node < -1 || *node >= int64_t(names.size()))
        return fail("'" + path + "': a mark is not a [pc, node] pair of a known node");
      own.push_back({uint64_t(*pc), int32_t(*node)});
    }
  }
  return llvm::Error::success();
}

std::string pimc::nodeLabel(llvm::ArrayRef<std::string> nodeNames, int32_t node) {
  bool named = node >= 0 && size_t(node) < nodeNames.size() && !nodeNames[node].empty();
  return named ? nodeNames[node] : "(no model node)";
}

llvm::Expected<ProgramTimeline> pimc::replayTimeline(llvm::StringRef directory) {
  ProgramTimeline timeline;
  llvm::Expected<Arch> arch = Arch::load(inDirectory(directory, kArchFile));
  if (!arch)
    return arch.takeError();
  timeline.arch = std::move(*arch);
  std::vector<sim::NodeMarks> marks;
  if (llvm::Error e = readNodeMarks(directory, timeline.nodeNames, marks))
    return std::move(e);
  // pimsim-nn's throughput mode (sim_mode 0) loops every core: the fill and
  // two rounds after it.
  timeline.looping = timeline.arch.simMode == 0;
  timeline.rounds = timeline.looping ? 3 : 1;
  llvm::Expected<sim::Timing> timing =
      sim::replayTiming(directory, timeline.arch, marks.empty() ? nullptr : &marks,
                        timeline.nodeNames.size(), timeline.rounds, timeline.rounds);
  if (!timing)
    return timing.takeError();
  timeline.timing = std::move(*timing);
  return timeline;
}

llvm::Error pimc::writeTrace(const ProgramTimeline &timeline, llvm::StringRef path) {
  const sim::Timing &timing = timeline.timing;
  std::string text;
  llvm::raw_string_ostream os(text);
  auto us = [](double ns) { return ns / 1000; };
  // One event a line: the file is large, and a line per event keeps it
  // readable with grep.
  llvm::ListSeparator separator(",\n");
  auto event = [&](Object e) { os << separator << llvm::json::Value(std::move(e)); };
  os << "{\"displayTimeUnit\": \"ns\",\n\"otherData\": "
     << llvm::json::Value(Object{{"generator", "pimc"},
                                 {"mode", timeline.looping ? "throughput" : "latency"},
                                 {"rounds", timeline.rounds},
                                 {"latency_ns", timing.latencyNs}})
     << ",\n\"traceEvents\": [\n";
  event(Object{{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"tid", 0},
               {"args", Object{{"name", "chip"}}}});
  for (size_t core = 0; core < timing.slices.size(); ++core) {
    if (timing.slices[core].empty())
      continue;
    event(Object{{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", int64_t(core)},
                 {"args", Object{{"name", llvm::formatv("core {0}", core).str()}}}});
    event(Object{{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", 0},
                 {"tid", int64_t(core)}, {"args", Object{{"sort_index", int64_t(core)}}}});
    for (const sim::Slice &slice : timing.slices[core]) {
      std::string node = timeline.nodeLabel(slice.node);
      Object args{{"node", node}, {"instructions", int64_t(slice.count)}};
      if (slice.scalars)
        args["scalar_instructions"] = int64_t(slice.scalars);
      event(Object{{"name", (sim::activityName(slice.activity) + " " + node).str()},
                   {"cat", sim::activityName(slice.activity)},
                   {"ph", "X"},
                   {"pid", 0},
                   {"tid", int64_t(core)},
                   {"ts", us(slice.startNs)},
                   {"dur", us(slice.endNs - slice.startNs)},
                   {"args", std::move(args)}});
    }
  }
  for (auto [id, flow] : llvm::enumerate(timing.flows)) {
    const sim::Slice &send = timing.slices[flow.sender][flow.sendSlice];
    const sim::Slice &recv = timing.slices[flow.receiver][flow.recvSlice];
    Object args{{"bytes", flow.bytes}};
    event(Object{{"name", "transfer"}, {"cat", "transfer"}, {"ph", "s"}, {"id", int64_t(id)},
                 {"pid", 0}, {"tid", flow.sender}, {"ts", us(send.startNs)},
                 {"args", Object(args)}});
    event(Object{{"name", "transfer"}, {"cat", "transfer"}, {"ph", "f"}, {"bp", "e"},
                 {"id", int64_t(id)}, {"pid", 0}, {"tid", flow.receiver},
                 {"ts", us(recv.startNs)}, {"args", std::move(args)}});
  }
  // The NoC's traffic, in bytes departing per bucket of a 200th of the run.
  double endNs = 0;
  for (const sim::Message &m : timing.messages)
    endNs = std::max(endNs, m.arriveNs);
  if (endNs > 0) {
    constexpr int kBuckets = 200;
    double width = endNs / kBuckets;
    std::vector<int64_t> bytes(kBuckets + 1, 0);
    for (const sim::Message &m : timing.messages)
      bytes[std::min<int64_t>(kBuckets, int64_t(m.departNs / width))] += m.bytes;
    for (int b = 0; b <= kBuckets; ++b)
      event(Object{{"name", "NoC traffic"}, {"ph", "C"}, {"pid", 0}, {"tid", 0},
                   {"ts", us(b * width)},
                   {"args", Object{{"bytes per us", double(bytes[b]) / us(width)}}}});
  }
  os << "\n]}\n";
  return writeOutputFile(path, text);
}
