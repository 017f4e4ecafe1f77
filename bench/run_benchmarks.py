#!/usr/bin/python3
"""Compile-time, memory and code-size benchmarks of the benchmark models.

For each model (exported by export_models.py into OUT/models, kept between
runs) and each mode (latency, throughput) this compiles it with the artifacts
written, under /usr/bin/time -v, on the reference chip (chip-144, or chip-256
for vgg16), then times the functional simulation on the exported input. With
--pimsim CHIPTEST it also runs pimsim-nn on the artifacts and reads its
latency (latency mode) or throughput (throughput mode) and energy. A
throughput run simulates a fixed, stated sim_time (--sim-time, 200 ms by
default: the window PIMCOMP-NN's published throughputs were measured in),
so that the pipeline's fill counts as it does there, and takes long (a
quarter of an hour for resnet18); the table gives pimc's steady-state round
beside it, and the samples pimc's replay says pimsim-nn counts in that
window.

It prints one markdown table (and writes OUT/results.md and OUT/results.json):
wall time and peak RSS of the compile, instructions by class, the address
loads (sldi) against the register operands that would need one without
register reuse, pimc's own estimate of the latency, throughput and energy (the
timing replay), and the functional simulation time, each checked against
the compile-time targets where it has one. A second table gives each
stage's seconds against the IR ops it left, and the growth models
(--models resnet18 resnet34 resnet50 resnet18_448 --modes latency) their
compile time as a multiple of resnet18's. The coverage models (squeezenet1_1,
mobilenet_v3_large, inception_v3, resnext50_32x4d, resnet18_batch4) run when
named.

Timings on a shared machine are noisy: compare runs made one after another.

Usage: bench/run_benchmarks.py [OUT] [--models NAME ...] [--modes MODE ...]
       [--pimc PATH] [--pimsim CHIPTEST] [--sim-time MS] [--no-simulate]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ["resnet18", "vgg16", "googlenet", "mobilenet_v2", "alexnet", "squeezenet1_0",
          "lstm", "gru"]
# How compile time grows with the model: --models GROWTH... (latency mode);
# each is compared with resnet18 when both are run.
GROWTH = ["resnet34", "resnet50", "resnet18_448"]
GROWTH_TARGETS = {"resnet34": 2.2, "resnet18_448": 4.5}
# The coverage models: newer operators, grouped convolutions, a batch
# (--models COVERAGE...).
COVERAGE = ["squeezenet1_1", "mobilenet_v3_large", "inception_v3", "resnext50_32x4d",
            "resnet18_batch4"]
ARCH = {"vgg16": "chip-256.json", "resnet50": "chip-256.json"}
# Compile seconds and peak MiB, functional simulation seconds.
TARGETS = {"resnet18": (1.5, 300.0, 10.0), "vgg16": (6.0, 1000.0, None),
           "googlenet": (1.5, None, None), "mobilenet_v2": (1.5, None, None),
           "alexnet": (1.5, None, None), "squeezenet1_0": (1.5, None, None)}


def timed(command):
    """Runs `command` under /usr/bin/time -v: (stdout, wall s, peak MiB)."""
    result = subprocess.run(["/usr/bin/time", "-v"] + command,
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("failed: %s\n%s%s" % (" ".join(command), result.stdout, result.stderr))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", result.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr)
    seconds = 0.0
    for part in wall.group(1).split(":"):
        seconds = seconds * 60 + float(part)
    return result.stdout, seconds, int(rss.group(1)) / 1024


def pimsim(chiptest, out, sim_time_ms=None):
    """Runs pimsim-nn on a program directory; looping programs (sim_mode 0)
    for `sim_time_ms` when given, else for the sim_time pimc chose."""
    arch = os.path.join(out, "arch.json")
    if sim_time_ms is not None:
        with open(arch) as f:
            config = json.load(f)
        if config.get("sim_config", {}).get("sim_mode") == 0:
            config["sim_config"]["sim_time"] = sim_time_ms
            # Beside the original, so that its network file is found.
            arch = os.path.join(out, "arch-sim-time-%dms.json" % sim_time_ms)
            with open(arch, "w") as f:
                json.dump(config, f, indent=2)
    started = time.monotonic()
    result = subprocess.run([chiptest, out, arch], capture_output=True, text=True)
    wall = time.monotonic() - started
    latency = re.search(r"- latency:\s+(\S+) ms", result.stdout)
    throughput = re.search(r"- throughput:\s+(\S+) samples/s", result.stdout)
    # The total in latency mode, per sample (pJ/it) in throughput mode.
    energy = re.search(r"- average energy:\s+(\S+) pJ", result.stdout)
    if result.returncode != 0 or not (latency or throughput):
        return {"pimsim_error": (result.stdout + result.stderr)[-400:]}
    row = {"pimsim_energy_mj": float(energy.group(1)) / 1e9 if energy else None,
           "pimsim_wall_s": wall}
    if latency:
        row["pimsim_latency_ms"] = float(latency.group(1))
    if throughput:
        row["pimsim_throughput"] = float(throughput.group(1))
        with open(arch) as f:
            row["pimsim_sim_time_ms"] = json.load(f)["sim_config"]["sim_time"]
    return row


def counted_in(timing, sim_time_ms):
    """The samples per second pimsim-nn counts in `sim_time_ms` by pimc's
    replay: the first round ends at the latency, one more every round."""
    window = sim_time_ms * 1e6
    if window < timing["latency_ns"]:
        return 0.0
    return (1 + (window - timing["latency_ns"]) // timing["round_ns"]) / (sim_time_ms / 1e3)


def check(value, target):
    if target is None or value is None:
        return ""
    return " ok" if value <= target else " OVER"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default=os.path.join(ROOT, "build", "bench"))
    parser.add_argument("--models", nargs="+", default=MODELS, choices=MODELS + GROWTH + COVERAGE)
    parser.add_argument("--modes", nargs="+", default=["latency", "throughput"],
                        choices=["latency", "throughput"])
    parser.add_argument("--pimc", default=os.path.join(ROOT, "build", "bin", "pimc"))
    parser.add_argument("--pimsim", help="pimsim-nn's ChipTest, built outside the repository")
    parser.add_argument("--sim-time", type=int, default=200, metavar="MS",
                        help="the sim_time of pimsim-nn's throughput runs (default 200 ms)")
    parser.add_argument("--no-simulate", action="store_true",
                        help="skip the functional simulation")
    args = parser.parse_args()

    models = os.path.join(args.out, "models")
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", "export_models.py"), models]
                   + args.models, check=True)

    rows = []
    for name in args.models:
        for mode in args.modes:
            rows.append(run_model(args, models, name, mode))

    pimsim_columns = (" pimsim latency ms | pimsim samples/s in %d ms | pimsim energy mJ |"
                      % args.sim_time) if args.pimsim else ""
    lines = ["| model | mode | chip | compile s | peak MiB | instructions | mvm | vector | "
             "sldi / register operands | transfers | lmv | other | cores | simulate s | "
             "estimated latency ms | estimated round ms | estimated samples/s in %d ms | "
             "estimated energy mJ |" % args.sim_time + pimsim_columns,
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
             + ("---|---|---|" if args.pimsim else "")]
    for r in rows:
        # The targets are for the default (latency) mode.
        target = TARGETS.get(r["model"], (None, None, None)) if r["mode"] == "latency" \
            else (None, None, None)
        simulate = r.get("simulate_s")
        line = ("| %s | %s | %s | %.2f%s | %.0f%s | %d | %d | %d | %d / %d (%.0f%% reused) | %d "
                "| %d | %d | %d | %s | %.3f | %s | %s | %.3f |" % (
                    r["model"], r["mode"] + (" (%s)" % r["plan"] if r["plan"] else ""),
                    r["arch"], r["compile_s"],
                    check(r["compile_s"], target[0]), r["peak_mib"], check(r["peak_mib"], target[1]),
                    r["instructions"], r["mvm"], r["vector"], r["sldi"], r["register_operands"],
                    100.0 * (1 - r["sldi"] / max(r["register_operands"], 1)), r["transfers"],
                    r["lmv"], r["other"], r["cores"],
                    "-" if simulate is None else "%.2f%s" % (simulate, check(simulate, target[2])),
                    r["latency_ms"], "-" if r["round_ms"] is None else "%.3f" % r["round_ms"],
                    "-" if r["throughput"] is None else "%.1f" % r["throughput"],
                    r["energy_mj"]))
        if args.pimsim:
            if "pimsim_error" in r:
                line += " failed | failed | - |"
            else:
                line += " %s | %s | %.3f |" % (
                    "%.3f" % r["pimsim_latency_ms"] if "pimsim_latency_ms" in r else "-",
                    "%.1f" % r["pimsim_throughput"] if "pimsim_throughput" in r else "-",
                    r["pimsim_energy_mj"] or 0)
        lines.append(line)
    lines += [""] + stage_table(rows) + growth_lines(rows)
    table = "\n".join(lines)
    print(table)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(table + "\n")
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(rows, f, indent=1)


def stage_table(rows):
    """Each compile's seconds per stage, against the IR ops the stage left:
    a stage whose time grows faster than its IR shows here. A stage that ran
    more than once (a plan tried again) counts all its runs."""
    names, per_row = [], []
    for r in rows:
        stages = {}
        for name, seconds, ops in r["stages"]:
            stage = name.split(" (")[0]
            if stage not in names:
                names.append(stage)
            total, _ = stages.get(stage, (0.0, 0))
            stages[stage] = (total + seconds, ops)
        per_row.append(stages)
    lines = ["| model | mode | " + " | ".join("%s s / ops" % n for n in names) + " |",
             "|---|---|" + "---|" * len(names)]
    for r, stages in zip(rows, per_row):
        lines.append("| %s | %s | " % (r["model"], r["mode"]) + " | ".join(
            "%.3f / %d" % stages[n] if n in stages else "-" for n in names) + " |")
    return lines


def growth_lines(rows):
    """Compile time of the growth models as a multiple of resnet18's."""
    base = {r["mode"]: r["compile_s"] for r in rows if r["model"] == "resnet18"}
    lines = []
    for r in rows:
        if r["model"] in GROWTH and r["mode"] in base:
            ratio = r["compile_s"] / base[r["mode"]]
            target = GROWTH_TARGETS.get(r["model"])
            lines.append("%s (%s): %.2fx resnet18's compile time%s" % (
                r["model"], r["mode"], ratio,
                "" if target is None else " (target %.1fx:%s)" % (target, check(ratio, target))))
    return [""] + lines if lines else []


def run_model(args, models, name, mode):
    """Compiles (and simulates, and runs pimsim-nn on) one model in one mode."""
    case = os.path.join(models, name)
    out = os.path.join(args.out, "out", name + ("" if mode == "latency" else "-" + mode))
    arch = os.path.join(ROOT, "configs", ARCH.get(name, "chip-144.json"))
    print("compiling %s (%s mode)" % (name, mode), file=sys.stderr)
    _, wall, rss = timed([args.pimc, "compile", os.path.join(case, "model.onnx"),
                          "--arch", arch, "--mode=" + mode, "-o", out, "-q"])
    with open(os.path.join(out, "report.json")) as f:
        report = json.load(f)
    inst = report["instructions"]
    timing = report["timing"]
    row = {"model": name, "mode": mode, "arch": os.path.basename(arch), "compile_s": wall,
           "peak_mib": rss, "instructions": inst["instructions"], "mvm": inst["mvm"],
           "vector": inst["vector"], "sldi": inst["scalar"],
           "register_operands": inst["register_operands"],
           "transfers": inst["send"] + inst["recv"] + inst["load"] + inst["store"],
           "lmv": inst["copies"], "other": inst["other"] + inst["setbw"],
           "cores": report["schedule"]["cores_used"],
           "latency_ms": timing["latency_ns"] / 1e6,
           # Per inference, or per sample when the programs loop, as pimsim-nn reports it.
           "energy_mj": timing.get("energy_per_sample_pj", timing["energy_pj"]) / 1e9,
           # The steady state's round, and the samples pimsim-nn counts in
           # the stated sim_time by the replay, the pipeline's fill included.
           "round_ms": timing["round_ns"] / 1e6 if "round_ns" in timing else None,
           "throughput": counted_in(timing, args.sim_time) if "round_ns" in timing else None,
           "plan": timing.get("plan"),
           "stages": [(st["name"], st["seconds"], st["ops"])
                      for st in report["compiler"]["stages"]]}
    if not args.no_simulate:
        inputs = os.path.join(case, "test_data_set_0")
        _, row["simulate_s"], _ = timed([args.pimc, "simulate", out, "--inputs", inputs,
                                         "--outputs", os.path.join(out, "outputs")])
    if args.pimsim:
        print("running pimsim-nn on %s (%s mode)" % (name, mode), file=sys.stderr)
        row.update(pimsim(args.pimsim, out, args.sim_time))
    return row


if __name__ == "__main__":
    main()
