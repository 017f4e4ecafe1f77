"""One point of the sweep (Snakemake script): run pimc (validate when the
model has test data, compile otherwise), pimsim-nn when asked, and write
point.json with every proxy of the report.

A model that does not fit the chip, that pimc does not support, or whose
outputs differ is a result of the sweep, recorded with pimc's exit status;
any other failure fails the job.
"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep import REPOSITORY, flatten  # noqa: E402

sys.path.insert(0, os.path.join(REPOSITORY, "bench"))
from run_benchmarks import pimsim  # noqa: E402

# pimc's exit statuses (docs/exit-codes.md) that are results, not failures.
RESULTS = {0: "ok", 1: "mismatch", 4: "unsupported", 5: "does not fit"}

job = snakemake  # noqa: F821 (the object Snakemake gives its scripts)
point_file = job.output.point
directory = os.path.dirname(point_file)
out = os.path.join(directory, "out")
command = list(job.params.command) + ["--arch", job.input.arch, "--mode=" + job.wildcards.mode,
                                      "-o", out, "--jobs=%d" % job.threads]
result = subprocess.run(command, capture_output=True, text=True)
with open(os.path.join(directory, "pimc.log"), "w") as log:
    log.write("$ " + " ".join(command) + "\n" + result.stdout + result.stderr)
if result.returncode not in RESULTS:
    sys.exit("pimc exited with %d: %s\n%s" % (result.returncode, " ".join(command),
                                             result.stderr[-2000:]))

point = {"model": job.wildcards.model, "chip": job.wildcards.chip, "mode": job.wildcards.mode,
         "parameters": dict(job.params.parameters), "status": RESULTS[result.returncode],
         "exit_status": result.returncode}
errors = [line for line in result.stderr.splitlines() if line.startswith("pimc: error:")]
if errors:
    point["message"] = errors[0][len("pimc: error: "):]
report_file = os.path.join(out, "report.json")
if result.returncode in (0, 1) and os.path.exists(report_file):
    with open(report_file) as f:
        report = json.load(f)
    point["validation"] = report.get("validation", {}).get("status", "not run")
    point["proxies"] = flatten(report)
    if job.params.pimsim and result.returncode == 0:
        point["pimsim"] = pimsim(job.params.pimsim, out)
with open(point_file, "w") as f:
    json.dump(point, f, indent=1, sort_keys=True)
