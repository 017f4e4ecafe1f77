//===- Html.cpp - the report as one self-contained web page ---------------===//
//
// Everything is inline: SVG drawn here, a small script for zooming the
// timeline, no fonts, styles or scripts fetched. Each chart is an element
// with an id of its own (timeline, mesh-busy, mesh-crossbars, layers,
// energy, core-time, round, stages), which the tests look for.
//
// The timeline is drawn from the replay, not from the schedule's
// estimates: each core's row is cut into a fixed number of columns, and
// each column takes the colour of what the core spent most of it on (the
// model node it computed, transfers, or waiting).
//
//===----------------------------------------------------------------------===//

#include "pimc/Driver/Driver.h"
#include "pimc/Driver/Views.h"
#include "pimc/Target/Pimsim/Artifacts.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace pimc;
using llvm::json::Array;
using llvm::json::Object;

namespace {

std::string escape(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

/// A colour of its own for each model node: hues a golden angle apart.
std::string nodeColour(int32_t node) {
  if (node < 0)
    return "#9e9e9e";
  return llvm::formatv("hsl({0:f0},62%,{1}%)", std::fmod(node * 137.508, 360.0),
                       node % 2 ? 48 : 60)
      .str();
}
constexpr const char *kTransferColour = "#37474f";
constexpr const char *kWaitColour = "#e4e4e4";

/// White to `hue` as `share` goes from 0 to 1.
std::string scaleColour(double share, int hue) {
  share = std::clamp(share, 0.0, 1.0);
  return llvm::formatv("hsl({0},70%,{1:f0}%)", hue, 97 - 55 * share).str();
}

double number(const Object *o, llvm::StringRef key) {
  return o ? o->getNumber(key).value_or(0) : 0;
}

/// What a timeline column shows: a node's work (its index), transfers, or
/// waits.
enum : int32_t { kUnknownNode = -1, kTransfer = -2, kWait = -3 };

int32_t columnKey(const sim::Slice &slice) {
  switch (slice.activity) {
  case sim::Activity::Load:
  case sim::Activity::Store:
  case sim::Activity::Send:
  case sim::Activity::Recv:
    return kTransfer;
  case sim::Activity::SendWait:
  case sim::Activity::RecvWait:
  case sim::Activity::EventWait:
    return kWait;
  default:
    return slice.node < 0 ? kUnknownNode : slice.node;
  }
}

class Page {
public:
  Page(const Object &report, const ProgramTimeline &timeline, llvm::raw_ostream &os)
      : report(report), timeline(timeline), timing(timeline.timing), os(os),
        timingReport(report.getObject("timing")) {}

  void write() {
    std::string model = report.getString("model").value_or("?").str();
    os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>pimc "
          "report: "
       << escape(model) << "</title>\n<style>" << kStyle << "</style></head><body>\n";
    os << "<h1>pimc report: " << escape(model) << "</h1>\n";
    summary();
    timelineChart();
    meshCharts();
    layerChart();
    energyCharts();
    roundChart();
    stagesTable();
    os << "<script>" << kScript << "</script>\n</body></html>\n";
  }

private:
  static constexpr const char *kStyle =
      "body{font:13px/1.4 sans-serif;margin:16px;color:#222;max-width:1400px}"
      "h2{font-size:16px;margin:24px 0 6px}table{border-collapse:collapse}"
      "td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left}"
      "td.n{text-align:right;font-variant-numeric:tabular-nums}"
      ".legend span{display:inline-block;margin-right:12px}"
      ".legend i{display:inline-block;width:10px;height:10px;margin-right:4px}"
      ".scroll{overflow-x:auto;border:1px solid #ccc}"
      "svg text{font:11px sans-serif}button{margin-right:4px}";

  // Zooms the timeline about the pointer (wheel) or its middle (buttons) by
  // changing its viewBox; redraws the time axis under it.
  static constexpr const char *kScript = R"js(
(function(){
  const g=document.getElementById('timeline');if(!g)return;
  const axis=document.getElementById('timeline-axis');
  const full=+g.dataset.width, ns=+g.dataset.ns, h=+g.dataset.height;
  let x0=0,w=full;
  function unit(t){return t>=1e6?[1e6,'ms']:t>=1e3?[1e3,'\u00b5s']:[1,'ns'];}
  function draw(){
    g.setAttribute('viewBox',x0+' 0 '+w+' '+h);
    const t0=x0/full*ns, t1=(x0+w)/full*ns, [s,u]=unit(t1-t0);
    let step=Math.pow(10,Math.floor(Math.log10((t1-t0)/s/6)))*s;
    if((t1-t0)/step>12)step*=2; if((t1-t0)/step>12)step*=2.5;
    let out='';
    for(let t=Math.ceil(t0/step)*step;t<=t1;t+=step){
      const x=(t-t0)/(t1-t0)*1000;
      out+='<line x1="'+x+'" x2="'+x+'" y1="0" y2="5" stroke="#333"/>'+
           '<text x="'+x+'" y="16" text-anchor="'+(x<30?'start':x>970?'end':'middle')+'">'+(+(t/s).toFixed(3))+' '+u+'</text>';
    }
    axis.innerHTML=out;
  }
  function zoom(f,at){
    const nw=Math.min(full,Math.max(full/4096,w*f));
    x0=Math.min(full-nw,Math.max(0,at-(at-x0)*nw/w)); w=nw; draw();
  }
  g.addEventListener('wheel',e=>{e.preventDefault();const r=g.getBoundingClientRect();
    zoom(e.deltaY<0?0.8:1.25,x0+(e.clientX-r.left)/r.width*w);});
  document.getElementById('zoom-in').onclick=()=>zoom(0.5,x0+w/2);
  document.getElementById('zoom-out').onclick=()=>zoom(2,x0+w/2);
  document.getElementById('zoom-reset').onclick=()=>{x0=0;w=full;draw();};
  draw();
})();
)js";

  void row(llvm::StringRef name, const std::string &value) {
    os << "<tr><th>" << escape(name) << "</th><td>" << escape(value) << "</td></tr>\n";
  }

  void summary() {
    os << "<h2>Summary</h2>\n<table id=\"summary\">\n";
    row("architecture", report.getString("arch").value_or("?").str());
    const Object *provenance = report.getObject("provenance");
    if (const Object *chip = provenance ? provenance->getObject("chip") : nullptr)
      row("chip", llvm::formatv("{0} cores on a {1}x{2} mesh, {3} crossbars of {4}x{5} per core",
                                chip->getInteger("cores").value_or(0),
                                chip->getInteger("mesh_rows").value_or(0),
                                chip->getInteger("mesh_cols").value_or(0),
                                chip->getInteger("crossbars_per_core").value_or(0),
                                chip->getInteger("xbar_rows").value_or(0),
                                chip->getInteger("xbar_cols").value_or(0)));
    row("mode", timeline.looping ? "throughput (the programs loop)" : "latency (one inference)");
    row("latency (pimc's replay)", formatTime(timing.latencyNs));
    double bound = timing.bound.latencyNs();
    row("latency bound",
        llvm::formatv("{0}: no run of these programs is faster; the latency is {1:f2}x it",
                      formatTime(bound), bound > 0 ? timing.latencyNs / bound : 0));
    if (const Object *pimsim = report.getObject("pimsim")) {
      if (auto latency = pimsim->getNumber("latency_ns"))
        row("latency (pimsim-nn: cite this)", formatTime(*latency));
      if (auto throughput = pimsim->getNumber("throughput_samples_per_s"))
        row("throughput (pimsim-nn: cite this)", llvm::formatv("{0:f1} samples/s", *throughput));
    }
    if (auto round = timingReport ? timingReport->getNumber("round_ns") : std::nullopt)
      row("throughput (pimc's replay)",
          llvm::formatv("{0:f1} samples/s, a round every {1}", 1e9 / *round, formatTime(*round)));
    row("energy per inference", formatEnergy(number(timingReport, "energy_pj")));
    const Object *instructions = report.getObject("instructions");
    auto count = [](const Object *o, llvm::StringRef key) { return int64_t(number(o, key)); };
    row("instructions", llvm::formatv("{0} ({1} mvm, {2} vector, {3} send)",
                                      count(instructions, "instructions"),
                                      count(instructions, "mvm"), count(instructions, "vector"),
                                      count(instructions, "send")));
    const Object *memory = report.getObject("memory");
    row("crossbars", llvm::formatv("{0} of {1} used", count(memory, "crossbars_used"),
                                   count(memory, "crossbars_available")));
    if (const Object *compiler = report.getObject("compiler"))
      row("compile time", llvm::formatv("{0:f3} s", number(compiler, "wall_seconds")));
    if (provenance)
      row("compiled by", (provenance->getString("pimc_version").value_or("?") + " (commit " +
                          provenance->getString("pimc_commit").value_or("?") + "): " +
                          provenance->getString("command_line").value_or(""))
                             .str());
    os << "</table>\n";
  }

  /// The cores whose timeline has anything, in id order.
  std::vector<size_t> busyCores() const {
    std::vector<size_t> cores;
    for (size_t c = 0; c < timing.slices.size(); ++c)
      if (!timing.slices[c].empty())
        cores.push_back(c);
    return cores;
  }

  double timelineEnd() const {
    double end = timing.latencyNs;
    for (const std::vector<sim::Slice> &line : timing.slices)
      if (!line.empty())
        end = std::max(end, line.back().endNs);
    return end;
  }

  void timelineChart() {
    constexpr int kColumns = 1500;
    constexpr double kWidth = 1000;
    std::vector<size_t> cores = busyCores();
    double end = timelineEnd();
    if (cores.empty() || end <= 0)
      return;
    double rowHeight = cores.size() > 64 ? 5 : 10;
    double height = rowHeight * cores.size();
    os << "<h2>Per-core timeline" << (timeline.looping ? " (the first rounds)" : "")
       << "</h2>\n<p>From pimc's replay of the programs: each row is a core, coloured by the "
          "model node it computes, dark for transfers, light grey while it waits for a peer. "
          "The critical path is outlined in red. Scroll over the chart to zoom.</p>\n"
       << "<p><button id=\"zoom-in\">zoom in</button><button id=\"zoom-out\">zoom "
          "out</button><button id=\"zoom-reset\">whole run</button></p>\n";
    os << "<div style=\"display:flex\"><svg width=\"60\" height=\"" << height + 20 << "\">";
    for (auto [i, core] : llvm::enumerate(cores))
      if (rowHeight >= 10 || i % 8 == 0)
        os << llvm::formatv("<text x=\"56\" y=\"{0}\" text-anchor=\"end\">core {1}</text>",
                            (i + 0.9) * rowHeight + (rowHeight < 10 ? 4 : 0), core);
    os << "</svg><div style=\"flex:1\">";
    os << llvm::formatv("<svg id=\"timeline\" data-width=\"{0}\" data-ns=\"{1}\" "
                        "data-height=\"{2}\" viewBox=\"0 0 {0} {2}\" preserveAspectRatio=\"none\" "
                        "width=\"100%\" height=\"{2}\" style=\"background:#fff\">\n",
                        kWidth, end, height);
    double columnNs = end / kColumns;
    for (auto [i, core] : llvm::enumerate(cores)) {
      // Time in each column by what it shows.
      std::vector<std::vector<std::pair<int32_t, double>>> columns(kColumns);
      for (const sim::Slice &slice : timing.slices[core]) {
        int32_t key = columnKey(slice);
        int64_t first = std::min<int64_t>(kColumns - 1, slice.startNs / columnNs);
        int64_t last = std::min<int64_t>(kColumns - 1, slice.endNs / columnNs);
        for (int64_t k = first; k <= last; ++k) {
          double overlap = std::min(slice.endNs, (k + 1) * columnNs) -
                           std::max(slice.startNs, k * columnNs);
          if (overlap <= 0)
            continue;
          auto &cell = columns[k];
          auto it = llvm::find_if(cell, [&](const auto &p) { return p.first == key; });
          if (it == cell.end())
            cell.push_back({key, overlap});
          else
            it->second += overlap;
        }
      }
      std::vector<std::optional<int32_t>> shown(kColumns);
      for (int k = 0; k < kColumns; ++k)
        if (!columns[k].empty())
          shown[k] = llvm::max_element(columns[k], [](const auto &a, const auto &b) {
                       return a.second < b.second;
                     })->first;
      for (int k = 0; k < kColumns;) {
        int next = k + 1;
        while (next < kColumns && shown[next] == shown[k])
          ++next;
        if (shown[k]) {
          int32_t key = *shown[k];
          std::string what = key == kTransfer ? "transfers"
                             : key == kWait   ? "waiting"
                                              : timeline.nodeLabel(key);
          os << llvm::formatv("<rect x=\"{0:f2}\" y=\"{1}\" width=\"{2:f2}\" height=\"{3}\" "
                              "fill=\"{4}\"><title>core {5}: {6}, {7} to {8}</title></rect>\n",
                              k * kWidth / kColumns, i * rowHeight,
                              (next - k) * kWidth / kColumns, rowHeight - (rowHeight >= 10),
                              key == kTransfer ? kTransferColour
                              : key == kWait   ? kWaitColour
                                               : nodeColour(key),
                              core, escape(what), formatTime(k * columnNs),
                              formatTime(next * columnNs));
        }
        k = next;
      }
    }
    // The critical path: its stretches on each core, joined where it moves
    // from a core to the peer it waited for.
    std::map<size_t, size_t> rowOf;
    for (auto [i, core] : llvm::enumerate(cores))
      rowOf[core] = i;
    auto x = [&](double ns) { return ns / end * kWidth; };
    std::optional<std::pair<double, double>> previous; // (x, y) of the last step's end
    os << "<g id=\"critical-path\" fill=\"none\" stroke=\"#d50000\" stroke-width=\"1.5\" "
          "vector-effect=\"non-scaling-stroke\">";
    for (const sim::PathStep &step : timing.criticalPath) {
      auto it = rowOf.find(step.core);
      if (it == rowOf.end())
        continue;
      double y = it->second * rowHeight;
      os << llvm::formatv("<rect x=\"{0:f3}\" y=\"{1}\" width=\"{2:f3}\" height=\"{3}\" "
                          "vector-effect=\"non-scaling-stroke\"/>",
                          x(step.startNs), y, std::max(0.0, x(step.endNs) - x(step.startNs)),
                          rowHeight);
      if (previous && std::fabs(previous->second - y) > 0)
        os << llvm::formatv("<line x1=\"{0:f3}\" x2=\"{0:f3}\" y1=\"{1}\" y2=\"{2}\" "
                            "vector-effect=\"non-scaling-stroke\"/>",
                            x(step.startNs), previous->second + rowHeight / 2, y + rowHeight / 2);
      previous = {x(step.endNs), y};
    }
    os << "</g>\n";
    if (timeline.looping)
      os << llvm::formatv("<line x1=\"{0:f3}\" x2=\"{0:f3}\" y1=\"0\" y2=\"{1}\" stroke=\"#000\" "
                          "stroke-dasharray=\"4 3\" vector-effect=\"non-scaling-stroke\"><title>the "
                          "first round ends</title></line>\n",
                          x(timing.latencyNs), height);
    os << "</svg>\n<svg id=\"timeline-axis\" viewBox=\"0 0 1000 20\" preserveAspectRatio=\"none\" "
          "width=\"100%\" height=\"20\"></svg></div></div>\n";
    // The legend: the nodes that take the most core time.
    std::map<int32_t, double> byNode;
    for (size_t core : cores)
      for (const sim::Slice &slice : timing.slices[core])
        if (int32_t key = columnKey(slice); key >= 0)
          byNode[key] += slice.endNs - slice.startNs;
    std::vector<std::pair<int32_t, double>> sorted(byNode.begin(), byNode.end());
    llvm::stable_sort(sorted, [](const auto &a, const auto &b) { return a.second > b.second; });
    os << "<p class=\"legend\"><span><i style=\"background:" << kTransferColour
       << "\"></i>transfers</span><span><i style=\"background:" << kWaitColour
       << ";border:1px solid #bbb\"></i>waiting</span>";
    for (auto [node, ns] : llvm::ArrayRef(sorted).take_front(16))
      os << "<span><i style=\"background:" << nodeColour(node) << "\"></i>"
         << escape(timeline.nodeLabel(node)) << "</span>";
    if (sorted.size() > 16)
      os << "<span>and " << sorted.size() - 16 << " more nodes</span>";
    os << "</p>\n";
  }

  void meshCharts() {
    int64_t rows = timeline.arch.layoutRows, cols = timeline.arch.layoutCols;
    if (rows <= 0 || cols <= 0)
      return;
    // Busy time and crossbars of each core.
    std::vector<double> busy(timeline.arch.coreCount, 0), crossbars(busy.size(), 0);
    for (auto [id, core] : llvm::enumerate(timing.cores))
      if (id < busy.size())
        busy[id] = core.busyNs();
    if (const Array *cores = report.getArray("cores"))
      for (const llvm::json::Value &v : *cores)
        if (const Object *c = v.getAsObject()) {
          int64_t id = c->getInteger("id").value_or(-1);
          if (id >= 0 && size_t(id) < crossbars.size())
            crossbars[id] = number(c, "crossbars");
        }
    // Bytes over each link between neighbours, routed along the row first,
    // then the column; global-memory traffic is told per core.
    std::map<std::pair<int64_t, int64_t>, double> links;
    std::vector<double> globalBytes(busy.size(), 0);
    int64_t global = timeline.arch.globalNode();
    for (const sim::Message &m : timing.messages) {
      if (m.from == global || m.to == global) {
        int64_t core = m.from == global ? m.to : m.from;
        if (core >= 0 && size_t(core) < globalBytes.size())
          globalBytes[core] += m.bytes;
        continue;
      }
      int64_t r = m.from / cols, c = m.from % cols, tr = m.to / cols, tc = m.to % cols;
      while (c != tc || r != tr) {
        int64_t here = r * cols + c;
        if (c != tc)
          c += c < tc ? 1 : -1;
        else
          r += r < tr ? 1 : -1;
        int64_t there = r * cols + c;
        links[{std::min(here, there), std::max(here, there)}] += m.bytes;
      }
    }
    double maxLink = 0;
    for (auto &[link, bytes] : links)
      maxLink = std::max(maxLink, bytes);
    // Busy time is shaded from the least busy core with a program to the
    // busiest, so that the differences show.
    double maxBusy = *std::max_element(busy.begin(), busy.end()), minBusy = maxBusy;
    for (double ns : busy)
      if (ns > 0)
        minBusy = std::min(minBusy, ns);
    double perCore = double(timeline.arch.matrix.xbarArrayCount);
    os << "<h2>The chip</h2>\n<p>Cores on their " << rows << "x" << cols
       << " mesh (core id row by row). Left: each core's busy time (compute and its own part "
          "of transfers), from "
       << formatTime(minBusy) << " (lightest) to " << formatTime(maxBusy)
       << " (darkest); right: its crossbars in use, of "
       << timeline.arch.matrix.xbarArrayCount << ". Lines between "
          "neighbours carry the NoC's bytes (routed along the row, then the column), darker "
          "and thicker for more.</p>\n<div style=\"display:flex;gap:24px;flex-wrap:wrap\">";
    auto map = [&](llvm::StringRef id, auto share, int hue, auto label) {
      double cell = std::clamp(640.0 / std::max(rows, cols), 14.0, 48.0);
      os << llvm::formatv("<svg id=\"{0}\" width=\"{1}\" height=\"{2}\">", id, cols * cell + 2,
                          rows * cell + 2);
      for (int64_t core = 0; core < rows * cols && core < timeline.arch.coreCount; ++core)
        os << llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{2}\" "
                            "fill=\"{3}\" stroke=\"#fff\"><title>core {4}: {5}</title></rect>",
                            1 + (core % cols) * cell, 1 + (core / cols) * cell, cell,
                            scaleColour(share(core), hue), core, escape(label(core)));
      for (auto &[link, bytes] : links) {
        double share = maxLink > 0 ? bytes / maxLink : 0;
        auto centre = [&](int64_t core, bool y) {
          return 1 + ((y ? core / cols : core % cols) + 0.5) * cell;
        };
        os << llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{3}\" stroke=\"{4}\" "
                            "stroke-width=\"{5:f1}\"><title>{6} and {7}: {8} bytes</title></line>",
                            centre(link.first, false), centre(link.first, true),
                            centre(link.second, false), centre(link.second, true),
                            scaleColour(0.3 + 0.7 * share, 10), 1 + 4 * share, link.first,
                            link.second, int64_t(bytes));
      }
      os << "</svg>";
    };
    map("mesh-busy",
        [&](int64_t c) {
          if (busy[c] <= 0)
            return 0.0;
          return maxBusy > minBusy ? 0.15 + 0.85 * (busy[c] - minBusy) / (maxBusy - minBusy)
                                   : 1.0;
        },
        215,
        [&](int64_t c) {
          return "busy " + formatTime(busy[c]) + ", " +
                 std::to_string(int64_t(globalBytes[c])) + " bytes to and from global memory";
        });
    map("mesh-crossbars", [&](int64_t c) { return perCore > 0 ? crossbars[c] / perCore : 0; },
        130, [&](int64_t c) {
          return llvm::formatv("{0} of {1} crossbars", int64_t(crossbars[c]), int64_t(perCore))
              .str();
        });
    os << "</div>\n";
  }

  /// A horizontal bar chart's bar, `share` of `width`.
  void bar(double x, double y, double width, double share, double height,
           const std::string &colour, const std::string &title, double opacity = 1) {
    os << llvm::formatv("<rect x=\"{0:f1}\" y=\"{1}\" width=\"{2:f1}\" height=\"{3}\" "
                        "fill=\"{4}\" fill-opacity=\"{5}\"><title>{6}</title></rect>",
                        x, y, std::max(0.0, width * share), height, colour, opacity,
                        escape(title));
  }

  void layerChart() {
    const Array *nodes = timingReport ? timingReport->getArray("nodes") : nullptr;
    if (!nodes || nodes->empty())
      return;
    std::vector<const Object *> sorted;
    for (const llvm::json::Value &v : *nodes)
      if (const Object *n = v.getAsObject())
        sorted.push_back(n);
    llvm::stable_sort(sorted, [](const Object *a, const Object *b) {
      return number(a, "start_ns") < number(b, "start_ns");
    });
    double latest = 0, maxCrossbars = 0, maxEnergy = 0;
    for (const Object *n : sorted) {
      latest = std::max(latest, number(n, "end_ns"));
      maxCrossbars = std::max(maxCrossbars, number(n, "crossbars"));
      maxEnergy = std::max(maxEnergy, number(n, "energy_pj"));
    }
    // The index of each node's name, for its colour in the timeline.
    std::map<std::string, int32_t> indexOf;
    for (auto [i, name] : llvm::enumerate(timeline.nodeNames))
      indexOf.emplace(name, int32_t(i));
    constexpr double kLabel = 220, kSpan = 560, kSmall = 170, kRow = 14;
    double height = kRow * (sorted.size() + 1);
    os << "<h2>Per layer</h2>\n<p>Each model node (in the order it starts): when its "
          "instructions ran (the bar) and its cores' busy time (the dark part, as a share of "
          "its span); the crossbars its matrix products read; the dynamic energy of its "
          "instructions (crossbar reads, vector work, memory accesses and transfers).</p>\n";
    os << llvm::formatv("<svg id=\"layers\" width=\"{0}\" height=\"{1}\">",
                        kLabel + kSpan + 2 * kSmall + 40, height);
    os << llvm::formatv("<text x=\"{0}\" y=\"10\">time span (0 to {1})</text><text x=\"{2}\" "
                        "y=\"10\">crossbars</text><text x=\"{3}\" y=\"10\">energy</text>",
                        kLabel, formatTime(latest), kLabel + kSpan + 20,
                        kLabel + kSpan + kSmall + 30);
    for (auto [i, n] : llvm::enumerate(sorted)) {
      double y = kRow * (i + 1);
      std::string name = n->getString("node").value_or("").str();
      auto index = indexOf.find(name);
      std::string colour = nodeColour(index == indexOf.end() ? -1 : index->second);
      os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\">{2}</text>", kLabel - 6,
                          y + 10, escape(name.size() > 34 ? name.substr(0, 33) + "…" : name));
      double start = number(n, "start_ns"), end = number(n, "end_ns");
      double span = std::max(0.0, end - start);
      double x = latest > 0 ? kLabel + start / latest * kSpan : kLabel;
      double width = latest > 0 ? span / latest * kSpan : 0;
      double cores = std::max(1.0, number(n, "cores"));
      double busyShare = span > 0 ? number(n, "busy_ns") / cores / span : 0;
      bar(x, y + 1, width, 1, kRow - 3, colour,
          name + ": " + formatTime(start) + " to " + formatTime(end), 0.35);
      bar(x, y + 1, width, busyShare, kRow - 3, colour,
          llvm::formatv("{0}: {1} busy over {2} cores", name, formatTime(number(n, "busy_ns")),
                        cores));
      bar(kLabel + kSpan + 20, y + 1, kSmall - 10,
          maxCrossbars > 0 ? number(n, "crossbars") / maxCrossbars : 0, kRow - 3, "#2e7d32",
          llvm::formatv("{0}: {1} crossbars", name, int64_t(number(n, "crossbars"))));
      bar(kLabel + kSpan + kSmall + 30, y + 1, kSmall - 10,
          maxEnergy > 0 ? number(n, "energy_pj") / maxEnergy : 0, kRow - 3, "#ef6c00",
          name + ": " + formatEnergy(number(n, "energy_pj")));
    }
    os << "</svg>\n";
  }

  /// A stacked horizontal bar of named parts, with its legend.
  void stacked(llvm::StringRef id, llvm::ArrayRef<std::tuple<std::string, double, std::string>> parts,
               std::string (*format)(double)) {
    double all = 0;
    for (auto &[name, value, colour] : parts)
      all += value;
    os << llvm::formatv("<svg id=\"{0}\" width=\"820\" height=\"30\">", id);
    double x = 0;
    for (auto &[name, value, colour] : parts) {
      double share = all > 0 ? value / all : 0;
      bar(x, 2, 800, share, 24, colour,
          llvm::formatv("{0}: {1} ({2:f1}%)", name, format(value), 100 * share));
      x += 800 * share;
    }
    os << "</svg>\n<p class=\"legend\">";
    for (auto &[name, value, colour] : parts)
      os << "<span><i style=\"background:" << colour << "\"></i>" << escape(name) << " "
         << format(value) << llvm::formatv(" ({0:f1}%)", all > 0 ? 100 * value / all : 0)
         << "</span>";
    os << "</p>\n";
  }

  void energyCharts() {
    const Object *e = timingReport ? timingReport->getObject("energy") : nullptr;
    if (!e)
      return;
    double staticPj = number(e, "static_mw") * timing.latencyNs;
    os << "<h2>Energy</h2>\n<p>" << formatEnergy(number(timingReport, "energy_pj"))
       << " per inference, by where it goes:</p>\n";
    stacked("energy",
            {{"crossbar reads", number(e, "crossbar_pj"), "#2e7d32"},
             {"static", staticPj, "#9e9e9e"},
             {"NoC", number(e, "noc_pj"), "#1565c0"},
             {"memories", number(e, "memory_pj"), "#ef6c00"},
             {"vector", number(e, "vector_pj"), "#8e24aa"}},
            formatEnergy);
    os << "<h2>Where the busy cores' time goes</h2>\n";
    stacked("core-time",
            {{"compute", number(timingReport, "compute_ns"), "#2e7d32"},
             {"transfers", number(timingReport, "transfer_ns"), kTransferColour},
             {"waiting for a peer", number(timingReport, "rendezvous_ns"), "#bdbdbd"},
             {"waiting for memory or NoC", number(timingReport, "memory_wait_ns"), "#ef6c00"},
             {"waiting for events", number(timingReport, "event_wait_ns"), "#8e24aa"}},
            formatTime);
  }

  void roundChart() {
    const Array *round = timingReport ? timingReport->getArray("round_cores") : nullptr;
    double roundNs = number(timingReport, "round_ns");
    if (!round || round->empty() || roundNs <= 0)
      return;
    const Object *busiest = (*round)[0].getAsObject();
    os << "<h2>A round of the looping programs</h2>\n<p>A round every " << formatTime(roundNs)
       << ". The bottleneck is core " << (busiest ? busiest->getInteger("id").value_or(-1) : -1)
       << " (" << escape(busiest ? busiest->getString("node").value_or("") : "")
       << "), busy " << formatTime(number(busiest, "busy_ns"))
       << " of it. The busiest cores, each as a share of the round: working, waiting to "
          "send (a later stage is not ready), waiting to receive (an earlier one is "
          "late).</p>\n";
    constexpr double kRow = 14, kLabel = 300, kWidth = 600;
    size_t shown = std::min<size_t>(round->size(), 40);
    os << llvm::formatv("<svg id=\"round\" width=\"{0}\" height=\"{1}\">", kLabel + kWidth + 10,
                        kRow * shown + 4);
    for (size_t i = 0; i < shown; ++i) {
      const Object *c = (*round)[i].getAsObject();
      double y = kRow * i + 2;
      std::string name = llvm::formatv("core {0} ({1})", c->getInteger("id").value_or(-1),
                                       c->getString("node").value_or(""));
      os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\">{2}</text>", kLabel - 6,
                          y + 10, escape(name));
      double x = kLabel;
      for (auto [key, colour] : {std::pair{"busy_ns", "#2e7d32"},
                                 {"send_wait_ns", "#ef6c00"},
                                 {"recv_wait_ns", "#bdbdbd"}}) {
        double share = std::min(1.0, number(c, key) / roundNs);
        bar(x, y, kWidth, share, kRow - 3, colour,
            name + ": " + key + " " + formatTime(number(c, key)));
        x += kWidth * share;
      }
    }
    os << "</svg>\n<p class=\"legend\"><span><i style=\"background:#2e7d32\"></i>working</span>"
          "<span><i style=\"background:#ef6c00\"></i>waiting to send</span><span><i "
          "style=\"background:#bdbdbd\"></i>waiting to receive</span></p>\n";
  }

  void stagesTable() {
    const Object *compiler = report.getObject("compiler");
    const Array *stages = compiler ? compiler->getArray("stages") : nullptr;
    if (!stages)
      return;
    os << "<h2>Compile time by stage</h2>\n<table id=\"stages\"><tr><th>stage</th><th>seconds"
          "</th><th>IR ops</th><th>IR values</th><th>peak RSS (MiB)</th></tr>\n";
    for (const llvm::json::Value &v : *stages)
      if (const Object *s = v.getAsObject())
        os << llvm::formatv("<tr><td>{0}</td><td class=\"n\">{1:f3}</td><td class=\"n\">{2}"
                            "</td><td class=\"n\">{3}</td><td class=\"n\">{4:f1}</td></tr>\n",
                            escape(s->getString("name").value_or("")), number(s, "seconds"),
                            s->getInteger("ops").value_or(0), s->getInteger("values").value_or(0),
                            number(s, "peak_rss_bytes") / (1 << 20));
    os << llvm::formatv("<tr><th>all</th><th class=\"n\">{0:f3}</th><th></th><th></th>"
                        "<th class=\"n\">{1:f1}</th></tr></table>\n",
                        number(compiler, "wall_seconds"),
                        number(compiler, "peak_rss_bytes") / (1 << 20));
  }

  const Object &report;
  const ProgramTimeline &timeline;
  const sim::Timing &timing;
  llvm::raw_ostream &os;
  const Object *timingReport;
};

} // namespace

llvm::Error pimc::writeHtmlReport(const Object &report, const ProgramTimeline &timeline,
                                  llvm::StringRef path) {
  std::string text;
  llvm::raw_string_ostream os(text);
  Page(report, timeline, os).write();
  return writeOutputFile(path, text);
}
