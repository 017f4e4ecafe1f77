"""Gathers the sweep's points (Snakemake script): results.csv and results.md
with every proxy of every point, and plots of the headline proxies against
each swept arch option (SVG and PNG)."""

import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep import HEADLINES, headlines  # noqa: E402

job = snakemake  # noqa: F821 (the object Snakemake gives its scripts)
points = []
for name in job.input.points:
    with open(name) as f:
        points.append(json.load(f))
arch_keys = list(job.params.arch_keys)

# One row a point: what it is, how it went, the headlines, then every proxy.
rows = []
for point in points:
    row = {"model": point["model"], "chip": point["chip"], "mode": point["mode"]}
    row.update({key: point["parameters"].get(key, "") for key in arch_keys})
    row.update({key: point.get(key, "") for key in ("status", "exit_status", "validation",
                                                     "message")})
    row.update(headlines(point))
    row.update({"pimsim." + key: value for key, value in point.get("pimsim", {}).items()})
    row.update(point.get("proxies", {}))
    rows.append(row)
columns = []
for row in rows:
    columns += [key for key in row if key not in columns]
with open(job.output.csv, "w", newline="") as f:
    writer = csv.DictWriter(f, fieldnames=columns, restval="")
    writer.writeheader()
    writer.writerows(rows)


def cell(value):
    if isinstance(value, float):
        return "%.6g" % value
    return str(value).replace("|", "\\|")


# The Markdown table has a column a point and a row a proxy, to stay readable.
with open(job.output.md, "w") as f:
    f.write("| | " + " | ".join("%s<br>%s<br>%s" % (r["model"], r["chip"], r["mode"])
                                for r in rows) + " |\n")
    f.write("|---|" + "---|" * len(rows) + "\n")
    for key in columns[3:]:
        f.write("| %s | %s |\n" % (key, " | ".join(cell(r.get(key, "")) for r in rows)))


def number(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


# A line a model, mode and the other swept options' values.
for path in job.output.plots:
    headline, option = os.path.splitext(os.path.basename(path))[0].split("-vs-")
    lines = {}
    for row in rows:
        if row["status"] != "ok" or row.get(headline) in ("", None):
            continue
        others = ", ".join("%s %s" % (k, row[k]) for k in arch_keys if k != option)
        label = "%s, %s" % (row["model"], row["mode"]) + (", " + others if others else "")
        lines.setdefault(label, []).append((row[option], row[headline]))
    figure, axes = plt.subplots(figsize=(6, 4))
    for label, values in sorted(lines.items()):
        numeric = all(number(x) is not None for x, _ in values)
        values.sort(key=lambda v: number(v[0]) if numeric else str(v[0]))
        xs = [number(x) if numeric else str(x) for x, _ in values]
        axes.plot(xs, [y for _, y in values], marker="o", label=label)
    axes.set_xlabel(option)
    axes.set_ylabel(HEADLINES[headline])
    if lines:
        axes.legend(fontsize="small")
    else:
        axes.text(0.5, 0.5, "no point compiled", ha="center", transform=axes.transAxes)
    axes.grid(True, alpha=0.3)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
