#!/usr/bin/env python3
"""Checks a trace.json against the Chrome trace-event format and against the
replay's own totals in the report of the same program.

    check_trace.py OUT/trace.json OUT/report.json

Every event has the fields its phase needs; every core's slices follow one
another without overlapping; in latency mode, per core, the compute slices
add up to the report's compute_ns, the waits for a peer to its
rendezvous_ns, the last slice ends at the core's finish_ns, there is a flow
for every send, and the latest slice ends at the report's latency.
"""
import json
import math
import sys
from collections import defaultdict

COMPUTE = {"mvm", "vector", "scalar", "copy", "sync"}
WAITS = {"wait to send", "wait to receive"}


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-3)


def fail(message):
    print("check_trace: " + message)
    sys.exit(1)


def main():
    trace_path, report_path = sys.argv[1:3]
    with open(trace_path) as f:
        trace = json.load(f)
    with open(report_path) as f:
        report = json.load(f)
    events = trace.get("traceEvents")
    if not isinstance(events, list) or not events:
        fail("no traceEvents array")
    slices = defaultdict(list)
    flows = defaultdict(dict)
    counters = 0
    for e in events:
        for key in ("name", "ph", "pid", "tid"):
            if key not in e:
                fail(f"an event has no '{key}': {e}")
        ph = e["ph"]
        if ph == "M":
            continue
        if not isinstance(e.get("ts"), (int, float)) or e["ts"] < 0:
            fail(f"an event has no timestamp: {e}")
        if ph == "X":
            if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
                fail(f"a complete event has no duration: {e}")
            if "node" not in e.get("args", {}):
                fail(f"a slice is not labelled by its model node: {e}")
            slices[e["tid"]].append(e)
        elif ph in ("s", "f"):
            flows[e["id"]][ph] = e
        elif ph == "C":
            counters += 1
        else:
            fail(f"an unexpected phase '{ph}'")
    for tid, line in slices.items():
        for a, b in zip(line, line[1:]):
            if b["ts"] < a["ts"] + a["dur"] - 1e-6:
                fail(f"core {tid}: slices overlap at {b['ts']} us")
    for fid, pair in flows.items():
        if set(pair) != {"s", "f"}:
            fail(f"flow {fid} lacks its start or its end")
        if pair["f"]["ts"] < pair["s"]["ts"]:
            fail(f"flow {fid} ends before it starts")
    if not counters:
        fail("no NoC counter")

    timing = report["timing"]
    sends = report["instructions"]["send"]
    print(f"{sum(map(len, slices.values()))} slices on {len(slices)} cores, "
          f"{len(flows)} flows, {counters} counter samples")
    if timing["mode"] != "latency":
        return
    if len(flows) != sends:
        fail(f"{len(flows)} flows for {sends} sends")
    latest = max(e["ts"] + e["dur"] for line in slices.values() for e in line)
    if not close(latest * 1000, timing["latency_ns"]):
        fail(f"the last slice ends at {latest * 1000} ns, the latency is {timing['latency_ns']}")
    for core in timing["cores"]:
        line = slices.get(core["id"], [])
        compute = sum(e["dur"] for e in line if e["cat"] in COMPUTE) * 1000
        waits = sum(e["dur"] for e in line if e["cat"] in WAITS) * 1000
        end = max((e["ts"] + e["dur"] for e in line), default=0) * 1000
        for what, got, want in (("compute", compute, core["compute_ns"]),
                                ("rendezvous wait", waits, core["rendezvous_ns"]),
                                ("finish", end, core["finish_ns"])):
            if not close(got, want):
                fail(f"core {core['id']}: {what} {got} ns in the trace, {want} in the report")
    print("the trace agrees with the report's totals")


if __name__ == "__main__":
    main()
